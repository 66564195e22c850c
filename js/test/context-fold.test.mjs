// SPDX-License-Identifier: MIT
// foldToolChains / unfoldToolChains are done by the JS layer (js/src/tool-chains.ts) since the
// session modules left them out; their C++ twin (src/context/tool_groups.cpp, which the native
// tests keep testing) gave the answers whose SHA-256 digests are below, for real sessions, random
// chains with every odd shape the folded form has to survive, edited and broken folds, and bad
// input (written with cce-session.wasm of November 2026, which still had fold and unfold; each
// case was compared one by one then). A module that still serves the ops (an older dist/) is
// compared case by case too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';

import { createHash } from 'node:crypto';

import { CompressError, foldToolChains, unfoldToolChains } from 'cce-wasm/context';
import createCceSessionModule from '../../dist/cce-session.mjs';
import { loadConversations } from './support/shared-data.mjs';

let engine;
before(async () => {
  const bytes = readFileSync(new URL('../../dist/cce-session.wasm', import.meta.url));
  engine = await createCceSessionModule({
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(bytes, imports).then(({ instance, module }) => done(instance, module));
      return {};
    },
  });
  // Modules since the value-bytes requests have no JSON entry point (and no fold) at all.
  liveOracle = typeof engine._contextJson === 'function' && oracle('fold', []).ok;
  if (process.env.CCE_REQUIRE_FOLD_ORACLE) assert.ok(liveOracle, 'the module folds');
});

/** The C++ answer to {op, messages}: the envelope, parsed. */
function oracle(op, messages) {
  const bytes = new TextEncoder().encode(JSON.stringify({ op, messages }));
  const pointer = engine._malloc(Math.max(bytes.length, 1));
  engine.HEAPU8.set(bytes, pointer);
  const at = engine._contextJson(pointer, bytes.length);
  engine._free(pointer);
  const [start, length] = engine.HEAPU32.subarray(at >>> 2, (at >>> 2) + 2);
  return JSON.parse(new TextDecoder().decode(engine.HEAPU8.subarray(start, start + length)));
}

/** What the JS function gives, in the envelope's shape. */
function ours(fn, messages) {
  try {
    return { ok: true, output: { messages: fn(messages) } };
  } catch (error) {
    if (!(error instanceof CompressError)) throw error;
    // CompressError keeps an empty path as undefined, as it did for the engine's errors.
    return { ok: false, error: { code: error.code, message: error.message, path: error.path ?? '' } };
  }
}

// The C++ answers of each group, by SHA-256 of their JSON texts joined with "\n".
const DIGESTS = {
  real: '2163399741f5e6ed7323322db27936cea29a726fb2ea54270202b89bb862d28d',
  random: '12e92467871411939adb34c89cd4cd49f9f53822c7b43f102fb2b4a3be19ad80',
  texts: '793c20500c56b01b82c56be36f1e8585b8086ac54799c386acdb0b820a256c71',
  errors: '672ff0782c5ab0c64802ed002882f17fd6ae71e31ef3df1dee77fb759e6c9cd5',
};
const answers = new Map();
// Whether the module still folds (a dist/ from before): then every case is compared as well.
let liveOracle = false;

function same(op, messages, label, group) {
  const fn = op === 'fold' ? foldToolChains : unfoldToolChains;
  const actual = JSON.stringify(ours(fn, messages));
  if (liveOracle) assert.equal(actual, JSON.stringify(oracle(op, messages)), `${op} ${label}`);
  if (!answers.has(group)) answers.set(group, []);
  answers.get(group).push(actual);
  return JSON.parse(actual);
}

function checkDigest(group) {
  const digest = createHash('sha256').update(answers.get(group).join('\n')).digest('hex');
  if (process.env.CCE_PRINT_FOLD_DIGESTS) console.log(`    ${JSON.stringify(group)}: '${digest}',`);
  assert.equal(digest, DIGESTS[group], `the answers of "${group}" changed`);
}

// A deterministic generator of message lists with the shapes the folded form meets.
function random(seed) {
  let x = seed >>> 0;
  return (n) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
}
const TEXTS = ['', 'plain', 'a & b < c > d "q"', 'line 1\nline 2\n', '\n', '&amp; &lt;x&gt; &quot;',
  '</details>', '<details type="tool_calls" done="true" id="x">', 'caf\u00e9 \ud83d\ude00 \ud800 lone', ' '];
function value(r, depth = 0) {
  switch (r(depth > 2 ? 5 : 8)) {
    case 0: return null;
    case 1: return r(2) === 0;
    case 2: return r(1000) / 8 - 40;
    case 3: case 4: return TEXTS[r(TEXTS.length)];
    case 5: return [value(r, depth + 1), value(r, depth + 1)];
    case 6: return JSON.parse(`{"__proto__": ${JSON.stringify(value(r, depth + 1))}, "k": 1}`);
    default: return { a: value(r, depth + 1), 2: 'two', b: [value(r, depth + 1)] };
  }
}
function call(r, i) {
  switch (r(9)) {
    case 0: return 'not an object';
    case 1: return { type: 'function', function: { name: 'no_id', arguments: '{}' } };
    case 2: return { id: 7, function: 'not an object' };
    case 3: return { id: `c${i}`, function: { name: TEXTS[r(TEXTS.length)], arguments: value(r) } };
    case 4: return { id: `c${i}`, function: { name: 'n' } };
    default: return { id: `c${i}`, type: 'function', function: { name: `tool_${r(5)}`, arguments: JSON.stringify({ path: TEXTS[r(TEXTS.length)] }) } };
  }
}
function messages(seed) {
  const r = random(seed);
  const out = [];
  let n = 0;
  while (out.length < 6 + r(30)) {
    const kind = r(10);
    if (kind < 2) out.push({ role: r(2) ? 'user' : 'system', content: TEXTS[r(TEXTS.length)] });
    else if (kind < 4) {
      const m = { role: 'assistant', content: r(3) ? TEXTS[r(TEXTS.length)] : value(r) };
      if (r(3) === 0) m.id = r(2) ? `m${n}` : { nested: value(r) };
      if (r(4) === 0) m.tool_calls = [];
      out.push(m);
    } else if (kind < 8) {
      const calls = Array.from({ length: 1 + r(3) }, () => call(r, n++));
      const m = { role: 'assistant', content: r(2) ? null : TEXTS[r(TEXTS.length)], tool_calls: calls };
      if (r(2)) m.id = `a${n}`;
      out.push(m);
      for (let k = r(4); k > 0; k--) {
        const tool = { role: 'tool' };
        const which = r(5);
        if (which === 0) tool.tool_call_id = 'unknown';
        else if (which === 1) tool.tool_call_id = 3;
        else if (which < 4) tool.tool_call_id = `c${n - 1 - r(3)}`;
        const content = r(5);
        if (content < 3) tool.content = TEXTS[r(TEXTS.length)];
        else if (content === 3) tool.content = value(r);
        if (r(4) === 0) tool.metadata = { kept: value(r) };
        out.push(tool);
      }
    } else out.push({ role: 'tool', tool_call_id: 'orphan', content: TEXTS[r(TEXTS.length)] });
  }
  return out;
}

describe('fold and unfold in JS give what the C++ engine gives', () => {
  test('real sessions', () => {
    let chains = 0;
    for (const { name, conversation } of loadConversations('data/real/')) {
      if (!Array.isArray(conversation)) continue;
      const folded = same('fold', conversation, name, 'real').output.messages;
      chains += conversation.length - folded.length;
      same('unfold', folded, name, 'real');
    }
    assert.ok(chains > 0, 'the data has tool-call chains');
    checkDigest('real');
  });

  test('600 random lists, folded, unfolded, and unfolded after edits', () => {
    for (let seed = 1; seed <= 600; seed++) {
      const list = messages(seed);
      const folded = same('fold', list, `#${seed}`, 'random').output.messages;
      same('unfold', folded, `#${seed} folded`, 'random');
      // Edited folds: the exact restore refuses them and the text is parsed instead.
      const r = random(seed * 7);
      const edited = folded.map((m) => {
        if (!m.metadata?.cce_fold) return m;
        const copy = structuredClone(m);
        switch (r(6)) {
          case 0: delete copy.metadata; break;
          case 1: copy.content += ' edited'; break;
          case 2: copy.metadata.cce_fold.parts[0] = [0, 1e9]; break;
          case 3: copy.metadata.cce_fold.length = 'x'; break;
          case 4: copy.content = copy.content.replace('</details>', '</detail>'); delete copy.metadata; break;
          default: copy.metadata.cce_fold.messages = [1];
        }
        return copy;
      });
      same('unfold', edited, `#${seed} edited`, 'random');
    }
    checkDigest('random');
  });

  test('hand-written folded texts', () => {
    const head = (done, id) =>
      `<details type="tool_calls" done="${done}" id="${id}" name="n &amp; m" arguments="{&quot;a&quot;:1}">\n<summary>Tool Executed</summary>`;
    const texts = [
      `intro\n${head(true, 'a')}\nresult &lt;1&gt;\n</details>\n${head(false, 'b')}\n</details>\noutro`,
      `${head(true, 'a')}\n\n</details>${head(true, 'a')}\nagain\n</details>`,
      `${head(true, 'a')}\nno close`,
      `${head(false, 'b')}\nnot closed at once</details>`,
      `<details type="tool_calls"  done="true"  id="s" name="x" arguments="y">\n<summary>Tool Executed</summary>\nok\n</details>`,
      `<details type="tool_calls" done=true id="s">`,
      `text only <details type="tool_calls"`,
      `\n${head(true, '')}\n&amp;amp; &unknown;\n</details>\n`,
    ];
    for (const [i, content] of texts.entries()) {
      same('unfold', [{ role: 'assistant', content }, { role: 'user', content: 'u' }], `text ${i}`, 'texts');
      same('unfold', [{ role: 'assistant', content, metadata: { cce_fold: null } }], `text ${i} + null fold`, 'texts');
    }
    same('unfold', [{ role: 'assistant', content: 7, metadata: { cce_fold: {} } }], 'non-string content', 'texts');
    checkDigest('texts');
  });

  test('bad input: the same errors', () => {
    for (const op of ['fold', 'unfold']) {
      for (const input of [undefined, null, 'x', { length: 1 }, [1], [null], [[]], [{ role: 'user' }, 'x']]) {
        const answer = same(op, input, JSON.stringify(input) ?? 'undefined', 'errors');
        assert.equal(answer.ok, false);
      }
      // Nesting: the module's reader stops past 512 levels, the request's object, its messages
      // array and the message included (so 509 more are the most).
      for (const levels of [509, 510, 600]) {
        let deep = 'leaf';
        for (let i = 0; i < levels; i++) deep = i % 2 ? [deep] : { d: deep };
        const answer = same(op, [{ role: 'user', content: 'x', deep, before: '\u00e9\ud83d\ude00' }], `depth ${levels}`, 'errors');
        assert.equal(answer.ok, levels <= 509);
      }
    }
    checkDigest('errors');
    assert.throws(() => foldToolChains([{ role: 'user', n: 1n }]), {
      name: 'CompressError',
      code: 'InvalidInput',
      message: 'foldToolChains(): the input is not JSON-serialisable (Do not know how to serialize a BigInt)',
    });
  });

  test('the result is the caller’s to keep: fresh objects, inputs untouched', () => {
    const id = { n: 1 };
    const list = [{ id, role: 'assistant', content: 'a', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'r' }];
    const before = JSON.stringify(list);
    const [folded] = foldToolChains(list);
    assert.equal(JSON.stringify(list), before);
    assert.notEqual(folded.id, id);
    assert.notEqual(folded.id, folded.metadata.cce_fold.messages[0].id);
    const [first] = unfoldToolChains([folded]);
    assert.notEqual(first, folded.metadata.cce_fold.messages[0]);
    assert.equal(JSON.stringify(unfoldToolChains([folded])), before);
  });
});

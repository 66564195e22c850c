// SPDX-License-Identifier: MIT
// clearToolResults / clearReasoning (issue 18 item 5), in every format and the engine's dialect,
// over the real conversations of data/native: the newest `keep` tool results stay, older ones
// become the placeholder, excluded tools stay, clearInputs empties only the cleared calls' inputs,
// reasoning beyond `keep` turns goes whole and what stays is the caller's own block; the output
// is as valid as the input, restores exactly, and the input is never mutated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress as compressMain, CompressError, uncompress as uncompressMain } from 'cce-wasm';
import { compress, uncompress, validate } from 'cce-wasm/formats';
import { compressRequest } from 'cce-wasm/request';

import * as lc from '@langchain/core/messages';

import { toAiSdk, toLangChain, toOpenAIChat, toResponses } from './support/convert-formats.mjs';
import { loadConversations } from './support/shared-data.mjs';

const loadDir = (kind) => loadConversations(`data/native/${kind}/`);

const isObj = (x) => typeof x === 'object' && x !== null && !Array.isArray(x);
const PLACEHOLDER = /^\[cce:cleared tool result — (\d+) chars\]$/;
const REASONING = new Set(['thinking', 'redacted_thinking', 'reasoning']);

// Synthetic reasoning for the formats whose converted data has none: a signed block before a
// text part in every assistant message (the text part keeps the message non-empty when it goes).
let signature = 0;
const thinkingBlock = () => ({ type: 'thinking', thinking: 'Let me think.', signature: `sig-${++signature}` });
function chatWithReasoning(conversation) {
  return conversation.map((m) =>
    m.role === 'assistant' ? { ...m, content: [thinkingBlock(), { type: 'text', text: m.content || 'Working.' }] } : m,
  );
}
function aiSdkWithReasoning(messages) {
  return messages.map((m) =>
    m.role === 'assistant'
      ? {
          ...m,
          content: [
            { type: 'reasoning', text: 'Let me think.', providerOptions: { anthropic: { signature: `sig-${++signature}` } } },
            ...m.content,
          ],
        }
      : m,
  );
}
function langChainWithReasoning(conversation) {
  return conversation.map((m) => {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role !== 'assistant') return toLangChain([m], lc)[0];
    const tool_calls = (m.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      args: JSON.parse(call.function.arguments || '{}'),
      type: 'tool_call',
    }));
    return new lc.AIMessage({ content: [thinkingBlock(), { type: 'text', text: text || 'Working.' }], tool_calls });
  });
}

/**
 * The test's own reading of each format: per message its kind ('user' opens a turn), its tool
 * calls [id, name, input], its tool results [id, content] and its reasoning blocks.
 */
const READERS = {
  'openai-chat': (m) => ({
    kind: m.role === 'user' ? 'user' : m.role === 'assistant' ? 'assistant' : m.role === 'tool' ? 'tool' : 'other',
    calls: (m.tool_calls ?? []).map((c) => [c.id, c.function.name, c.function.arguments]),
    results: m.role === 'tool' ? [[m.tool_call_id, m.content]] : [],
    reasoning: m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((p) => REASONING.has(p.type)) : [],
  }),
  anthropic: (m) => {
    const blocks = Array.isArray(m.content) ? m.content : [];
    const results = blocks.filter((b) => b.type === 'tool_result');
    const onlyResults = m.role === 'user' && blocks.length > 0 && results.length === blocks.length;
    return {
      kind: m.role === 'assistant' ? 'assistant' : onlyResults ? 'tool' : 'user',
      calls: blocks.filter((b) => b.type === 'tool_use').map((b) => [b.id, b.name, b.input]),
      results: results.map((b) => [b.tool_use_id, b.content]),
      reasoning: m.role === 'assistant' ? blocks.filter((b) => REASONING.has(b.type)) : [],
    };
  },
  'ai-sdk': (m) => {
    const parts = Array.isArray(m.content) ? m.content : [];
    return {
      kind: ['user', 'assistant', 'tool'].includes(m.role) ? m.role : 'other',
      calls: parts.filter((p) => p.type === 'tool-call').map((p) => [p.toolCallId, p.toolName, p.input]),
      results: m.role === 'tool' ? parts.filter((p) => p.type === 'tool-result').map((p) => [p.toolCallId, p.output]) : [],
      reasoning: m.role === 'assistant' ? parts.filter((p) => p.type === 'reasoning') : [],
    };
  },
  'openai-responses': (it) => ({
    kind: it.type === 'function_call_output' ? 'tool' : it.type === 'message' ? (it.role === 'user' ? 'user' : it.role === 'assistant' ? 'assistant' : 'other') : 'assistant',
    calls: it.type === 'function_call' ? [[it.call_id, it.name, it.arguments]] : [],
    results: it.type === 'function_call_output' ? [[it.call_id, it.output]] : [],
    reasoning: it.type === 'reasoning' ? [it] : [],
  }),
  langchain: (m) => {
    const type = m._getType();
    return {
      kind: type === 'human' ? 'user' : type === 'ai' ? 'assistant' : type === 'tool' ? 'tool' : 'other',
      calls: type === 'ai' ? (m.tool_calls ?? []).map((c) => [c.id, c.name, c.args]) : [],
      results: type === 'tool' ? [[m.tool_call_id, m.content]] : [],
      reasoning: type === 'ai' && Array.isArray(m.content) ? m.content.filter((p) => REASONING.has(p.type)) : [],
    };
  },
};
READERS.main = READERS['openai-chat'];

const textOf = (content) => (typeof content === 'string' ? content : isObj(content) && typeof content.value === 'string' ? content.value : undefined);
const isEmptyInput = (input) => input === '{}' || (isObj(input) && Object.keys(input).length === 0);

function readAll(format, messages) {
  const read = messages.map(READERS[format]);
  const names = new Map();
  const results = [];
  const calls = [];
  read.forEach((r, i) => {
    for (const [id, name, input] of r.calls) {
      names.set(id, name);
      calls.push({ id, name, input, at: i });
    }
    for (const [id, content] of r.results) results.push({ id, content, at: i });
  });
  for (const r of results) r.name = names.get(r.id);
  return { read, results, calls };
}

/** Checks one clearing run of `messages` in `format`; returns what it saw. */
function checkToolResults(format, messages, result, { keep = 3, excludeTools = [], clearInputs = false }, label) {
  const before = readAll(format, messages);
  const after = readAll(format, result.messages);
  assert.equal(after.results.length, before.results.length, `${label}: results kept their places`);
  const candidates = before.results.filter((r) => !excludeTools.includes(r.name));
  const older = new Set(candidates.slice(0, Math.max(0, candidates.length - keep)));
  const cleared = new Set();
  let count = 0;
  before.results.forEach((r, k) => {
    const out = after.results[k];
    assert.equal(out.id, r.id, `${label}: result order`);
    const text = textOf(out.content);
    const match = text !== undefined ? PLACEHOLDER.exec(text) : null;
    if (!older.has(r)) {
      assert.deepEqual(out.content, r.content, `${label}: result ${r.id} (${r.name}) must stay as it was`);
      return;
    }
    if (match) {
      cleared.add(r.id);
      count++;
      if (typeof r.content === 'string') assert.equal(Number(match[1]), r.content.length, `${label}: the placeholder's size`);
    } else {
      // Left as it was only when the placeholder would not be shorter.
      assert.deepEqual(out.content, r.content, `${label}: result ${r.id} neither cleared nor kept`);
      assert.ok(JSON.stringify(r.content).length <= 60, `${label}: a long result ${r.id} was not cleared`);
    }
  });
  assert.equal(after.calls.length, before.calls.length);
  before.calls.forEach((c, k) => {
    const out = after.calls[k];
    if (clearInputs && cleared.has(c.id)) assert.ok(isEmptyInput(out.input), `${label}: input of cleared call ${c.id}`);
    else assert.deepEqual(out.input, c.input, `${label}: input of call ${c.id} must stay`);
  });
  return count;
}

/** The reasoning blocks that must stay with `keep`: those of the newest `keep` turns with
 * reasoning, and of the last turn when it is still calling tools. */
function expectedReasoning(format, messages, keep) {
  const { read } = readAll(format, messages);
  let turn = 0;
  let calling = false;
  const turnOf = read.map((r) => {
    if (r.kind === 'user') {
      turn++;
      calling = false;
    }
    if (r.kind === 'assistant' && r.calls.length > 0) calling = true;
    return turn;
  });
  const turns = [...new Set(read.flatMap((r, i) => (r.kind === 'assistant' && r.reasoning.length > 0 ? [turnOf[i]] : [])))];
  const kept = new Set(keep === 'all' ? turns : turns.slice(Math.max(0, turns.length - keep)));
  if (calling) kept.add(turn);
  const blocks = [];
  read.forEach((r, i) => {
    if (r.kind !== 'assistant') return;
    // A message of reasoning only keeps it (a message is never emptied).
    const onlyReasoning = format !== 'openai-responses' && Array.isArray(messages[i].content) && messages[i].content.every((p) => REASONING.has(p.type));
    if (kept.has(turnOf[i]) || onlyReasoning) blocks.push(...r.reasoning);
  });
  return blocks;
}

function checkReasoning(format, messages, result, keep, label) {
  const expected = expectedReasoning(format, messages, keep);
  const got = readAll(format, result.messages).read.flatMap((r) => r.reasoning);
  // The caller's own blocks (signatures and encrypted content untouched), exactly those.
  assert.equal(got.length, expected.length, `${label}: reasoning blocks kept`);
  got.forEach((block, k) => assert.equal(block, expected[k], `${label}: a kept reasoning block is the caller's own`));
  const all = readAll(format, messages).read.flatMap((r) => r.reasoning).length;
  return all - got.length;
}

const problemKeys = (problems) => new Set(problems.map((p) => `${p.code}:${p.callId ?? ''}`));
function newProblems(output, input, options) {
  const before = problemKeys(validate(input, options));
  return validate(output, options).filter((p) => !before.has(`${p.code}:${p.callId ?? ''}`));
}

function checkRoundTrip(format, messages, result, options, label) {
  if (format === 'main') {
    const back = uncompressMain(result.messages, result.verbatim).messages;
    assert.equal(back.length, messages.length, `${label}: restored length`);
    back.forEach((m, i) => assert.equal(m, messages[i], `${label}: message ${i} is the original`));
    return;
  }
  assert.deepEqual(newProblems(result.messages, messages, options), [], `${label}: no new problems`);
  const back = uncompress(result.messages, result.verbatim, { format }).messages;
  assert.equal(back.length, messages.length, `${label}: restored length`);
  back.forEach((m, i) => assert.equal(m, messages[i], `${label}: message ${i} is the original`));
}

const anthropic = loadDir('anthropic').map(({ name, conversation }) => ({ name, messages: conversation.messages, system: conversation.system }));
const twins = loadDir('openai');
const CASES = {
  main: twins.map(({ name, conversation }) => ({ name, messages: chatWithReasoning(conversation) })),
  'openai-chat': twins.map(({ name, conversation }) => ({ name, messages: chatWithReasoning(toOpenAIChat(conversation)) })),
  anthropic,
  'ai-sdk': twins.map(({ name, conversation }) => ({ name, messages: aiSdkWithReasoning(toAiSdk(conversation)) })),
  'openai-responses': twins.map(({ name, conversation }) => ({ name, messages: toResponses(conversation) })),
  langchain: twins.map(({ name, conversation }) => ({ name, messages: langChainWithReasoning(conversation) })),
};

function run(format, messages, system, options) {
  if (format === 'main') return compressMain(messages, options);
  return compress(messages, system === undefined ? { format, ...options } : { format, system, ...options });
}

/** The most frequent tool name of a conversation (the one excluded). */
function commonTool(format, messages) {
  const counts = new Map();
  for (const r of readAll(format, messages).results) counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

describe('clearToolResults and clearReasoning over data/native, in every format', () => {
  for (const [format, cases] of Object.entries(CASES)) {
    test(`${format}: results, inputs and reasoning cleared as asked; valid, exact, input untouched`, (t) => {
      assert.equal(cases.length, 112);
      const totals = { cleared: 0, excludedKept: 0, reasoningDropped: 0, runs: 0, fits: 0, plainFits: 0 };
      for (const { name, messages, system } of cases) {
        const snapshot = JSON.stringify(messages);
        const excluded = commonTool(format, messages);
        const runs = [
          { clearToolResults: {} },
          { clearToolResults: { keep: 1, excludeTools: excluded ? [excluded] : [], clearInputs: true } },
          { clearToolResults: { keep: 0, clearInputs: true }, clearReasoning: { keep: 0 } },
          { clearReasoning: {} },
          { clearReasoning: { keep: 2 } },
        ];
        for (const options of runs) {
          const label = `${format} ${name} ${JSON.stringify(options)}`;
          // A recency window over everything: the engine changes nothing, so what changed is clearing.
          const result = run(format, messages, system, { ...options, recencyWindow: 1e6 });
          totals.runs++;
          assert.equal(JSON.stringify(messages), snapshot, `${label}: the input was mutated`);
          if (options.clearToolResults) {
            totals.cleared += checkToolResults(format, messages, result, options.clearToolResults, label);
          } else {
            const before = readAll(format, messages).results.map((r) => r.content);
            assert.deepEqual(readAll(format, result.messages).results.map((r) => r.content), before, `${label}: results untouched`);
          }
          if (options.clearReasoning) totals.reasoningDropped += checkReasoning(format, messages, result, options.clearReasoning.keep ?? 1, label);
          checkRoundTrip(format, messages, result, { format, system }, label);
          if (options.clearToolResults?.excludeTools?.length) {
            totals.excludedKept += readAll(format, result.messages).results.filter((r) => r.name === excluded).length;
          }
          // At defaults (the engine compresses too) and under a budget: still valid and exact.
          const defaults = run(format, messages, system, options);
          checkRoundTrip(format, messages, defaults, { format, system }, `${label} defaults`);
        }
        // Clear first, then the budget: at a third of the plain count the cleared run fits at
        // least as often as the plain one.
        const full = run(format, messages, system, { tokenBudget: 1e12 });
        const budget = Math.max(1, Math.floor(full.tokenCount * 0.3));
        const plain = run(format, messages, system, { tokenBudget: budget });
        const both = run(format, messages, system, { tokenBudget: budget, clearToolResults: { keep: 1 }, clearReasoning: { keep: 1 } });
        checkRoundTrip(format, messages, both, { format, system }, `${format} ${name} budget ${budget}`);
        if (both.fits) assert.ok(both.tokenCount <= budget, `${name}: fits means within the budget`);
        totals.fits += both.fits ? 1 : 0;
        totals.plainFits += plain.fits ? 1 : 0;
        assert.equal(JSON.stringify(messages), snapshot, `${name}: the input was mutated`);
      }
      t.diagnostic(JSON.stringify(totals));
      // The data really exercise the options.
      assert.ok(totals.cleared > 500, `${format}: ${totals.cleared} results cleared`);
      assert.ok(totals.excludedKept > 100, `${format}: ${totals.excludedKept} results of excluded tools kept`);
      assert.ok(totals.reasoningDropped > 50, `${format}: ${totals.reasoningDropped} reasoning blocks dropped`);
      assert.ok(totals.fits >= totals.plainFits, `${format}: ${totals.fits} fit with clearing, ${totals.plainFits} without`);
    });
  }
});

describe('clearing, by example', () => {
  const big = (i) => `${'line of tool output with words and numbers 12345\n'.repeat(30)}#${i}`;
  const conversation = () => {
    const messages = [{ id: 'u0', role: 'user', content: 'Please look at the files.' }];
    for (let i = 0; i < 5; i++) {
      messages.push({
        id: `a${i}`,
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${i}`, type: 'function', function: { name: i === 0 ? 'plan' : 'read', arguments: `{"path":"f${i}.ts"}` } }],
      });
      messages.push({ id: `t${i}`, role: 'tool', tool_call_id: `c${i}`, content: big(i) });
    }
    messages.push({ id: 'u1', role: 'user', content: 'Thanks.' });
    return messages;
  };

  test('main entry: default keep 3, the placeholder, provenance and verbatim of a cleared message', () => {
    const messages = conversation();
    const result = compressMain(messages, { clearToolResults: {}, recencyWindow: 100 });
    const contents = result.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(contents[0], `[cce:cleared tool result — ${big(0).length} chars]`);
    assert.equal(contents[1], `[cce:cleared tool result — ${big(1).length} chars]`);
    assert.deepEqual(contents.slice(2), [big(2), big(3), big(4)]);
    const t0 = result.messages.find((m) => m.id === 't0');
    assert.deepEqual(t0.metadata._cce_original.ids, ['t0']);
    assert.equal(result.verbatim.t0, messages[2]);
    assert.equal(result.messages.find((m) => m.id === 't4'), messages[10], 'an untouched message is the caller\'s own');
  });

  test('a custom placeholder; excluded tools neither cleared nor counted', () => {
    const result = compressMain(conversation(), {
      clearToolResults: { keep: 1, excludeTools: ['plan'], placeholder: '[old output removed]' },
      recencyWindow: 100,
    });
    const contents = result.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.deepEqual(contents, [big(0), '[old output removed]', '[old output removed]', '[old output removed]', big(4)]);
  });

  test('the node entry shortcut does not skip clearing of short conversations', () => {
    const messages = conversation().slice(0, 5);
    messages[2] = { ...messages[2], content: 'x'.repeat(100) }; // short, never compressed otherwise
    const result = compressMain(messages, { clearToolResults: { keep: 0 } });
    assert.equal(result.messages[2].content, '[cce:cleared tool result — 100 chars]');
  });

  test('a summarizer run clears too and restores exactly', async () => {
    const messages = conversation();
    const result = await compressMain(messages, { clearToolResults: { keep: 1 }, summarizer: (text) => text.slice(0, 20) });
    assert.ok(result.messages.some((m) => PLACEHOLDER.test(String(m.content))));
    uncompressMain(result.messages, result.verbatim).messages.forEach((m, i) => assert.equal(m, messages[i]));
  });

  test('Anthropic: a thinking-only turn in a tool loop keeps its thinking; redacted thinking goes whole', () => {
    const messages = [
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'EncryptedBlob' }, { type: 'text', text: 'Answer one.' }] },
      { role: 'user', content: 'Second question' },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'Plan', signature: 'SIG' }, { type: 'tool_use', id: 'toolu_1', name: 'read', input: { p: 1 } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x'.repeat(500) }] },
    ];
    const result = compress(messages, { clearReasoning: { keep: 0 }, clearToolResults: { keep: 0, clearInputs: true } });
    assert.deepEqual(result.messages[1].content, [{ type: 'text', text: 'Answer one.' }]);
    // The last turn is still in its tool loop: its thinking stays, the caller's own block.
    assert.equal(result.messages[3].content[0], messages[3].content[0]);
    assert.deepEqual(result.messages[3].content[1].input, {});
    assert.equal(result.messages[4].content[0].content, '[cce:cleared tool result — 500 chars]');
    assert.deepEqual(validate(result.messages, { format: 'anthropic' }), []);
    uncompress(result.messages, result.verbatim, { format: 'anthropic' }).messages.forEach((m, i) => assert.equal(m, messages[i]));
  });

  test('Responses: a dropped reasoning item is restored before the item it produced', () => {
    const items = toResponses([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { name: 'read', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'y'.repeat(300) },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: 'Done.' },
    ]);
    assert.equal(items[1].type, 'reasoning');
    const result = compress(items, { clearReasoning: { keep: 0 } });
    assert.equal(result.messages.length, items.length - 1);
    assert.ok(!result.messages.some((it) => it.type === 'reasoning'));
    assert.deepEqual(validate(result.messages, { format: 'openai-responses' }), []);
    const back = uncompress(result.messages, result.verbatim, { format: 'openai-responses' }).messages;
    assert.equal(back.length, items.length);
    back.forEach((it, i) => assert.equal(it, items[i]));
  });

  test('compressRequest passes the options on: an Anthropic body cleared without a budget', () => {
    const body = {
      model: 'claude-x',
      max_tokens: 1024,
      messages: [
        { role: 'user', content: 'Read it.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'read', input: { path: 'a.md' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'z'.repeat(400) }] },
        { role: 'assistant', content: 'Read.' },
      ],
    };
    const snapshot = JSON.stringify(body);
    let seen;
    const out = compressRequest(body, { provider: 'anthropic', clearToolResults: { keep: 0 }, onCompress: (r) => (seen = r) });
    assert.equal(out.messages[2].content[0].content, '[cce:cleared tool result — 400 chars]');
    assert.equal(out.model, 'claude-x');
    assert.equal(JSON.stringify(body), snapshot);
    uncompress(seen.messages, seen.verbatim, { format: 'anthropic' }).messages.forEach((m, i) => assert.equal(m, body.messages[i]));
  });

  test('cce-1.0 output is unchanged without the options, and the options are refused under it', () => {
    const messages = conversation();
    const plain = JSON.stringify(compressMain(messages, { compat: 'cce-1.0' }));
    assert.equal(JSON.stringify(compressMain(messages, { compat: 'cce-1.0', clearToolResults: undefined })), plain);
    for (const options of [{ clearToolResults: {} }, { clearReasoning: {} }]) {
      assert.throws(
        () => compressMain(messages, { compat: 'cce-1.0', ...options }),
        (e) => e instanceof CompressError && e.code === 'InvalidInput' && /compat/.test(e.message),
      );
    }
  });
});

describe('bad clearing options', () => {
  const messages = [
    { id: '1', role: 'user', content: 'hi' },
    { id: '2', role: 'assistant', content: 'hello' },
  ];
  const BAD = [
    [{ clearToolResults: 3 }, '/options/clearToolResults'],
    [{ clearToolResults: [] }, '/options/clearToolResults'],
    [{ clearToolResults: { keep: -1 } }, '/options/clearToolResults/keep'],
    [{ clearToolResults: { keep: 1.5 } }, '/options/clearToolResults/keep'],
    [{ clearToolResults: { keep: 'all' } }, '/options/clearToolResults/keep'],
    [{ clearToolResults: { excludeTools: 'read' } }, '/options/clearToolResults/excludeTools'],
    [{ clearToolResults: { excludeTools: [1] } }, '/options/clearToolResults/excludeTools'],
    [{ clearToolResults: { placeholder: '' } }, '/options/clearToolResults/placeholder'],
    [{ clearToolResults: { placeholder: 7 } }, '/options/clearToolResults/placeholder'],
    [{ clearToolResults: { clearInputs: 'yes' } }, '/options/clearToolResults/clearInputs'],
    [{ clearToolResults: { exclude_tools: ['x'] } }, '/options/clearToolResults/exclude_tools'],
    [{ clearReasoning: true }, '/options/clearReasoning'],
    [{ clearReasoning: { keep: -2 } }, '/options/clearReasoning/keep'],
    [{ clearReasoning: { keep: 'some' } }, '/options/clearReasoning/keep'],
    [{ clearReasoning: { turns: 1 } }, '/options/clearReasoning/turns'],
  ];
  for (const [options, path] of BAD) {
    test(`${JSON.stringify(options)} is InvalidInput at ${path}, in both entries`, () => {
      const check = (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === path && e.message.includes('options.');
      assert.throws(() => compressMain(messages, options), check);
      assert.throws(() => compress(messages.map(({ id: _id, ...m }) => m), { format: 'openai-chat', ...options }), check);
      // The module stays usable.
      assert.equal(compressMain(messages).messages.length, 2);
    });
  }

  test("keep: 'all' keeps every reasoning block", () => {
    const messages = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'b' }] },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't2', signature: 's2' }, { type: 'text', text: 'd' }] },
    ];
    const result = compress(messages, { clearReasoning: { keep: 'all' } });
    result.messages.forEach((m, i) => assert.equal(m, messages[i]));
  });

  test('a getter that throws while clearing is InvalidInput', () => {
    const hostile = [{ id: '1', role: 'user', get content() { throw new Error('boom'); } }];
    assert.throws(
      () => compressMain(hostile, { clearToolResults: {} }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput',
    );
  });
});

// SPDX-License-Identifier: MIT
// cce-wasm/context keeps its state in the engine by handle (issue 20, item 2): what crosses the
// boundary per add does not grow with the history, toJSON()/fromJSON() stay exact, a trapped
// instance is recovered from the manager's own copy, and dropped managers free their states.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { CompressError, ContextManager, createContextManager } from 'cce-wasm/context';
import { callSession, debugSessionTrap, sessionTraffic } from '../../dist/session-load.js';

const json = (value) => JSON.stringify(value);
// How many states the live instance holds ("close" of a handle never issued answers the count).
const openContextStates = () =>
  callSession('contextJson', { op: 'close', handle: 0 }, 'close()').output.open;

function message(i) {
  if (i % 7 === 3) {
    return {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: `c${i}a`, type: 'function', function: { name: 'read', arguments: '{"p":1}' } },
        { id: `c${i}b`, type: 'function', function: { name: 'grep', arguments: '{"q":2}' } },
      ],
    };
  }
  if (i % 7 === 4) return { role: 'tool', tool_call_id: `c${i - 1}a`, content: `result ${i} `.repeat(30) };
  if (i % 7 === 5) return { role: 'tool', tool_call_id: `c${i - 2}b`, content: `found ${i} `.repeat(20) };
  return { role: i % 2 ? 'assistant' : 'user', content: `message ${i}: ${'words '.repeat(15 + (i % 23))}`, id: i };
}

const SMALL = { contextWindow: 3000, promptBudget: 500, safetyMargin: 100, keepLast: 4, maxCheckpoints: 3 };

/** Adds messages [from, to), compressing while due; returns the outcomes. */
function replay(chat, from, to) {
  const outcomes = [];
  for (let i = from; i < to; i++) {
    chat.add(message(i));
    outcomes.push(...chat.compressIfNeeded());
  }
  return outcomes;
}

describe('context state held by handle', () => {
  test('an add sends and receives the same number of units at n and at 4n messages', () => {
    const chat = createContextManager({ contextWindow: 1e9, tokenEstimate: 'chars' });
    const cost = (i) => {
      const sent = sessionTraffic.sent;
      const received = sessionTraffic.received;
      chat.add({ role: i % 2 ? 'assistant' : 'user', content: 'same size' });
      return sessionTraffic.sent - sent + (sessionTraffic.received - received);
    };
    for (let i = 0; i < 200; i++) cost(i);
    const atN = cost(200);
    for (let i = 201; i < 800; i++) cost(i);
    const at4N = cost(800);
    assert.ok(atN > 0);
    // Sending the state would make the second about 4 times the first; only digits may differ.
    assert.ok(at4N <= atN + 16, `${atN} units at n, ${at4N} at 4n`);
    // A view of a compressed session crosses in proportion to the view, not the history.
    const compressed = createContextManager(SMALL);
    replay(compressed, 0, 100);
    const v0 = sessionTraffic.received;
    const small = json(compressed.view()).length;
    const viewAt100 = sessionTraffic.received - v0;
    replay(compressed, 100, 400);
    const v1 = sessionTraffic.received;
    compressed.view();
    const viewAt400 = sessionTraffic.received - v1;
    assert.ok(viewAt400 < 3 * Math.max(viewAt100, small), `${viewAt100} vs ${viewAt400}`);
  });

  test('a view between two compressions receives indices, not the summaries again; its messages are the caller\'s', () => {
    const chat = createContextManager(SMALL);
    replay(chat, 0, 120);
    assert.ok(chat.checkpoints.length > 0);
    const first = chat.view();
    const summaryText = first.messages
      .filter((m) => m.metadata?.covered_until !== undefined)
      .reduce((n, m) => n + m.content.length, 0);
    assert.ok(summaryText > 500, `${summaryText} units of summaries`);
    const before = sessionTraffic.received;
    const second = chat.view();
    const received = sessionTraffic.received - before;
    assert.ok(received < summaryText / 2, `${received} units received, summaries ${summaryText}`);
    assert.deepEqual(second, first);
    // Each view's messages are new objects: changing them changes neither the manager nor the next
    // view (summaries and nested tool calls included).
    for (const m of second.messages) {
      m.content = 'changed';
      if (m.tool_calls) m.tool_calls[0].function.name = 'changed';
      if (m.metadata) m.metadata.covered_until = -1;
    }
    assert.deepEqual(chat.view(), first);
    // An own "__proto__" key (JSON.parse makes one) stays a property of the copy.
    const odd = JSON.parse('{"role":"user","content":"odd","__proto__":{"polluted":true}}');
    chat.add(odd);
    const last = chat.view().messages.at(-1);
    assert.equal(Object.getPrototypeOf(last), Object.prototype);
    assert.ok(Object.hasOwn(last, '__proto__'));
    assert.equal(last.polluted, undefined);
    assert.deepEqual(JSON.parse(JSON.stringify(last)), odd);
  });

  test('toJSON() after many adds and compressions restores exactly, and replays identically', () => {
    const chat = createContextManager({ ...SMALL, clock: () => 't' });
    const outcomes = replay(chat, 0, 300);
    assert.ok(outcomes.length >= 4, 'several compressions');
    assert.ok(chat.archive.length > 0, 'merges archived checkpoints');
    const undone = chat.checkpoints.at(-1).id;
    chat.undo(undone);
    const saved = chat.toJSON();
    assert.equal(saved.messages.length, 300);
    assert.equal(saved.tokens.length, 300);

    // The copy the manager keeps is what the engine holds.
    const restored = ContextManager.fromJSON(json(saved), { clock: () => 't' });
    assert.equal(json(restored.toJSON()), json(saved));
    assert.equal(json(restored.view()), json(chat.view()));
    assert.equal(json(restored.usage()), json(chat.usage()));
    // A view's messages are copies: changing one changes neither the history nor the next view.
    const seen = restored.view();
    const last = seen.messages.at(-1);
    const original = last.content;
    last.content = 'changed';
    assert.equal(restored.view().messages.at(-1).content, original);
    assert.equal(json(restored.toJSON()), json(saved));
    // Both go on the same way.
    replay(chat, 300, 360);
    replay(restored, 300, 360);
    assert.equal(json(restored.toJSON()), json(chat.toJSON()));
    assert.equal(json(restored.view()), json(chat.view()));

    // And a manager fed the same messages in one addMany agrees on the history.
    const bulk = createContextManager({ contextWindow: 1e9 });
    const messages = Array.from({ length: 360 }, (_, i) => message(i));
    bulk.addMany(messages);
    assert.equal(json(bulk.history), json(chat.history));
    assert.equal(json(bulk.toJSON().tokens), json(chat.toJSON().tokens));
  });

  test('fromJSON() of a state the engine would write differently adopts its form at the first change', () => {
    const chat = createContextManager({ contextWindow: 5000 });
    chat.add({ role: 'user', content: 'hi' });
    const state = chat.toJSON();
    const quirky = { ...state, events: undefined, extra: 'kept until a change' };
    const restored = ContextManager.fromJSON(quirky);
    assert.equal(restored.toJSON().extra, 'kept until a change');
    restored.add({ role: 'assistant', content: 'hello' });
    chat.add({ role: 'assistant', content: 'hello' });
    assert.equal(json(restored.toJSON()), json(chat.toJSON()));
  });

  test('a trapped instance is re-created and the state re-opened from the manager\'s copy', async () => {
    const chat = createContextManager({ ...SMALL, clock: () => 't' });
    const twin = createContextManager({ ...SMALL, clock: () => 't' });
    replay(chat, 0, 120);
    replay(twin, 0, 120);
    assert.throws(debugSessionTrap, (e) => e instanceof CompressError && e.code === 'Internal');
    // Every operation works on the new instance, as on the twin that never saw a trap... which
    // was re-opened too (same instance); both must answer as before.
    assert.equal(json(chat.view()), json(twin.view()));
    replay(chat, 120, 200);
    replay(twin, 120, 200);
    assert.equal(json(chat.toJSON()), json(twin.toJSON()));

    // A trap while an async compress awaits its summarizer: the next round re-opens the state.
    const summarised = createContextManager({ ...SMALL, clock: () => 't', summarizer: async () => null });
    const plain = createContextManager({ ...SMALL, clock: () => 't' });
    for (let i = 0; i < 60; i++) {
      summarised.add(message(i));
      plain.add(message(i));
    }
    assert.ok(plain.shouldCompress());
    let trapped = false;
    const trapping = ContextManager.fromJSON(summarised.toJSON(), {
      clock: () => 't',
      summarizer: async () => {
        if (!trapped) {
          trapped = true;
          assert.throws(debugSessionTrap, CompressError);
        }
        return null;
      },
    });
    const outcome = await trapping.compress();
    assert.ok(trapped);
    const expected = plain.compress();
    delete outcome.progress;
    delete expected.progress;
    for (const o of [outcome, expected]) o.checkpoint.summarizer = 'deterministic';
    assert.equal(json(outcome), json(expected));
    assert.equal(json(trapping.view()), json(plain.view()));
  });

  test('an onProgress that throws leaves the manager and the engine as before the compress', () => {
    let fail = true;
    const chat = createContextManager({
      ...SMALL,
      clock: () => 't',
      onProgress: (e) => {
        if (fail && e.stage === 'validate') throw new Error('no');
      },
    });
    const twin = createContextManager({ ...SMALL, clock: () => 't' });
    for (let i = 0; i < 60; i++) {
      chat.add(message(i));
      twin.add(message(i));
    }
    const before = json(chat.toJSON());
    assert.throws(() => chat.compress(), (e) => e.code === 'CallbackFailed');
    assert.equal(json(chat.toJSON()), before);
    assert.equal(json(chat.view()), json(twin.view()), 'the engine has no trace of it');
    fail = false;
    chat.compress();
    twin.compress();
    assert.equal(json(chat.toJSON()), json(twin.toJSON()));
  });

  test('dropped managers free their engine states', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    const keep = createContextManager({ contextWindow: 5000 });
    keep.add({ role: 'user', content: 'kept' });
    const base = openContextStates();
    (() => {
      for (let i = 0; i < 300; i++) {
        const chat = createContextManager({ contextWindow: 5000 });
        chat.add({ role: 'user', content: `dropped ${i}` });
      }
    })();
    assert.ok(openContextStates() >= base + 300);
    for (let round = 0; round < 20 && openContextStates() > base + 10; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(openContextStates() <= base + 10, `${openContextStates()} states still open`);
    keep.add({ role: 'assistant', content: 'still here' });
    assert.equal(keep.history.length, 2);
  });
});

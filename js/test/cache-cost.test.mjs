// SPDX-License-Identifier: MIT
// Prompt-cache aware compression (issue 20, item 4): the cost model's arithmetic on hand-computed
// cases, Anthropic breakpoint placement, and compress's cache-stable mode (compressStable).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  billRequests,
  cacheCostModel,
  compactionPays,
  compactionPoint,
  compressStable,
  createCacheBiller,
  minimumSaving,
  placeCacheBreakpoints,
  uncompress,
} from 'cce-wasm/cache';
import { ContextManager, createContextManager } from 'cce-wasm/context';

// Messages that say how many tokens they are: the counter reads `n`.
const msg = (role, name, n) => ({ role, content: name, n });
const byN = (m) => m.n;
const A = msg('user', 'A', 1000);
const B = msg('assistant', 'B', 500);
const C = msg('user', 'C', 200);

describe('cache cost model', () => {
  test('defaults follow the published prices', () => {
    assert.deepEqual(
      [cacheCostModel({ provider: 'anthropic' })].map((m) => [m.cachedPrice, m.writePrice, m.minCacheable]),
      [[0.1, 1.25, 1024]],
    );
    assert.equal(cacheCostModel({ provider: 'anthropic', ttl: '1h' }).writePrice, 2);
    const openai = cacheCostModel({ provider: 'openai' });
    assert.deepEqual([openai.cachedPrice, openai.writePrice, openai.increment], [0.5, 1, 128]);
    assert.throws(() => cacheCostModel({ provider: 'gemini' }), TypeError);
  });

  test('Anthropic: written at 1.25x, read at 0.1x, a changed message misses from there on', () => {
    const biller = createCacheBiller({ provider: 'anthropic' }, byN);
    // 1,500 tokens written (breakpoint at the end).
    assert.deepEqual(biller.bill([A, B]), { tokens: 1500, cached: 0, written: 1500, cost: 1875, cachedMessages: 0 });
    // The previous request is read; the new message is written.
    assert.deepEqual(biller.bill([A, B, C]), { tokens: 1700, cached: 1500, written: 200, cost: 400, cachedMessages: 2 });
    // B changed: [A] alone was never written, so nothing is read.
    const changed = { ...B, content: 'B2' };
    assert.equal(biller.bill([A, changed, C]).cost, 1700 * 1.25);
    assert.deepEqual(biller.totals, {
      requests: 3,
      tokens: 4900,
      cached: 1500,
      written: 3400,
      cost: 1875 + 400 + 2125,
    });
  });

  test('Anthropic: the 1-hour TTL writes at 2x; entries expire after their TTL', () => {
    assert.equal(billRequests([[A, B]], { provider: 'anthropic', ttl: '1h' }, byN).cost, 3000);
    const fiveMinutes = createCacheBiller({ provider: 'anthropic' }, byN);
    fiveMinutes.bill({ messages: [A, B], at: 0 });
    assert.equal(fiveMinutes.bill({ messages: [A, B, C], at: 6 * 60_000 }).cached, 0);
    const hour = createCacheBiller({ provider: 'anthropic', ttl: '1h' }, byN);
    hour.bill({ messages: [A, B], at: 0 });
    assert.equal(hour.bill({ messages: [A, B, C], at: 6 * 60_000 }).cached, 1500);
  });

  test('Anthropic: a prefix under the minimum is neither written nor read', () => {
    const small = msg('user', 'small', 500);
    const r = billRequests([[small], [small, msg('assistant', 'x', 600)]], { provider: 'anthropic' }, byN);
    assert.deepEqual(
      r.requests.map((q) => [q.cached, q.written, q.cost]),
      [
        [0, 0, 500],
        [0, 1100, 1375],
      ],
    );
    // With a 2,048 minimum (Haiku) the second is not written either.
    const haiku = billRequests([[small], [small, msg('assistant', 'x', 600)]], { provider: 'anthropic', minCacheable: 2048 }, byN);
    assert.equal(haiku.cost, 500 + 1100);
  });

  test('Anthropic: explicit breakpoints; a read hits only within the lookback', () => {
    const many = Array.from({ length: 30 }, (_, i) => msg(i % 2 ? 'assistant' : 'user', `m${i}`, 100));
    const biller = createCacheBiller({ provider: 'anthropic' }, byN);
    biller.bill(many.slice(0, 5).concat([A]));
    // 25 messages appended after the written prefix: out of the 20-block lookback of the last
    // breakpoint, so a breakpoint at the old end is needed.
    const next = many.slice(0, 5).concat([A], many.slice(5));
    assert.equal(biller.bill({ messages: next, breakpoints: [next.length - 1] }).cached, 0);
    const again = createCacheBiller({ provider: 'anthropic' }, byN);
    again.bill(many.slice(0, 5).concat([A]));
    const r = again.bill({ messages: next, breakpoints: [5, next.length - 1] });
    assert.deepEqual([r.cached, r.written], [1500, 2500]);
  });

  test('OpenAI: automatic, from 1,024 tokens in 128-token steps, at the cached price', () => {
    const r = billRequests([[A, B], [A, B, C], [A, msg('user', 'X', 2000)]], { provider: 'openai' }, byN);
    // 1,500 cached → 1,024 + 3 × 128 = 1,408 at 0.5x, 292 at 1x.
    assert.deepEqual(
      r.requests.map((q) => [q.cached, q.cost]),
      [
        [0, 1500],
        [1408, 996],
        [0, 3000],
      ],
    );
    assert.equal(billRequests([[A, B], [A, B, C]], { provider: 'openai', cachedPrice: 0.1 }, byN).cost, 1500 + 140.8 + 292);
  });

  test('a compaction pays when the reads it saves outweigh the rewrite', () => {
    const anthropic = { provider: 'anthropic' };
    // Rewrite 10,000 at 1.25 instead of 0.1: 11,500; saved 0.1 × freed per call.
    assert.equal(minimumSaving(anthropic, 10000, 10), 11500);
    assert.equal(compactionPays(anthropic, { before: 21000, after: 10000, calls: 10 }), false);
    assert.equal(compactionPays(anthropic, { before: 22000, after: 10000, calls: 10 }), true);
    // OpenAI: the rewrite loses the 0.5 discount once; 0.5 × freed saved per call.
    assert.equal(minimumSaving({ provider: 'openai' }, 10000, 10), 1000);
  });
});

describe('placeCacheBreakpoints', () => {
  const system = { role: 'system', content: 'rules' };
  const u1 = { role: 'user', content: 'one' };
  const a1 = { role: 'assistant', content: [{ type: 'text', text: 'two' }] };
  const u2 = { role: 'user', content: 'three' };
  const marked = (messages) =>
    messages.flatMap((m, i) =>
      Array.isArray(m.content) && m.content.some((p) => p.cache_control) ? [i] : [],
    );

  test('the last message and the end of the system block; the caller objects are untouched', () => {
    const input = [system, u1, a1, u2];
    const before = structuredClone(input);
    const out = placeCacheBreakpoints(input);
    assert.deepEqual(marked(out), [0, 3]);
    assert.deepEqual(out[3].content, [{ type: 'text', text: 'three', cache_control: { type: 'ephemeral' } }]);
    assert.equal(out[1], u1);
    assert.equal(out[2], a1);
    assert.deepEqual(input, before);
  });

  test('a stable prefix and the previous end; never more than max', () => {
    const input = [system, u1, a1, u2, { role: 'assistant', content: 'four' }, { role: 'user', content: 'five' }];
    assert.deepEqual(marked(placeCacheBreakpoints(input, { stableUntil: 2, previousLength: 4 })), [0, 2, 3, 5]);
    assert.deepEqual(marked(placeCacheBreakpoints(input, { stableUntil: 2, previousLength: 4, max: 2 })), [0, 5]);
    // Summary messages mark the stable prefix by default.
    const summary = { role: 'user', content: 'summary', metadata: { covered_until: 4 } };
    assert.deepEqual(marked(placeCacheBreakpoints([system, summary, a1, u2])), [0, 1, 3]);
  });

  test('existing cache_control is kept and counted; the 1-hour TTL is written', () => {
    const held = {
      role: 'user',
      content: [{ type: 'text', text: 'one', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    };
    const input = [system, held, a1, u2];
    const out = placeCacheBreakpoints(input, { max: 2, ttl: '1h' });
    assert.equal(out[1], held);
    assert.deepEqual(marked(out), [1, 3]);
    assert.deepEqual(out[3].content[0].cache_control, { type: 'ephemeral', ttl: '1h' });
    const full = [0, 1, 2, 3].map((i) => ({ role: 'user', content: [{ type: 'text', text: `${i}`, cache_control: { type: 'ephemeral' } }] }));
    const same = placeCacheBreakpoints(full.concat([u2]));
    assert.deepEqual(marked(same), [0, 1, 2, 3]);
    assert.equal(same[4], u2);
  });
});

describe('compressStable', () => {
  const SENTENCES = [
    'The parser reads the token stream from src/lexer.cpp and builds the syntax tree.',
    'We saw a failure in tests/parser_test.cpp when the input ended inside a string literal.',
    'The fix moved the end-of-input check before the escape handling in readString.',
    'Performance stayed the same: 12 ms for the large fixture, measured three times.',
    'Next we should look at the error messages, which point one column too far right.',
  ];
  const text = (i, sentences) =>
    Array.from({ length: sentences }, (_, k) => SENTENCES[(i + k) % SENTENCES.length]).join(' ');
  const conversation = (n) =>
    Array.from({ length: n }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: `Turn ${i}. ${text(i, 6 + (i % 4))}`,
    }));
  const tokenCounter = (m) => Math.ceil(String(m.content).length / 4);
  const tokens = (messages) => messages.reduce((s, m) => s + tokenCounter(m), 0);
  const history = conversation(80);
  const budget = 3000;

  test('the prefix stays byte-identical across appends while it fits, then recompresses', () => {
    let last = compressStable(history.slice(0, 40), { tokenBudget: budget, tokenCounter });
    assert.equal(last.extended, false);
    assert.ok(last.tokenCount <= budget / 2, `target: ${last.tokenCount}`);
    let recompressed = 0;
    let extendedCalls = 0;
    for (let n = 41; n <= history.length; n++) {
      const input = history.slice(0, n);
      const next = compressStable(input, { tokenBudget: budget, tokenCounter, previous: last });
      assert.ok(tokens(next.messages) <= budget, `over the budget at ${n}`);
      assert.equal(next.tokenCount, tokens(next.messages));
      if (next.extended) {
        extendedCalls++;
        assert.equal(
          JSON.stringify(next.messages.slice(0, last.messages.length)),
          JSON.stringify(last.messages),
        );
        assert.equal(next.messages.at(-1), input.at(-1));
      } else {
        recompressed++;
        // Recompressed only because extending would not fit.
        assert.ok(last.tokenCount + tokenCounter(input.at(-1)) > budget);
      }
      assert.deepEqual(uncompress(next.messages, next.verbatim).messages, input);
      last = next;
    }
    assert.ok(recompressed >= 1 && recompressed < extendedCalls, `${recompressed} / ${extendedCalls}`);
  });

  test('a changed earlier message is compressed again; the input is not mutated', () => {
    const first = compressStable(history.slice(0, 30), { tokenBudget: budget, tokenCounter });
    const edited = history.slice(0, 31).map((m) => ({ ...m }));
    edited[3].content = 'an edit';
    const snapshot = structuredClone(edited);
    const next = compressStable(edited, { tokenBudget: budget, tokenCounter, previous: first });
    assert.equal(next.extended, false);
    assert.deepEqual(edited, snapshot);
    assert.deepEqual(uncompress(next.messages, next.verbatim).messages, edited);
  });

  test('with cacheCost it recompresses before the budget forces it, by the cost model', () => {
    const run = (cacheCost) => {
      let last = null;
      let recompressions = 0;
      for (let n = 20; n <= history.length; n++) {
        const input = history.slice(0, n);
        last = compressStable(input, { tokenBudget: budget, tokenCounter, previous: last, cacheCost });
        if (!last.extended) recompressions++;
        assert.ok(last.tokenCount <= budget);
        assert.deepEqual(uncompress(last.messages, last.verbatim).messages, input);
      }
      return recompressions;
    };
    const forced = run(undefined);
    // OpenAI's 0.5x reads make a rewrite pay sooner than Anthropic's 0.1x.
    assert.ok(run({ provider: 'openai' }) > forced, `${run({ provider: 'openai' })} vs ${forced}`);
  });

  test('fits whenever compress can fit; without a tokenCounter the engine estimate is followed', () => {
    let last = null;
    for (let n = 2; n <= history.length; n += 7) {
      const input = history.slice(0, n);
      last = compressStable(input, { tokenBudget: budget, previous: last });
      assert.equal(last.fits, true);
      assert.ok(last.tokenCount <= budget);
    }
    assert.throws(() => compressStable(history, { tokenBudget: -1 }), { code: 'InvalidInput' });
    assert.throws(() => compressStable(history, { tokenBudget: 10, target: 0 }), { code: 'InvalidInput' });
  });
});

describe('the context manager with cacheCost', () => {
  test('compactionPoint: the batch that minimises reads plus rewrites', () => {
    // Anthropic: 4,000 + sqrt(2 × 1.15 × 4,000 × 700 / 0.1).
    assert.equal(compactionPoint({ provider: 'anthropic' }, 4000, 700), 4000 + Math.sqrt(64_400_000));
    // OpenAI at 0.5: 4,000 + sqrt(2 × 0.5 × 4,000 × 700 / 0.5).
    assert.equal(compactionPoint({ provider: 'openai' }, 4000, 700), 4000 + Math.sqrt(5_600_000));
    // A cheaper read batches more; a free one never compacts early.
    assert.ok(compactionPoint({ provider: 'openai', cachedPrice: 0.1 }, 4000, 700) > 4000 + Math.sqrt(5_600_000));
    assert.equal(compactionPoint({ provider: 'openai', cachedPrice: 1 }, 4000, 700), Infinity);
  });

  // A session of 300-token messages, one view per user turn.
  const turn = (i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(60) });
  const counter = (m) => Math.ceil(String(m.content).length / 4);
  function replay(cacheCost) {
    const chat = createContextManager({ contextWindow: 40000, keepLast: 4, tokenCounter: counter, cacheCost });
    let compressions = 0;
    let largestAfterFirst = 0;
    let smallestCompacted = Infinity;
    for (let i = 0; i < 400; i++) {
      chat.add(turn(i));
      const before = chat.usage().conversation;
      const done = chat.compressIfNeeded().filter((o) => o.compressed).length;
      if (done > 0) smallestCompacted = Math.min(smallestCompacted, before);
      compressions += done;
      const { usage } = chat.view();
      if (compressions > 0) largestAfterFirst = Math.max(largestAfterFirst, usage.conversation);
    }
    return { compressions, largestAfterFirst, smallestCompacted, threshold: chat.usage().threshold };
  }

  test('cacheCost sets the defaults it was measured with; given settings and fromJSON keep theirs', () => {
    const config = (chat) => chat.toJSON().config;
    const plain = config(createContextManager({ contextWindow: 40000 }));
    assert.deepEqual([plain.threshold, plain.maxCheckpoints, plain.ageAfter], [0.75, 4, 2]);
    const anthropic = createContextManager({ contextWindow: 40000, cacheCost: { provider: 'anthropic' } });
    const cached = config(anthropic);
    assert.deepEqual([cached.threshold, cached.maxCheckpoints, cached.ageAfter], [0.9, 8, 8]);
    const given = config(
      createContextManager({ contextWindow: 40000, threshold: 0.6, ageAfter: 3, cacheCost: { provider: 'openai' } }),
    );
    assert.deepEqual([given.threshold, given.maxCheckpoints, given.ageAfter], [0.6, 8, 3]);
    // The state holds them: restored without cacheCost, the manager keeps them.
    const restored = ContextManager.fromJSON(JSON.stringify(anthropic.toJSON()));
    assert.deepEqual(restored.toJSON().config, anthropic.toJSON().config);
  });

  test('a compaction leaves the older summary messages byte-identical (cached)', () => {
    const chat = createContextManager({ contextWindow: 40000, keepLast: 4, tokenCounter: counter, cacheCost: { provider: 'anthropic' } });
    let before = [];
    let compactions = 0;
    // A user and an assistant message per step: the kept tail always starts with a user message,
    // so the first summary keeps its role (it takes the one the joint needs).
    for (let i = 0; i < 400 && compactions < 5; i += 2) {
      chat.add(turn(i));
      chat.add(turn(i + 1));
      const compacted = chat.compressIfNeeded().some((o) => o.compressed);
      const { messages } = chat.view(); // the cost rule measures growth per view
      if (!compacted) continue;
      compactions++;
      const summaries = messages.filter((m) => m.metadata?.covered_until !== undefined);
      assert.equal(summaries.length, compactions, 'one summary message per checkpoint');
      const json = summaries.map((m) => JSON.stringify(m));
      assert.deepEqual(json.slice(0, before.length), before);
      before = json;
    }
    assert.equal(compactions, 5);
  });

  test('compacts in smaller batches below the threshold, by the cost model', () => {
    const plain = replay(undefined);
    const cached = replay({ provider: 'anthropic', minFill: 0 });
    assert.ok(plain.compressions >= 1);
    assert.ok(cached.compressions > plain.compressions, `${cached.compressions} vs ${plain.compressions}`);
    assert.ok(cached.largestAfterFirst < cached.threshold, `${cached.largestAfterFirst} vs ${cached.threshold}`);
    // OpenAI's dearer reads (0.5x) make the batches smaller still.
    assert.ok(replay({ provider: 'openai', minFill: 0 }).compressions > cached.compressions);
  });

  test('minFill keeps the cost rule from compacting a small view', () => {
    const plain = replay(undefined);
    const floored = replay({ provider: 'openai' });
    assert.ok(floored.compressions > plain.compressions);
    assert.ok(floored.compressions < replay({ provider: 'openai', minFill: 0 }).compressions);
    assert.ok(floored.smallestCompacted > 0.5 * floored.threshold, `${floored.smallestCompacted}`);
  });

  test('a compaction keeps the strings the next call reuses; the newest turns stay verbatim', () => {
    // An agent session: each step reads a file by a tool call and gets a long result.
    const chat = createContextManager({ contextWindow: 12000, keepLast: 4, cacheCost: { provider: 'anthropic' } });
    const history = [];
    const filler = 'The module exports the handler and its tests cover the retry path. '.repeat(30);
    let compacted = 0;
    for (let i = 0; i < 40; i++) {
      const step = [
        { role: 'user', content: `Step ${i}: check the next module.` },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'Read', arguments: JSON.stringify({ file_path: `src/mod${i}/handler.ts` }) } }],
        },
        { role: 'tool', tool_call_id: `c${i}`, content: `export function handleStep${i}() {}\n${filler}` },
        { role: 'assistant', content: `Module ${i} is fine.` },
      ];
      history.push(...step);
      chat.addMany(step);
      compacted += chat.compressIfNeeded().filter((o) => o.compressed).length;
      const { messages } = chat.view();
      const text = JSON.stringify(messages);
      // The newest turns are the history's own messages.
      assert.deepEqual(messages.slice(-4), history.slice(-4));
      if (compacted === 0) continue;
      // The steps just before the kept tail are summarised, and their paths, the quoted tool
      // arguments and identifiers are still in the view.
      const covered = Math.max(...chat.checkpoints.map((c) => c.messageRange.end));
      const lastSummarisedStep = Math.floor((covered - 1) / 4);
      for (let k = Math.max(0, lastSummarisedStep - 2); k <= lastSummarisedStep; k++) {
        assert.ok(text.includes(`\\"src/mod${k}/handler.ts\\"`), `step ${i}: the path of step ${k} (covered until ${covered})`);
        assert.ok(text.includes(`handleStep${k}`), `step ${i}: the identifier of step ${k}`);
      }
    }
    assert.ok(compacted >= 3, `compactions: ${compacted}`);
  });

  test('an unknown provider is rejected', () => {
    assert.throws(() => createContextManager({ contextWindow: 1000, cacheCost: { provider: 'x' } }), {
      code: 'InvalidInput',
    });
  });
});

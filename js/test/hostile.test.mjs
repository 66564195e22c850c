// SPDX-License-Identifier: MIT
// Hostile callers (issue 21, items 2-5): getters and Proxy traps that throw, callers that call
// back in or edit their input while a summarizer is pending, options of the wrong type, arrays
// that only claim to be huge, summarizers that never settle, stores that expand without end and
// requests that grow the heap once. Every case is a typed CompressError or the right result, and
// the module keeps working.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { compress, CompressError, uncompress } from 'cce-wasm';
import { createContextManager } from 'cce-wasm/context';

// Internals of the same instance the entry uses: the live module (heap size) and the trap hook.
import { currentEngine } from '../../dist/load.js';
import { debugTrap, IDLE_HEAP_LIMIT } from '../../dist/transport.js';

const started = performance.now();
after(() => console.log(`hostile.test.mjs: ${((performance.now() - started) / 1000).toFixed(1)} s`));

const PROSE =
  'The deployment pipeline retried the upload three times before the storage node answered. ' +
  'Alice reviewed the migration plan and asked Bob to double-check the rollback steps. ';

function conversation(n = 12) {
  const messages = [{ id: 's', role: 'system', content: 'You are a careful assistant.' }];
  for (let i = 0; i < n; i++) {
    messages.push({ id: `u${i}`, role: 'user', content: `${PROSE.repeat(2)}Question ${i}?` });
    messages.push({ id: `a${i}`, role: 'assistant', content: `${PROSE.repeat(3)}Answer ${i}.` });
  }
  messages.push({ id: 'last', role: 'user', content: 'Thanks, that helps.' });
  return messages;
}

const OPTIONS = { recencyWindow: 2 };
const json = (value) => JSON.stringify(value);
const BASELINE = json(compress(conversation(), OPTIONS));
const MODES = [{}, { compat: 'cce-1.0' }];

function assertStillWorks() {
  assert.equal(json(compress(conversation(), OPTIONS)), BASELINE);
}

/** A CompressError of `code` at `path` whose cause is `cause` (when given). */
function typed(code, path, cause) {
  return (error) => {
    assert.ok(error instanceof CompressError, `expected a CompressError, got ${error?.name}: ${error?.message}`);
    assert.equal(error.code, code, error.message);
    if (path !== undefined) assert.equal(error.path, path, error.message);
    if (cause !== undefined) assert.equal(error.cause, cause);
    return true;
  };
}

/** conversation() with message `at` replaced by `message`. */
function withMessage(at, message) {
  const messages = conversation();
  messages[at] = message;
  return messages;
}

const boom = new Error('boom');
const throwing = () => {
  throw boom;
};

/** A message whose `field` getter throws; the other fields are a user message's. */
function getterThrows(field) {
  const message = { id: 'g', role: 'user', content: PROSE.repeat(3) };
  delete message[field];
  Object.defineProperty(message, field, { get: throwing, enumerable: true });
  return message;
}

const asyncSummarizer = async (text) => `summary of ${text.length} units`;

describe('item 2: a throwing getter or Proxy trap of the caller is a typed error', () => {
  for (const field of ['content', 'role', 'id', 'metadata']) {
    test(`a ${field} getter that throws: InvalidInput at its message, sync and async, both modes`, async () => {
      for (const mode of MODES) {
        const messages = withMessage(3, getterThrows(field));
        assert.throws(() => compress(messages, { ...OPTIONS, ...mode }), typed('InvalidInput', '/messages/3', boom));
        // With a summarizer the input is read at call time: the same error, synchronously.
        assert.throws(
          () => compress(messages, { ...OPTIONS, ...mode, summarizer: asyncSummarizer }),
          typed('InvalidInput', '/messages/3', boom),
        );
      }
      assertStillWorks();
    });
  }

  test('a Proxy message whose ownKeys trap throws (read when the message is rebuilt)', async () => {
    const target = { id: 'p', role: 'user', content: PROSE.repeat(4) };
    const proxy = new Proxy(target, { ownKeys: throwing });
    for (const mode of MODES) {
      const messages = withMessage(1, proxy); // old enough to be compressed, so copied
      assert.throws(() => compress(messages, { ...OPTIONS, ...mode }), typed('InvalidInput', '/messages/1', boom));
      assert.throws(
        () => compress(messages, { ...OPTIONS, ...mode, summarizer: asyncSummarizer }),
        typed('InvalidInput', '/messages/1', boom),
      );
    }
    assertStillWorks();
  });

  test('a Proxy array whose get trap throws at an element', () => {
    const messages = new Proxy(conversation(), {
      get: (target, key) => (key === '5' ? throwing() : target[key]),
    });
    assert.throws(() => compress(messages, OPTIONS), typed('InvalidInput', '/messages/5', boom));
    assert.throws(() => uncompress(messages, {}), typed('InvalidInput', '/messages/5', boom));
    assertStillWorks();
  });

  for (const key of ['recencyWindow', 'preserve', 'tokenCounter', 'summarizer', 'compat', 'maxInputBytes']) {
    test(`an options.${key} getter that throws: InvalidInput at /options/${key}`, () => {
      const options = Object.defineProperty({}, key, { get: throwing, enumerable: true });
      assert.throws(() => compress(conversation(), options), typed('InvalidInput', `/options/${key}`, boom));
      assertStillWorks();
    });
  }

  test('an options Proxy whose get trap throws', () => {
    const options = new Proxy({}, { get: throwing });
    assert.throws(() => compress(conversation(), options), typed('InvalidInput', '/options/maxInputBytes', boom));
    assertStillWorks();
  });

  test('each option is read once, before the request is written', () => {
    const reads = {};
    const options = new Proxy(
      { recencyWindow: 2, dedup: true },
      { get: (target, key) => ((reads[key] = (reads[key] ?? 0) + 1), target[key]) },
    );
    compress(conversation(), options);
    assert.ok(Object.values(reads).every((n) => n === 1), json(reads));
    assert.equal(reads.recencyWindow, 1);
  });

  test('uncompress: a metadata getter of a message or of a store entry that throws', () => {
    const r = compress(conversation(), OPTIONS);
    const messages = [...r.messages];
    messages[2] = Object.defineProperty({ ...messages[2] }, 'metadata', { get: throwing });
    assert.throws(() => uncompress(messages, r.verbatim), typed('InvalidInput', '/messages/2', boom));
    const id = r.messages.find((m) => m.metadata?._cce_original).metadata._cce_original.ids[0];
    const store = { ...r.verbatim, [id]: Object.defineProperty({ id, role: 'user' }, 'metadata', { get: throwing }) };
    assert.throws(() => uncompress(r.messages, store), typed('InvalidInput', `/store/${id}`, boom));
    const proxyStore = new Proxy(r.verbatim, { getOwnPropertyDescriptor: throwing });
    assert.throws(() => uncompress(r.messages, proxyStore), typed('InvalidInput', `/store/${id}`, boom));
    // A lookup function is the caller's function: CallbackFailed, as before.
    assert.throws(() => uncompress(r.messages, throwing), typed('CallbackFailed', '/store', boom));
    assert.throws(() => uncompress(r.messages, r.verbatim, { get recursive() { throw boom; } }), typed('InvalidInput', '/options/recursive', boom));
    assert.equal(json(uncompress(r.messages, r.verbatim).messages), json(conversation()));
  });

  test('getters that compress (and grow wasm memory) while the outer request is written', () => {
    // Nested calls on conversations of 7 and 14 MB: each grows the heap of a fresh instance, and
    // the outer encoder's views of the memory are detached by the growth.
    const huge = (n) =>
      Array.from({ length: n }, (_, i) => ({ id: `h${i}`, role: 'user', content: `${PROSE.repeat(8)} ${i}` }));
    const plain = conversation();
    const expected = json(compress(plain, OPTIONS));
    const growths = [];
    const nested = (n) => {
      const raw = currentEngine();
      const before = raw.HEAPU8.length;
      compress(huge(n), { recencyWindow: 0 });
      assert.equal(currentEngine(), raw, 'the same instance');
      growths.push(raw.HEAPU8.length - before);
    };
    const messages = withMessage(6, {
      id: plain[6].id,
      role: plain[6].role,
      get content() {
        nested(growths.length === 2 ? 10000 : 10); // the second read is the encoder's
        return plain[6].content;
      },
    });
    const options = { get recencyWindow() { nested(5000); return 2; } };
    assert.throws(debugTrap, CompressError); // a fresh instance, with its small heap
    compress([], {});
    const out = compress(messages, options);
    console.log(`nested calls grew the heap by ${growths.map((g) => g >> 20).join(', ')} MB`);
    assert.ok(growths[0] > 0 && growths[2] > 0, 'the options and the content getters grew memory');
    const mine = (m) => (m === messages[6] ? plain[6] : m);
    const shown = { ...out, messages: out.messages.map(mine) };
    shown.verbatim = Object.fromEntries(Object.entries(out.verbatim).map(([k, m]) => [k, mine(m)]));
    assert.equal(json(shown), expected);
    assertStillWorks();
  });

  test('async: the result restores the input as it was at call time, whatever the caller does meanwhile', async () => {
    for (const mode of MODES) {
      const options = { ...mode, tokenBudget: 300, summarizer: async (text) => `short ${text.length}` };
      const expected = json(await compress(conversation(), options));
      // Shrunk to nothing while the summarizer is pending.
      let input = conversation();
      let pending = compress(input, options);
      const asCalled = json(input);
      input.length = 0;
      let r = await pending;
      assert.equal(json(r), expected);
      assert.equal(json(uncompress(r.messages, r.verbatim).messages), asCalled);
      // Edited: messages replaced and a field of a compressed message changed.
      input = conversation();
      pending = compress(input, options);
      const first = input[1];
      input.splice(1, 3, { id: 'new', role: 'user', content: 'replaced' });
      first.role = 'edited-role';
      r = await pending;
      const rebuilt = r.messages.find((m) => m.metadata?._cce_original?.ids?.includes('u0'));
      assert.ok(rebuilt, 'u0 was summarised');
      assert.notEqual(rebuilt.role, 'edited-role');
      assert.equal(r.messages.filter((m) => m.id === 'new').length, 0);
      assert.equal(r.verbatim.u0, first, 'verbatim holds the caller objects themselves');
    }
  });

  test('async fast path: the input array itself, as without a summarizer', async () => {
    const input = [{ id: 'x', role: 'user', content: 'hi' }];
    const options = { tokenBudget: 100, compat: 'cce-1.0', summarizer: asyncSummarizer };
    assert.equal((await compress(input, options)).messages, input);
  });
});

describe('item 2: context manager callbacks', () => {
  const chat = (n) =>
    Array.from({ length: n }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(20)}`,
    }));

  function manager(callbacks) {
    const m = createContextManager({ tokenEstimate: 'chars', contextWindow: 1200, keepLast: 2, clock: () => 'T', ...callbacks });
    for (const message of chat(12)) m.add(message);
    assert.ok(m.shouldCompress());
    return m;
  }

  for (const stage of ['identify', 'validate']) {
    test(`onProgress throwing at "${stage}": CallbackFailed, the manager unchanged (sync and async)`, async () => {
      for (const summarizer of [undefined, async (text) => `S ${text.length}`]) {
        const onProgress = (event) => {
          if (event.stage === stage) throw boom;
        };
        const m = manager({ onProgress, summarizer });
        const before = json(m.toJSON());
        const usage = json(m.usage());
        const run = () => m.compress();
        if (summarizer) await assert.rejects(run, typed('CallbackFailed', '/onProgress', boom));
        else assert.throws(run, typed('CallbackFailed', '/onProgress', boom));
        assert.equal(json(m.toJSON()), before);
        assert.equal(json(m.usage()), usage);
        assert.ok(m.shouldCompress());
      }
    });
  }

  test('a clock that throws: CallbackFailed, the manager unchanged', () => {
    let fail = false;
    const m = manager({ clock: () => (fail ? throwing() : 'T') });
    const before = json(m.toJSON());
    fail = true;
    assert.throws(() => m.compress(), typed('CallbackFailed', '/clock', boom));
    assert.equal(json(m.toJSON()), before);
    fail = false;
    assert.equal(m.compress().compressed, true);
  });
});

describe('item 3: options of the wrong type are InvalidInput with a path', () => {
  const kinds = [
    ['a BigInt', 5n],
    ['a function', () => 5],
    ['a Symbol', Symbol('five')],
  ];
  for (const key of ['recencyWindow', 'tokenBudget', 'fuzzyThreshold', 'minRecencyWindow', 'maxInputBytes']) {
    for (const [name, value] of kinds) {
      test(`options.${key} as ${name}, in both modes and with a summarizer`, () => {
        for (const mode of MODES) {
          const options = { ...mode, fuzzyDedup: true, [key]: value };
          assert.throws(() => compress(conversation(), options), typed('InvalidInput', `/options/${key}`));
          assert.throws(() => compress(conversation(), { ...options, summarizer: asyncSummarizer }), typed('InvalidInput', `/options/${key}`));
        }
      });
    }
  }
});

describe('item 5: bounded work', () => {
  test('a sparse array of 2**32 - 1 elements is InputTooLarge after a few reads', () => {
    let reads = 0;
    const sparse = new Proxy(new Array(2 ** 32 - 1), {
      get: (target, key) => {
        reads++;
        return target[key];
      },
    });
    for (const options of [{}, { maxInputBytes: 0 }, { compat: 'cce-1.0', summarizer: asyncSummarizer }]) {
      assert.throws(() => compress(sparse, options), typed('InputTooLarge', '/messages'));
    }
    assert.throws(() => uncompress(sparse, {}), typed('InputTooLarge', '/messages'));
    console.log(`sparse array of 2**32 - 1: 4 calls rejected after ${reads} reads`);
    assert.ok(reads <= 4 * 4, `${reads} reads of the array`);
    // Its length alone is over the default 64 MiB: 4 bytes a message.
    const many = new Array(16 * 2 ** 20 + 1);
    assert.throws(() => compress(many), (e) => e.code === 'InputTooLarge' && / 67108868 bytes /.test(e.message));
    assertStillWorks();
  });

  test('summarizers that never settle, without a timeout, hold no wasm memory', async () => {
    const big = conversation(40); // about 60 KB of request
    const never = () => new Promise(() => {});
    compress(big, { recencyWindow: 0 });
    const raw = currentEngine();
    for (let i = 0; i < 50; i++) void compress(big, { recencyWindow: 0, summarizer: never });
    const heapBefore = raw.HEAPU8.length;
    const probe = raw._malloc(1 << 20); // where the allocator's next free megabyte is
    raw._free(probe);
    for (let i = 0; i < 2000; i++) void compress(big, { recencyWindow: 0, summarizer: never });
    await new Promise((resolve) => setImmediate(resolve));
    const again = raw._malloc(1 << 20);
    raw._free(again);
    console.log(
      `2,000 pending runs: heap ${heapBefore / 2 ** 20} -> ${raw.HEAPU8.length / 2 ** 20} MB, ` +
        `next free MB at ${probe} -> ${again}`,
    );
    assert.equal(currentEngine(), raw);
    assert.equal(raw.HEAPU8.length, heapBefore, 'the heap did not grow');
    assert.equal(again, probe, 'the pending runs keep no block in wasm memory');
    // And a pending run still finishes on its own terms when its summarizer answers.
    let open;
    const gate = new Promise((resolve) => (open = resolve));
    const summarizer = async () => (await gate, 'a summary');
    const pending = compress(big, { recencyWindow: 0, summarizer });
    await new Promise((resolve) => setImmediate(resolve));
    open();
    const r = await pending;
    assert.equal(json(uncompress(r.messages, r.verbatim).messages), json(big));
  });

  test('recursive uncompress over entries that name each other is capped (InputTooLarge)', () => {
    // 100 entries, each a summary of all 100: a million messages by the third pass.
    const ids = Array.from({ length: 100 }, (_, i) => `e${i}`);
    const store = {};
    for (const id of ids) store[id] = { id, role: 'user', content: 'x', metadata: { _cce_original: { ids, summary_id: id, version: 0 } } };
    const top = [{ id: 'top', role: 'user', content: 'summary', metadata: { _cce_original: { ids, summary_id: 'top', version: 0 } } }];
    // Not recursive: one pass, the 100 entries.
    assert.equal(uncompress(top, store).messages.length, 100);
    for (const lookup of [store, (id) => store[id]]) {
      assert.throws(
        () => uncompress(top, lookup, { recursive: true }),
        (e) => typed('InputTooLarge', '/options/recursive')(e) && /more than 100000 messages/.test(e.message),
      );
    }
    // A chain that is deep but does not multiply still expands in full.
    const chain = {};
    for (let i = 0; i < 10; i++) chain[`c${i}`] = { id: `c${i}`, role: 'user', content: `${i}`, metadata: i < 9 ? { _cce_original: { ids: [`c${i + 1}`, `x${i}`], summary_id: `c${i}`, version: 0 } } : {} };
    for (let i = 0; i < 10; i++) chain[`x${i}`] = { id: `x${i}`, role: 'user', content: `x${i}` };
    const head = [{ id: 'h', role: 'user', content: 's', metadata: { _cce_original: { ids: ['c0'], summary_id: 'h', version: 0 } } }];
    assert.equal(uncompress(head, chain, { recursive: true }).messages.length, 10);
    assertStillWorks();
  });

  test('an instance whose memory grew past the idle limit is re-created once the call returns', () => {
    compress(conversation(), OPTIONS);
    const raw = currentEngine();
    // One huge allocation, as a huge request would make, freed again: memory never shrinks.
    const p = raw._malloc(IDLE_HEAP_LIMIT + (16 << 20));
    assert.notEqual(p, 0);
    raw._free(p);
    const grown = raw.HEAPU8.length;
    assert.ok(grown > IDLE_HEAP_LIMIT);
    assert.equal(json(compress(conversation(), OPTIONS)), BASELINE, 'the call itself is answered');
    assert.equal(currentEngine(), undefined, 'and the grown instance is let go');
    assertStillWorks();
    console.log(`heap after one huge allocation: ${grown / 2 ** 20} MB, after the next call: ${currentEngine().HEAPU8.length / 2 ** 20} MB`);
    assert.ok(currentEngine().HEAPU8.length <= 64 << 20);
    // Under the limit the instance stays (nothing is re-created on ordinary calls).
    const kept = currentEngine();
    for (let i = 0; i < 20; i++) compress(conversation(), OPTIONS);
    assert.equal(currentEngine(), kept);
  });

  test('huge requests: memory exhaustion is InputTooLarge, and no huge heap is left behind', () => {
    // The reproducers: 120 M units fit as a request (240 MB of UTF-16) but the engine
    // runs out of its 1 GB working on them (item 4: the engine reads the contents where the request
    // holds them, so it takes two non-ASCII messages, which it joins into one group text and copies
    // again for its word scans); 500 M units cannot even be written (item 5, which held 959 MB
    // after the error). Item 4's 150 M units no longer fit as a request since the speed build's
    // allocator (wasm/size_class_heap.cpp) keeps the blocks the request outgrew apart.
    const half = 'l\u00f6rem ips\u00fcm '.repeat(5_000_000);
    const cases = [
      ['120 M units', [half, `${half} `], /more wasm memory than the engine can have/],
      ['500 M units', ['x'.repeat(500_000_000)], /the request needs at least \d+ bytes of wasm memory/],
    ];
    for (const [name, texts, message] of cases) {
      const messages = texts.map((content, i) => ({ id: `m${i}`, role: 'user', content }));
      messages.push({ id: 'b', role: 'user', content: 'hi' });
      assert.throws(
        () => compress(messages, { maxInputBytes: 0, recencyWindow: 0 }),
        (e) => typed('InputTooLarge')(e) && message.test(e.message),
        name,
      );
      // An instance whose memory grew is let go; one whose allocator refused the request before
      // its memory grew may stay, small (the speed build's size-class heap refuses 500 M units at
      // 32 MB: the block it rounds the request up to, 1 GB, cannot fit under the maximum).
      const kept = currentEngine();
      assert.ok(
        kept === undefined || kept.HEAPU8.length <= 64 << 20,
        `${name}: an instance of ${kept?.HEAPU8.length} bytes is kept`,
      );
      assertStillWorks();
      assert.ok(currentEngine().HEAPU8.length <= 64 << 20);
    }
  });
});

describe('messages whose fields are inherited (class instances)', () => {
  class Message {
    constructor(id, role, text) {
      this.id = id;
      this.role = role;
      this.text = text;
    }
    get content() {
      return this.text;
    }
  }
  test('the engine reads them as the sync path does, with or without a summarizer', async () => {
    const plain = conversation();
    const classy = plain.map((m) => new Message(m.id, m.role, m.content));
    const summarizer = async (text) => `summary of ${text.length} units`;
    const fromPlain = await compress(plain, { ...OPTIONS, summarizer });
    const fromClassy = await compress(classy, { ...OPTIONS, summarizer });
    assert.equal(json(fromClassy.compression), json(fromPlain.compression));
    assert.equal(json(compress(classy, OPTIONS).compression), json(compress(plain, OPTIONS).compression));
  });
});

// SPDX-License-Identifier: MIT
// Survival: after every kind of bad input, failing callback or wasm trap, the next call works.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { compress, CompressError, uncompress } from 'cce-wasm';

// Internals of the same module instance the package entry uses (not part of the API): the live
// Emscripten module, to fill its heap from outside, and the trap hook.
import { currentEngine } from '../../dist/load.js';
import { debugTrap } from '../../dist/transport.js';

const started = performance.now();
after(() =>
  console.log(`survival.test.mjs: ${((performance.now() - started) / 1000).toFixed(1)} s`),
);

const PROSE =
  'The deployment pipeline retried the upload three times before the storage node answered. ' +
  'Alice reviewed the migration plan and asked Bob to double-check the rollback steps. ';

/** A conversation with summaries, a dedup and a tool call: every stage of the engine runs. */
function conversation() {
  const messages = [{ id: 's', role: 'system', content: 'You are a careful assistant.' }];
  for (let i = 0; i < 12; i++) {
    messages.push({ id: `u${i}`, role: 'user', content: `${PROSE.repeat(2)}Question ${i}?` });
    messages.push({ id: `a${i}`, role: 'assistant', content: `${PROSE.repeat(3)}Answer ${i}.` });
  }
  messages.push({ id: 'dup', role: 'user', content: messages[1].content });
  messages.push({ id: 'call', role: 'assistant', content: '', tool_calls: [{ id: 'c1' }] });
  messages.push({ id: 'result', role: 'tool', tool_call_id: 'c1', content: PROSE.repeat(4) });
  messages.push({ id: 'last', role: 'user', content: 'Thanks, that helps.' });
  return messages;
}

const OPTIONS = { recencyWindow: 2 };
const BASELINE = JSON.stringify(compress(conversation(), OPTIONS));
const BUDGETED = JSON.stringify(compress(conversation(), { tokenBudget: 300 }));

/** The module still gives exactly the results it gave before anything went wrong. */
function assertStillWorks() {
  assert.equal(JSON.stringify(compress(conversation(), OPTIONS)), BASELINE);
  assert.equal(JSON.stringify(compress(conversation(), { tokenBudget: 300 })), BUDGETED);
  const r = compress(conversation(), OPTIONS);
  assert.equal(
    JSON.stringify(uncompress(r.messages, r.verbatim).messages),
    JSON.stringify(conversation()),
  );
}

/** `fn` either returns or throws a CompressError; anything else (a TypeError, a crash) fails. */
function settles(fn) {
  try {
    fn();
    return 'returned';
  } catch (error) {
    assert.ok(
      error instanceof CompressError,
      `expected a CompressError, got ${error?.name}: ${error?.message}`,
    );
    assert.ok(typeof error.code === 'string' && error.code.length > 0);
    return error.code;
  }
}

/** errors.ts: a callback's own exception arrives as CallbackFailed with the original as cause. */
function wraps(original) {
  return (error) =>
    error instanceof CompressError && error.code === 'CallbackFailed' && error.cause === original;
}

function deeplyNested(levels) {
  let value = { leaf: true };
  for (let i = 0; i < levels; i++) value = { next: value };
  return value;
}

function cyclicMessage() {
  const m = { id: 'cyc', role: 'user', content: PROSE.repeat(3), metadata: {} };
  m.metadata.self = m;
  m.metadata.list = [m.metadata];
  return m;
}

describe('the next call works after every kind of error', () => {
  // Inputs that must be rejected with a CompressError in every mode (spec §1.3, §11).
  const rejected = [
    ['messages is a string', () => compress('nope')],
    ['messages is null', () => compress(null)],
    ['messages is an object', () => compress({ 0: { id: 'a' } })],
    ['an element is null', () => compress([{ id: 'a', content: 'x' }, null])],
    ['an element is a number', () => compress([7])],
    ['an element is a string', () => compress(['hello'])],
    ['an id is missing', () => compress([{ role: 'user', content: 'x' }])],
    ['tokenCounter is not a function', () => compress(conversation(), { tokenCounter: 'x' })],
    ['recencyWindow is NaN', () => compress(conversation(), { recencyWindow: NaN })],
    ['tokenBudget is Infinity', () => compress(conversation(), { tokenBudget: Infinity })],
    ['fuzzyThreshold is -Infinity', () => compress(conversation(), { fuzzyThreshold: -Infinity })],
    ['tokenCounter returns NaN', () => compress(conversation(), { tokenCounter: () => NaN })],
    [
      'tokenCounter returns Infinity',
      () => compress(conversation(), { tokenCounter: () => Infinity }),
    ],
    ['tokenCounter returns a string', () => compress(conversation(), { tokenCounter: () => '3' })],
    ['the input is over maxInputBytes', () => compress(conversation(), { maxInputBytes: 100 })],
    ['uncompress of a non-array', () => uncompress('x', {})],
    ['uncompress with a null store', () => uncompress([], null)],
    ['uncompress with a number store', () => uncompress([], 5)],
  ];
  for (const [name, fn] of rejected) {
    test(`${name}: a CompressError, then the next call works`, () => {
      assert.throws(fn, CompressError);
      assertStillWorks();
    });
  }

  // Inputs the issue wants rejected in the default mode (some the reference accepts under
  // compat); whichever way the engine decides, in either mode, it must answer with a result or a
  // CompressError, never crash or leave the module broken.
  const questionable = [
    ['duplicate ids', (o) => compress([{ id: 'a', content: 'x' }, { id: 'a', content: 'y' }], o)],
    [
      'a numeric id',
      (o) =>
        compress([{ id: 5, role: 'user', content: PROSE.repeat(3) }], { ...o, recencyWindow: 0 }),
    ],
    ['an object id', (o) => compress([{ id: {}, role: 'user', content: 'x' }], o)],
    ['numeric content', (o) => compress([{ id: 'a', role: 'user', content: 42 }], o)],
    ['object content', (o) => compress([{ id: 'a', role: 'user', content: { text: 'x' } }], o)],
    ['a negative recencyWindow', (o) => compress(conversation(), { ...o, recencyWindow: -3 })],
    ['a negative tokenBudget', (o) => compress(conversation(), { ...o, tokenBudget: -5 })],
    [
      'fuzzyThreshold above 1',
      (o) => compress(conversation(), { ...o, fuzzyDedup: true, fuzzyThreshold: 2 }),
    ],
    ['preserve is a string', (o) => compress(conversation(), { ...o, preserve: 'system' })],
    ['preserve holds numbers', (o) => compress(conversation(), { ...o, preserve: [1, 2] })],
    ['an unknown compat mode', () => compress(conversation(), { compat: 'cce-9' })],
    ['tokenCounter returns -1', (o) => compress(conversation(), { ...o, tokenCounter: () => -1 })],
    ['a cyclic message', (o) => compress([cyclicMessage()], { ...o, recencyWindow: 0 })],
    [
      'metadata nested 100,000 levels deep',
      (o) =>
        compress(
          [{ id: 'deep', role: 'user', content: PROSE.repeat(3), metadata: deeplyNested(100_000) }],
          { ...o, recencyWindow: 0 },
        ),
    ],
  ];
  for (const [name, fn] of questionable) {
    test(`${name}: a result or a CompressError in both modes, then the next call works`, () => {
      settles(() => fn({}));
      assertStillWorks();
      settles(() => fn({ compat: 'cce-1.0' }));
      assertStillWorks();
    });
  }

  test('__proto__, constructor and prototype keys in metadata stay data, nothing polluted', () => {
    const metadata = JSON.parse(
      '{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}, ' +
        '"prototype": 3}',
    );
    const input = [{ id: 'p', role: 'user', content: PROSE.repeat(3), metadata }];
    for (const compat of [undefined, 'cce-1.0']) {
      const r = compress(input, { recencyWindow: 0, compat });
      const out = r.messages[0].metadata;
      assert.ok(Object.hasOwn(out, '__proto__'), 'the own __proto__ key is kept');
      assert.deepEqual(JSON.parse(JSON.stringify(out)).prototype, 3);
      const restored = uncompress(r.messages, r.verbatim).messages;
      assert.equal(restored[0], input[0]);
    }
    assert.equal({}.polluted, undefined);
    assert.equal(Object.prototype.polluted, undefined);
    assertStillWorks();
  });

  test('a tokenCounter that throws: CallbackFailed with it as cause; the next call works', () => {
    const boom = new RangeError('counter failed');
    const counter = () => {
      throw boom;
    };
    assert.throws(() => compress(conversation(), { tokenCounter: counter }), wraps(boom));
    assert.throws(
      () => compress(conversation(), { tokenCounter: counter, tokenBudget: 100 }),
      wraps(boom),
    );
    assertStillWorks();
  });

  test('a store lookup that throws: CallbackFailed with it as cause; the next call works', () => {
    const r = compress(conversation(), OPTIONS);
    const boom = new Error('store down');
    assert.throws(
      () =>
        uncompress(r.messages, () => {
          throw boom;
        }),
      wraps(boom),
    );
    assertStillWorks();
  });
});

describe('summarizers that fail fall back to the deterministic summary (spec §10.1)', () => {
  const failing = [
    [
      'throws',
      () => {
        throw new Error('llm down');
      },
    ],
    ['rejects', () => Promise.reject(new Error('llm down'))],
    ['returns a number', () => 42],
    ['returns null', () => null],
    ['resolves to an object', async () => ({ text: 'short' })],
    ['returns an empty string', () => ''],
    ['returns a longer string', (text) => `${text} and more`],
  ];
  for (const [name, summarizer] of failing) {
    test(`a summarizer that ${name}: the result equals the one without a summarizer`, async () => {
      for (const compat of [undefined, 'cce-1.0']) {
        const expected = JSON.stringify(compress(conversation(), { ...OPTIONS, compat }));
        const actual = await compress(conversation(), { ...OPTIONS, compat, summarizer });
        assert.equal(JSON.stringify(actual), expected);
      }
      assertStillWorks();
    });
  }

  test('a summarizer past summarizerTimeoutMs: a Timeout error; the next call works', async () => {
    await assert.rejects(
      compress(conversation(), {
        ...OPTIONS,
        summarizer: () => new Promise(() => {}),
        summarizerTimeoutMs: 20,
      }),
      (e) => e instanceof CompressError && e.code === 'Timeout',
    );
    assertStillWorks();
  });

  test('a summarizer that never resolves does not block other calls', async () => {
    let calls = 0;
    const pending = compress(conversation(), {
      ...OPTIONS,
      summarizer: () => {
        calls++;
        return new Promise(() => {});
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(calls, 1, 'the run is waiting on its first summary');
    assertStillWorks();
    assert.ok(pending instanceof Promise); // left pending on purpose; it holds no wasm memory lock
  });
});

describe('wasm traps', () => {
  test('a trap (unreachable) is an Internal CompressError; the next call re-instantiates', () => {
    const before = currentEngine();
    assert.ok(before, 'the engine is loaded');
    assert.throws(debugTrap, (e) => e instanceof CompressError && e.code === 'Internal');
    assertStillWorks();
    assert.notEqual(currentEngine(), before, 'a new instance replaced the trapped one');
  });

  test('an async run survives a trap of another call while it awaits its summarizer', async () => {
    const expected = JSON.stringify(compress(conversation(), OPTIONS));
    let trapped = false;
    const result = await compress(conversation(), {
      ...OPTIONS,
      summarizer: async () => {
        if (!trapped) {
          trapped = true;
          assert.throws(debugTrap, CompressError); // the instance this run started on is gone
        }
        return null; // fall back: the result must equal the deterministic one
      },
    });
    assert.ok(trapped);
    assert.equal(JSON.stringify(result), expected);
    assertStillWorks();
  });

  /**
   * A fresh instance, warmed up with `messages` (so its request block is sized for them), whose
   * heap is then filled up to -sMAXIMUM_MEMORY (1024 MB) except for one free block of `free`
   * bytes. The block is taken first and freed last, so that the hole is one block whatever the
   * allocator: the size-class lists (wasm/size_class_heap.cpp) never split a block for a request
   * of nearly its size, so a hole cut out of a larger block would not stay a hole.
   */
  function nearlyFullEngine(messages, free) {
    if (currentEngine()) assert.throws(debugTrap, CompressError); // a fresh instance
    compress(messages, OPTIONS);
    const raw = currentEngine();
    const hole = raw._malloc(free);
    assert.notEqual(hole, 0);
    for (let size = 64 << 20; size >= 16; size >>= 1) {
      while (raw._malloc(size) !== 0);
    }
    assert.equal(raw.HEAPU8.buffer.byteLength / 2 ** 20, 1024, 'the heap grew to its maximum');
    raw._free(hole);
    return raw;
  }

  test('running out of wasm memory inside the engine is InputTooLarge, then the next call works', () => {
    // About 300 KB of request: with a few hundred KB more the request is written but the engine's
    // working memory does not fit, an allocation inside it fails and the module aborts.
    const big = Array.from({ length: 200 }, (_, i) => ({
      id: `b${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: `${PROSE.repeat(6)}(${i})`,
    }));
    const seen = [];
    for (let free = 256 << 10; free <= 4 << 20; free += 256 << 10) {
      const raw = nearlyFullEngine(big, free);
      let outcome = 'returned';
      try {
        compress(big, OPTIONS);
      } catch (error) {
        assert.ok(error instanceof CompressError, `${error?.name}: ${error?.message}`);
        assert.equal(error.code, 'InputTooLarge', `${free} bytes free: ${error.message}`);
        outcome = /needs more wasm memory than the engine can have/.test(error.message)
          ? 'engine'
          : 'request';
        if (outcome === 'engine') {
          assert.ok(error.cause instanceof WebAssembly.RuntimeError, 'the abort is the cause');
          assert.equal(currentEngine(), undefined, 'the aborted instance was dropped');
        }
      }
      assert.notEqual(currentEngine(), raw, 'idle with a 1 GB heap: dropped either way');
      seen.push(`${free >> 10} KB: ${outcome}`);
      if (outcome === 'engine') break;
    }
    console.log(`out of memory, by bytes free: ${seen.join(', ')}`);
    assert.match(seen.at(-1), /engine$/, 'some hole fits the request but not the engine');
    assertStillWorks();
    const fresh = currentEngine();
    assert.ok(fresh.HEAPU8.buffer.byteLength <= 64 << 20, 'with a fresh, small heap');
  });

  test('only an abort after a failed growth in the same call is exhaustion; other traps are Internal', () => {
    const ABORT = 'Aborted(). Build with -s ASSERTIONS=1 for more info.';
    const cases = [
      // [what the stubbed binding does, expected code]
      ['a growth fails, then an out-of-bounds trap (a bug)', (raw) => {
        raw.memoryExhausted = true; // as the glue's resize import records a failed growth
        raw.estimateTokensUtf16(0xfffffff0, 8);
      }, 'Internal'],
      ['an abort with no failed growth in its call', () => {
        throw new WebAssembly.RuntimeError(ABORT);
      }, 'Internal'],
      ['a growth fails, then the abort of C++ new', (raw) => {
        raw.memoryExhausted = true;
        throw new WebAssembly.RuntimeError(ABORT);
      }, 'InputTooLarge'],
    ];
    for (const [name, binding, code] of cases) {
      compress(conversation(), OPTIONS);
      const raw = currentEngine();
      raw.memoryExhausted = true; // stale: from an earlier call, reset when the next call starts
      raw.compressBytes = () => binding(raw);
      assert.throws(
        () => compress(conversation(), OPTIONS),
        (e) => e instanceof CompressError && e.code === code && e.cause instanceof Error,
        name,
      );
      assert.equal(currentEngine(), undefined, `${name}: the instance was dropped`);
      assertStillWorks();
    }
  });

  test('a request that does not fit a full heap is InputTooLarge; the idle 1 GB instance goes', () => {
    const raw = nearlyFullEngine(conversation(), 0);
    assert.throws(
      () => compress(conversation(), OPTIONS),
      (e) =>
        e instanceof CompressError &&
        e.code === 'InputTooLarge' &&
        /wasm memory/.test(e.message),
    );
    // Nothing trapped, but an instance whose memory grew past 256 MB is not kept once idle.
    assert.equal(currentEngine(), undefined);
    assertStillWorks();
    assert.notEqual(currentEngine(), raw);
    assert.ok(currentEngine().HEAPU8.length <= 64 << 20);
  });
});

// SPDX-License-Identifier: MIT
// Bad input, class by class (issue 5): a typed CompressError with a JSON pointer, the caller's
// objects untouched (deep-frozen and compared with a snapshot), and the next call still works.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress, CompressError, uncompress } from 'cce-wasm';

const prose = 'The upload retries after a short pause and logs every failed attempt. ';

function conversation() {
  return [
    { id: 's', role: 'system', content: 'Be brief.' },
    { id: 'u1', role: 'user', content: prose.repeat(6) },
    { id: 'a1', role: 'assistant', content: prose.repeat(5) },
    { id: 'u2', role: 'user', content: 'And now?' },
  ];
}

function deepFreeze(value, seen = new Set()) {
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze(value[key], seen);
  return Object.freeze(value);
}

// A structural snapshot that survives cycles (JSON.stringify would not).
function snapshot(value, seen = new Map()) {
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return `<cycle ${seen.get(value)}>`;
  seen.set(value, seen.size);
  if (Array.isArray(value)) return value.map((item) => snapshot(item, seen));
  const out = {};
  for (const key of Reflect.ownKeys(value)) {
    Object.defineProperty(out, String(key), {
      value: snapshot(value[key], seen),
      enumerable: true,
    });
  }
  return out;
}

const reference = JSON.stringify(compress(conversation(), { recencyWindow: 1 }));

/** The call fails with `code` (and `path` when given), mutates nothing, and compress still works. */
function rejects(call, { code, path, messages, options }) {
  for (const v of [messages, options]) deepFreeze(v);
  const before = snapshot([messages, options]);
  assert.throws(
    () => call(messages, options),
    (e) => {
      assert.ok(e instanceof CompressError, `expected CompressError, got ${e?.name}: ${e?.message}`);
      assert.equal(e.code, code, e.message);
      if (path !== undefined) assert.equal(e.path, path, e.message);
      return true;
    },
  );
  assert.deepEqual(snapshot([messages, options]), before);
  assert.equal(JSON.stringify(compress(conversation(), { recencyWindow: 1 })), reference);
}

const m = (over) => ({ id: 'x', role: 'user', content: 'hello', ...over });

describe('bad messages get InvalidInput with a pointer (default mode)', () => {
  const cases = [
    ['messages null', null, '/messages'],
    ['messages an object', { 0: m() }, '/messages'],
    ['messages a string', 'hello', '/messages'],
    ['an element null', [m(), null], '/messages/1'],
    ['an element a number', [5], '/messages/0'],
    ['an element a string', ['hi'], '/messages/0'],
    ['a missing id', [{ role: 'user', content: 'x' }], '/messages/0/id'],
    ['a null id', [m({ id: null })], '/messages/0/id'],
    ['a numeric id', [m({ id: 1 })], '/messages/0/id'],
    ['a boolean id', [m({ id: true })], '/messages/0/id'],
    ['an object id', [m({ id: { k: 1 } })], '/messages/0/id'],
    ['a duplicate id', [m({ id: 'a' }), m({ id: 'b' }), m({ id: 'a' })], '/messages/2/id'],
    ['numeric content', [m({ content: 42 })], '/messages/0/content'],
    ['a bare object as content', [m({ content: { text: 'hi' } })], '/messages/0/content'],
    ['boolean content', [m({ content: true })], '/messages/0/content'],
    ['a function as content', [m({ content: () => 'hi' })], '/messages/0/content'],
    ['a content part that is a string', [m({ content: [{ type: 'text', text: 'a' }, 'b'] })], '/messages/0/content/1'],
    ['a content part without a type', [m({ content: [{ text: 'a' }] })], '/messages/0/content/0'],
    ['null content without tool_calls', [m({ role: 'assistant', content: null })], '/messages/0/content'],
    ['missing content without tool_calls', [{ id: 'x', role: 'user' }], '/messages/0/content'],
  ];
  for (const [name, messages, path] of cases) {
    test(name, () => rejects(compress, { code: 'InvalidInput', path, messages, options: {} }));
  }

  test('the same errors reject (synchronously) when a summarizer makes compress async', () => {
    rejects((msgs, opts) => compress(msgs, opts), {
      code: 'InvalidInput',
      path: '/messages/1/id',
      messages: [m({ id: 'a' }), m({ id: 'a' })],
      options: { summarizer: async (t) => t.slice(0, 10) },
    });
  });

  test('a token counter never sees a request that fails validation', () => {
    const seen = [];
    rejects(compress, {
      code: 'InvalidInput',
      path: '/messages/0/content',
      messages: [m({ content: 7 })],
      options: { tokenCounter: (msg) => (seen.push(msg), 1) },
    });
    assert.deepEqual(seen, []);
  });
});

describe('cce-1.0 keeps what the reference accepts', () => {
  test('numeric and repeated ids, numeric content and null content pass through', () => {
    const messages = deepFreeze([
      { id: 1, role: 'user', content: 7 },
      { id: 1, role: 'assistant', content: null },
      { id: 'n', role: 'user', content: { text: 'x' } },
    ]);
    const result = compress(messages, { compat: 'cce-1.0' });
    assert.equal(result.messages.length, 3);
    for (let i = 0; i < 3; i++) assert.equal(result.messages[i], messages[i]);
  });

  test("the reference's own TypeErrors stay errors", () => {
    rejects(compress, {
      code: 'InvalidInput',
      path: '/messages/0/id',
      messages: [{ role: 'user', content: 'x' }],
      options: { compat: 'cce-1.0' },
    });
  });
});

describe('bad options get InvalidInput with a pointer', () => {
  const cases = [
    ['a negative recencyWindow', { recencyWindow: -1 }, '/options/recencyWindow'],
    ['a NaN recencyWindow', { recencyWindow: NaN }, '/options/recencyWindow'],
    ['an infinite tokenBudget', { tokenBudget: Infinity }, '/options/tokenBudget'],
    ['a negative tokenBudget', { tokenBudget: -5 }, '/options/tokenBudget'],
    ['a negative minRecencyWindow', { tokenBudget: 100, minRecencyWindow: -2 }, '/options/minRecencyWindow'],
    ['a fuzzyThreshold above 1', { fuzzyDedup: true, fuzzyThreshold: 1.5 }, '/options/fuzzyThreshold'],
    ['a negative fuzzyThreshold', { fuzzyThreshold: -0.1 }, '/options/fuzzyThreshold'],
    ['a string recencyWindow', { recencyWindow: '4' }, '/options/recencyWindow'],
    ['preserve not an array', { preserve: 'system' }, '/options/preserve'],
    ['preserve with a number', { preserve: ['system', 3] }, '/options/preserve/1'],
    ['a negative maxInputBytes', { maxInputBytes: -1 }, '/options/maxInputBytes'],
    ['a tokenCounter that is not a function', { tokenCounter: 5 }, '/options/tokenCounter'],
    ['a negative summarizerTimeoutMs', { summarizerTimeoutMs: -1 }, '/options/summarizerTimeoutMs'],
  ];
  for (const [name, options, path] of cases) {
    test(name, () =>
      rejects(compress, { code: 'InvalidInput', path, messages: conversation(), options }),
    );
  }
});

describe('structures the engine does not read are data, whatever their shape', () => {
  test('cyclic metadata is kept by reference, and the round trip returns the same objects', () => {
    const messages = conversation();
    const meta = { note: 'cyclic' };
    meta.self = meta;
    messages[1].metadata = meta;
    messages[2].parent = messages[2]; // an unknown field pointing at its own message
    deepFreeze(messages);
    const result = compress(messages, { recencyWindow: 1 });
    const compressed = result.messages[1];
    assert.notEqual(compressed, messages[1]); // summarised
    assert.equal(compressed.metadata.self, meta);
    const restored = uncompress(result.messages, result.verbatim).messages;
    for (let i = 0; i < messages.length; i++) assert.equal(restored[i], messages[i]);
  });

  test('a cyclic content part is InvalidInput in the default mode (it must be sized), data in cce-1.0', () => {
    const part = { type: 'tool_result', content: [] };
    part.content.push(part);
    const messages = [m({ id: 'a', content: [{ type: 'text', text: 'hi' }, part] })];
    rejects(compress, { code: 'InvalidInput', path: '/messages/0/content/1', messages, options: {} });
    const result = compress(messages, { compat: 'cce-1.0' });
    assert.equal(result.messages[0], messages[0]);
  });

  test('metadata nested 100,000 levels deep neither overflows the stack nor is lost', () => {
    let deep = { leaf: true };
    for (let i = 0; i < 100_000; i++) deep = { k: deep };
    const messages = conversation();
    messages[1].metadata = { deep };
    const result = compress(messages, { recencyWindow: 1 });
    assert.equal(result.messages[1].metadata.deep, deep);
    const restored = uncompress(result.messages, result.verbatim).messages;
    assert.equal(restored[1], messages[1]);
  });

  test('__proto__, constructor and prototype keys stay data; nothing is polluted', () => {
    const messages = JSON.parse(
      JSON.stringify(conversation()).replace(
        '"id":"u1"',
        '"id":"__proto__","metadata":{"__proto__":{"polluted":1},"constructor":{"prototype":' +
          '{"polluted":2}},"prototype":3}',
      ),
    );
    deepFreeze(messages);
    const result = compress(messages, { recencyWindow: 1 });
    assert.equal({}.polluted, undefined);
    assert.equal(Object.prototype.polluted, undefined);
    const compressed = result.messages[1];
    assert.ok(Object.hasOwn(compressed.metadata, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(compressed.metadata, '__proto__').value, {
      polluted: 1,
    });
    assert.equal(Object.getPrototypeOf(compressed.metadata), Object.prototype);
    // The id "__proto__" is an own key of the verbatim map, not its prototype.
    assert.ok(Object.hasOwn(result.verbatim, '__proto__'));
    assert.equal(Object.getPrototypeOf(result.verbatim), Object.prototype);
    const restored = uncompress(result.messages, result.verbatim).messages;
    assert.equal(JSON.stringify(restored), JSON.stringify(messages));
  });
});

describe('size limits: rejected up front with InputTooLarge', () => {
  test('a request over options.maxInputBytes', () => {
    rejects(compress, {
      code: 'InputTooLarge',
      messages: conversation(),
      options: { maxInputBytes: 200 },
    });
  });

  test('the limit counts bytes of the encoded request (multi-byte text is larger)', () => {
    const text = 'é'.repeat(150); // 150 UTF-16 units, 300 UTF-8 bytes
    const messages = [m({ content: text })];
    assert.doesNotThrow(() => compress(messages, { maxInputBytes: 0 }));
    rejects(compress, { code: 'InputTooLarge', messages, options: { maxInputBytes: 250 } });
  });

  test('a fractional limit is its whole part, and the messages name that many bytes', () => {
    // Both checks: the contents alone (in JS) and the encoded request (in the engine).
    const overContents = [m({ content: 'x'.repeat(300) })];
    assert.throws(
      () => compress(overContents, { maxInputBytes: 250.9 }),
      (e) => e.code === 'InputTooLarge' && / limit of 250 bytes /.test(e.message),
    );
    const overRequest = [m({ content: 'é'.repeat(150) })]; // 150 units, 300 bytes
    assert.throws(
      () => compress(overRequest, { maxInputBytes: 250.9 }),
      (e) => e.code === 'InputTooLarge' && / over the limit of 250 /.test(e.message),
    );
  });

  test('the default limit is 64 MiB, and maxInputBytes: 0 disables it', () => {
    const huge = [m({ content: 'x'.repeat(64 * 1024 * 1024 + 1) })];
    rejects(compress, { code: 'InputTooLarge', messages: huge, options: {} });
    const result = compress(huge, { maxInputBytes: 0, recencyWindow: 1 });
    assert.equal(result.messages[0], huge[0]);
  });
});

describe('callbacks that misbehave', () => {
  for (const [name, counter] of [
    ['throws', () => { throw new Error('no tokenizer'); }],
    ['returns NaN', () => NaN],
    ['returns Infinity', () => Infinity],
    ['returns a negative count', () => -3],
    ['returns a string', () => '12'],
  ]) {
    test(`a tokenCounter that ${name} is CallbackFailed`, () =>
      rejects(compress, {
        code: 'CallbackFailed',
        path: '/options/tokenCounter',
        messages: conversation(),
        options: { tokenCounter: counter, tokenBudget: 50 },
      }));
  }

  // Only the engine's timer can reject a promise that never settles, so the code is the proof;
  // the runner's timeout (not a clock assertion) turns a hang into a failure.
  test('a summarizer that never settles is a Timeout with summarizerTimeoutMs', { timeout: 60_000 }, async () => {
    const messages = deepFreeze(conversation());
    await assert.rejects(
      compress(messages, { recencyWindow: 1, summarizer: () => new Promise(() => {}), summarizerTimeoutMs: 50 }),
      (e) => e instanceof CompressError && e.code === 'Timeout' && e.path === '/options/summarizerTimeoutMs',
    );
    assert.equal(JSON.stringify(compress(conversation(), { recencyWindow: 1 })), reference);
  });

  test('a summarizer that throws, rejects or answers a non-string falls back, every time', async () => {
    const deterministic = JSON.stringify(compress(conversation(), { recencyWindow: 1 }));
    for (const summarizer of [
      () => { throw new Error('down'); },
      async () => { throw new Error('down'); },
      () => Promise.reject(new Error('down')),
      () => 42,
      async () => ({ text: 'x' }),
      () => null,
    ]) {
      const result = await compress(deepFreeze(conversation()), {
        recencyWindow: 1,
        summarizer,
        summarizerTimeoutMs: 1000,
      });
      assert.equal(JSON.stringify(result), deterministic);
    }
  });
});

// SPDX-License-Identifier: MIT
// CompressError: the code vocabulary, the reference's TypeError texts, survival after errors and traps.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress, CompressError, ERROR_CODES, uncompress } from 'cce-wasm';
// Internal helpers of the same module instance the package entry uses (not part of the API).
import { debugTrap, engineVersion } from '../../dist/transport.js';

const ok = [{ id: '1', role: 'user', content: 'hello' }];

function throwsCompressError(fn, code, message, path) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof CompressError, `expected CompressError, got ${e?.name}: ${e?.message}`);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'CompressError');
    assert.equal(e.code, code);
    if (message !== undefined) assert.equal(e.message, message);
    if (path !== undefined) assert.equal(e.path, path);
    return true;
  });
}

describe('error vocabulary', () => {
  // ERROR_CODES against the engine's ErrorCode names: tests/answer_writer_test.cpp.
  test('every code an error carries is one of ERROR_CODES', () => {
    const seen = new Set();
    for (const bad of [() => compress('nope'), () => uncompress(ok, 42)]) {
      try {
        bad();
      } catch (e) {
        seen.add(e.code);
      }
    }
    assert.ok(seen.size > 0);
    for (const code of seen) assert.ok(ERROR_CODES.includes(code), code);
  });

  test('the engine reports the package version', () => {
    assert.match(engineVersion(), /^\d+\.\d+\.\d+/);
  });
});

describe('reference TypeError texts (spec §1.3, §11)', () => {
  const cases = [
    ['messages not an array', () => compress('nope'), 'compress(): messages must be an array'],
    [
      'an object instead of an array',
      () => compress({ 0: ok[0] }),
      'compress(): messages must be an array',
    ],
    ['a null element', () => compress([ok[0], null]), 'compress(): messages[1] must be an object'],
    [
      'an undefined element',
      () => compress([ok[0], undefined]),
      'compress(): messages[1] must be an object',
    ],
    ['a string element', () => compress(['hello']), 'compress(): messages[0] must be an object'],
    [
      'a number element',
      () => compress([ok[0], ok[0], 7]),
      'compress(): messages[2] must be an object',
    ],
    ['a function element', () => compress([() => 1]), 'compress(): messages[0] must be an object'],
    [
      'a missing id',
      () => compress([{ content: 'x' }]),
      'compress(): messages[0] is missing required field "id"',
    ],
    [
      'a null id',
      () => compress([ok[0], { id: null }]),
      'compress(): messages[1] is missing required field "id"',
    ],
    [
      'an array element (arrays pass the object check)',
      () => compress([[]]),
      'compress(): messages[0] is missing required field "id"',
    ],
    [
      'uncompress messages not an array',
      () => uncompress('x', {}),
      'uncompress(): messages must be an array',
    ],
    [
      'a null store',
      () => uncompress([], null),
      'uncompress(): store must be a VerbatimMap or lookup function',
    ],
    [
      'an undefined store',
      () => uncompress([], undefined),
      'uncompress(): store must be a VerbatimMap or lookup function',
    ],
    [
      'a string store',
      () => uncompress([], 'store'),
      'uncompress(): store must be a VerbatimMap or lookup function',
    ],
  ];
  for (const [name, fn, message] of cases) {
    test(`rejects ${name} with InvalidInput and the reference text`, () => {
      throwsCompressError(fn, 'InvalidInput', message);
    });
  }

  test('points at the offending message with a JSON pointer', () => {
    throwsCompressError(
      () => compress([ok[0], ok[0], null]),
      'InvalidInput',
      undefined,
      '/messages/2',
    );
  });

  test('throws synchronously even when a summarizer makes compress async', () => {
    throwsCompressError(
      () => compress([null], { summarizer: async (t) => t }),
      'InvalidInput',
      'compress(): messages[0] must be an object',
    );
  });
});

describe('what JSON cannot carry', () => {
  for (const value of [NaN, Infinity, -Infinity]) {
    test(`rejects a non-finite numeric option (${value})`, () => {
      throwsCompressError(
        () => compress(ok, { tokenBudget: value }),
        'InvalidInput',
        undefined,
        '/options/tokenBudget',
      );
      throwsCompressError(
        () => compress(ok, { recencyWindow: value }),
        'InvalidInput',
        undefined,
        '/options/recencyWindow',
      );
    });
  }

  test('rejects a tokenCounter that is not a function', () => {
    throwsCompressError(
      () => compress(ok, { tokenCounter: 5 }),
      'InvalidInput',
      undefined,
      '/options/tokenCounter',
    );
  });

  test('rejects a tokenCounter result that is not a finite number', () => {
    for (const bad of [NaN, Infinity, -Infinity, '3', undefined, null, {}]) {
      throwsCompressError(
        () => compress(ok, { tokenCounter: () => bad }),
        'CallbackFailed',
        undefined,
        '/options/tokenCounter',
      );
    }
  });

  test('rejects a negative count in the default mode; cce-1.0 does the arithmetic', () => {
    throwsCompressError(
      () => compress(ok, { tokenCounter: () => -1 }),
      'CallbackFailed',
      undefined,
      '/options/tokenCounter',
    );
    assert.equal(compress(ok, { tokenCounter: () => -1, compat: 'cce-1.0' }).messages.length, ok.length);
  });
});

describe('survival', () => {
  test('keeps working after every kind of error', () => {
    const before = JSON.stringify(compress(ok, { recencyWindow: 0 }));
    for (const bad of [
      () => compress(null),
      () => compress([null]),
      () => uncompress([], 1),
      () => compress(ok, { tokenBudget: NaN }),
    ]) {
      assert.throws(bad, CompressError);
      assert.equal(JSON.stringify(compress(ok, { recencyWindow: 0 })), before);
    }
  });

  test('re-creates the instance after a wasm trap', () => {
    const input = [
      {
        id: '1',
        role: 'user',
        content: `${'A long sentence that can be summarised well. '.repeat(8)}`,
      },
    ];
    const before = JSON.stringify(compress(input, { recencyWindow: 0 }));
    throwsCompressError(() => debugTrap(), 'Internal');
    // The next call transparently instantiates a fresh module from the compiled one.
    assert.equal(JSON.stringify(compress(input, { recencyWindow: 0 })), before);
    throwsCompressError(() => debugTrap(), 'Internal');
    throwsCompressError(() => debugTrap(), 'Internal');
    assert.equal(JSON.stringify(compress(input, { recencyWindow: 0 })), before);
    assert.deepEqual(uncompress([], {}).messages, []);
  });

  test('the trap error carries the RuntimeError as its cause', () => {
    try {
      debugTrap();
      assert.fail('no trap');
    } catch (e) {
      assert.ok(e.cause instanceof WebAssembly.RuntimeError);
      assert.match(e.message, /re-created/);
    }
  });

  test('exceptions of user callbacks arrive as CallbackFailed with the original as cause', () => {
    const boom = new RangeError('counter failed');
    assert.throws(
      () =>
        compress(ok, {
          tokenCounter: () => {
            throw boom;
          },
        }),
      (e) =>
        e instanceof CompressError &&
        e.code === 'CallbackFailed' &&
        e.cause === boom &&
        e.path === '/options/tokenCounter' &&
        /counter failed/.test(e.message),
    );
    const lookupError = new Error('lookup failed');
    const m = { id: 'm', content: '[summary]', metadata: { _cce_original: { ids: ['x'] } } };
    assert.throws(
      () =>
        uncompress([m], () => {
          throw lookupError;
        }),
      (e) => e instanceof CompressError && e.code === 'CallbackFailed' && e.cause === lookupError,
    );
    assert.equal(compress(ok).messages[0], ok[0]);
  });
});

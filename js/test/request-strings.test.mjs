// SPDX-License-Identifier: MIT
// The two string encodings of a compress request (docs/boundary.md "Bytes requests"): WTF-8,
// which every runtime can write, and UTF-16, which the Node entry writes with Buffer. Both must
// give the same result, the same errors and the same maxInputBytes verdicts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress, CompressError } from 'cce-wasm';
import {
  COMPRESS_MAGIC,
  COMPRESS_UTF16_MAGIC,
  Encoder,
  requestUtf16Writer,
  useUtf16Strings,
} from '../../dist/transport.js';

/** Runs `fn` with requests in WTF-8 (no UTF-16 writer), then puts the Node entry's writer back. */
function withUtf8Requests(fn) {
  const writer = requestUtf16Writer();
  useUtf16Strings(undefined);
  try {
    return fn();
  } finally {
    useUtf16Strings(writer);
  }
}

const outcome = (fn) => {
  try {
    return { result: JSON.stringify(fn()) };
  } catch (error) {
    assert.ok(error instanceof CompressError);
    return { error: [error.code, error.message, error.path] };
  }
};

const prose =
  'The deployment pipeline retries each failed upload after a short pause and records every ' +
  'attempt in the audit log, so operators can see what happened and when it happened. ';
// Strings on both sides of the encoder's 32-unit hand-copy limit, odd and even lengths, 2-, 3- and
// 4-byte UTF-8, lone surrogates, a leading U+FEFF.
const messages = [
  { id: '\ufeffid', role: 'system', content: 'short \u00e9' },
  { id: 'u1', role: 'user', content: `${prose.repeat(3)}caf\u00e9 \u4e2d\u6587 \ud83d\ude00.` },
  { id: 'a1', role: 'assistant', content: `${prose.repeat(4)}lone \ud800 and \udc00 end` },
  { id: '7', role: 'user', content: 'x'.repeat(33) },
  { id: 'a2', role: 'assistant', content: [{ type: 'text', text: `${prose.repeat(3)}\ud83d` }] },
  { id: 'u2', role: 'user', content: 'thanks' },
];

describe('compress requests in UTF-16 and in WTF-8', () => {
  test('the Node entry sends UTF-16', () => {
    assert.equal(typeof requestUtf16Writer(), 'function');
  });

  test('give the same results, modes and options alike', () => {
    for (const options of [{}, { recencyWindow: 1 }, { compat: 'cce-1.0', recencyWindow: 0 }]) {
      const utf16 = outcome(() => compress(messages, options));
      const utf8 = withUtf8Requests(() => outcome(() => compress(messages, options)));
      assert.deepEqual(utf16, utf8, JSON.stringify(options));
      assert.ok(utf16.result, JSON.stringify(utf16.error));
    }
  });

  test('give the same errors and the same maxInputBytes verdicts around the UTF-8 size', () => {
    const bad = [...messages.slice(0, 2), { id: 'x', role: 'user', content: 42 }];
    assert.deepEqual(
      outcome(() => compress(bad)),
      withUtf8Requests(() => outcome(() => compress(bad))),
    );
    // The smallest limit each encoding accepts is the same: the UTF-8 size of the request.
    const smallest = (run) => {
      let low = 0;
      let high = 1 << 16;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (run(() => outcome(() => compress(messages, { maxInputBytes: mid }))).error) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low;
    };
    const viaUtf16 = smallest((fn) => fn());
    const viaUtf8 = smallest(withUtf8Requests);
    assert.equal(viaUtf16, viaUtf8);
    const over = { maxInputBytes: viaUtf16 - 1 };
    const message16 = outcome(() => compress(messages, over)).error;
    const message8 = withUtf8Requests(() => outcome(() => compress(messages, over))).error;
    assert.deepEqual(message16, message8);
    assert.match(message16[1], new RegExp(`the request is ${viaUtf16} bytes`));
  });

  test('are laid out as the engine reads them', () => {
    const calls = [];
    const out = new Encoder().reset((bytes, at, text) => {
      calls.push(text);
      for (let i = 0; i < text.length; i++) {
        bytes[at + 2 * i] = text.charCodeAt(i) & 0xff;
        bytes[at + 2 * i + 1] = text.charCodeAt(i) >> 8;
      }
    });
    out.word(COMPRESS_UTF16_MAGIC);
    out.string('abc'); // by hand, odd: two bytes of padding
    out.string('\ud800'.repeat(33)); // through the writer
    const words = new Uint32Array(out.written.slice().buffer);
    assert.equal(words[0], COMPRESS_UTF16_MAGIC);
    assert.equal(words[1], 3);
    assert.deepEqual([...new Uint16Array(words.buffer, 8, 4)], [0x61, 0x62, 0x63, 0]);
    assert.equal(words[4], 33);
    assert.equal(new Uint16Array(words.buffer, 20, 33).every((u) => u === 0xd800), true);
    assert.equal(out.written.length, 20 + 68);
    assert.deepEqual(calls, ['\ud800'.repeat(33)]);
    // Without a writer the same encoder writes WTF-8 again.
    const utf8 = new Encoder().reset();
    utf8.word(COMPRESS_MAGIC);
    utf8.string('abc');
    assert.deepEqual([...utf8.written], [0x43, 0x43, 0x45, 0x31, 3, 0, 0, 0, 0x61, 0x62, 0x63, 0]);
  });
});

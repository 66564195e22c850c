// SPDX-License-Identifier: MIT
// The JS reader of the engine's binary answers (docs/boundary.md "Bytes answers"): what it builds
// is what JSON.parse would build, strings unit for unit, and anything malformed is an error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress, CompressError } from 'cce-wasm';
import {
  ANSWER_KEYS,
  AnswerTag,
  POOL_HAS_LONE_SURROGATE,
  activePoolDecoder,
  portablePoolDecoder,
  readAnswer,
} from '../../dist/transport.js';

/** Writes answers the way src/answer_writer.cpp does: a UTF-16 pool, then the value tree. */
class Writer {
  pool = '';
  tree = [];
  flags = undefined; // computed from the pool unless set
  word(w) {
    this.tree.push(w >>> 0);
    return this;
  }
  number(d) {
    const w = new Uint32Array(new Float64Array([d]).buffer);
    return this.word(AnswerTag.Number).word(w[0]).word(w[1]);
  }
  string(s) {
    this.word(AnswerTag.String).word(this.pool.length).word(s.length);
    this.pool += s;
    return this;
  }
  key(name) {
    const index = ANSWER_KEYS.indexOf(name);
    if (index < 0) return this.string(name);
    return this.word(AnswerTag.Key).word(index);
  }
  bytes() {
    const flags = this.flags ?? (this.pool.isWellFormed() ? 0 : POOL_HAS_LONE_SURROGATE);
    const poolWords = Math.ceil(this.pool.length / 2);
    const out = new Uint32Array(2 + poolWords + this.tree.length);
    out[0] = this.pool.length;
    out[1] = flags;
    const units = new Uint16Array(out.buffer, 8, poolWords * 2);
    for (let i = 0; i < this.pool.length; i++) units[i] = this.pool.charCodeAt(i);
    out.set(this.tree, 2 + poolWords);
    return new Uint8Array(out.buffer);
  }
}

const read = (bytes, decoder) => readAnswer(bytes.buffer, bytes.byteOffset, bytes.length, decoder);

// Every way a pool is decoded: the Node entry's (Buffer's UTF-16), the one every runtime has
// (TextDecoder when the pool is well-formed), and unit by unit (a lone surrogate, or no
// UTF-16 TextDecoder in the runtime).
const DECODERS = [
  ['by the Node entry (Buffer)', activePoolDecoder()],
  ['by TextDecoder', portablePoolDecoder],
  ['unit by unit', (units) => portablePoolDecoder(units, false)],
];

test('the Node entry installs its own pool decoder', () => {
  assert.notEqual(activePoolDecoder(), portablePoolDecoder);
});

for (const [how, decoder] of DECODERS) {
  describe(`binary answers, pool decoded ${how}`, () => {
    test('decode to what JSON.parse gives for the same answer', () => {
      const w = new Writer();
      w.word(AnswerTag.Object).word(4);
      w.key('messages').word(AnswerTag.Array).word(5);
      w.word(AnswerTag.Index).word(4294967295);
      w.number(-0.1);
      w.word(AnswerTag.Null).word(AnswerTag.True).word(AnswerTag.False);
      w.key('not in the vocabulary').word(AnswerTag.Object).word(0);
      w.key('text').string('caf\u00e9 \ud83d\ude00 "quoted"');
      w.key('s').string('');
      assert.deepEqual(read(w.bytes(), decoder), {
        messages: [4294967295, -0.1, null, true, false],
        'not in the vocabulary': {},
        text: 'caf\u00e9 \ud83d\ude00 "quoted"',
        s: '',
      });
    });

    test('keep lone surrogates and a leading U+FEFF, in a short pool and a long one', () => {
      const lone = '\udc00 lone low, then a lone high \ud800';
      const long = `${lone} `.repeat(700); // past fromCharCode's slice of 8192 units
      const bom = `\ufeff${'byte order mark kept '.repeat(3)}`;
      for (const strings of [[lone], [long, bom], [bom], ['\ufeff'], [bom, 'x'.repeat(20000)]]) {
        const w = new Writer().word(AnswerTag.Array).word(strings.length);
        for (const s of strings) w.string(s);
        const decoded = read(w.bytes(), decoder);
        assert.equal(decoded.length, strings.length);
        strings.forEach((s, i) => assert.ok(decoded[i] === s));
      }
    });

    test('split a pair that spans two strings of a well-formed pool back into its halves', () => {
      const w = new Writer().word(AnswerTag.Array).word(2).string('ends high \ud83d').string('\ude00 starts low');
      assert.equal(w.pool.isWellFormed(), true); // flagged well-formed: TextDecoder may take it
      assert.deepEqual(read(w.bytes(), decoder), ['ends high \ud83d', '\ude00 starts low']);
    });

  });
}

describe('binary answers', () => {
  test('make "__proto__" an own property, as JSON.parse does', () => {
    const w = new Writer().word(AnswerTag.Object).word(1).key('__proto__').word(AnswerTag.Index).word(7);
    const decoded = read(w.bytes());
    assert.deepEqual(Object.keys(decoded), ['__proto__']);
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
    assert.deepEqual(decoded, JSON.parse('{"__proto__":7}'));
  });

  test('read an answer that does not start on a word boundary', () => {
    const answer = new Writer().string('unaligned').bytes();
    const shifted = new Uint8Array(answer.length + 1);
    shifted.set(answer, 1);
    assert.equal(readAnswer(shifted.buffer, 1, answer.length), 'unaligned');
  });

  test('reject malformed answers with a typed error', () => {
    const good = new Writer().word(AnswerTag.Array).word(2).string('ab').word(AnswerTag.Null).bytes();
    assert.deepEqual(read(good), ['ab', null]);
    const badFlags = new Writer().word(AnswerTag.Null);
    badFlags.flags = 2;
    const cases = {
      truncated: good.subarray(0, good.length - 4),
      'trailing bytes': new Uint8Array([...good, 0, 0, 0, 0]),
      'unknown tag': new Writer().word(6).bytes(),
      'a key outside an object': new Writer().word(AnswerTag.Key).word(0).bytes(),
      'unknown key': new Writer().word(AnswerTag.Object).word(1).word(AnswerTag.Key).word(ANSWER_KEYS.length).word(AnswerTag.Null).bytes(),
      'count past the end': new Writer().word(AnswerTag.Array).word(1000).bytes(),
      'string outside the pool': new Writer().word(AnswerTag.String).word(0).word(1).bytes(),
      'pool past the end': new Uint8Array(new Uint32Array([1000, 0, AnswerTag.Null]).buffer),
      'unknown flags': badFlags.bytes(),
      'number past the end': new Writer().word(AnswerTag.Number).word(0).bytes(),
      'key not a string': new Writer().word(AnswerTag.Object).word(1).word(AnswerTag.Null).word(AnswerTag.Null).bytes(),
      empty: new Uint8Array(0),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      assert.throws(
        () => read(bytes),
        (error) => error instanceof CompressError && error.code === 'Internal' && /malformed/.test(error.message),
        name,
      );
    }
  });

  test('carry ids and contents through compress unit for unit', () => {
    // Verbatim keys are the ids, so a long id with a leading U+FEFF and a lone surrogate crosses
    // as an answer string both ways.
    const bomId = `\ufeff${'an id that is long enough for the decoder '.repeat(2)}`;
    const loneId = `lone \ud800 ${'x'.repeat(40)}`;
    const prose =
      'The deployment pipeline retries each failed upload after a short pause and records every ' +
      'attempt in the audit log, so operators can see what happened and when it happened. ';
    const messages = [
      { id: bomId, role: 'user', content: prose.repeat(4) },
      { id: loneId, role: 'assistant', content: `${prose.repeat(4)}\udc00` },
      { id: 'last', role: 'user', content: 'thanks' },
    ];
    const result = compress(messages, { recencyWindow: 1 });
    assert.ok(Object.keys(result.verbatim).includes(bomId));
    assert.ok(Object.keys(result.verbatim).includes(loneId));
    assert.equal(result.messages[0].metadata._cce_original.ids[0], bomId);
  });
});

// SPDX-License-Identifier: MIT
// The raw embind surface of dist/cce.mjs equals the declared list, and its bytes entry points work.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';

import createCceModule from '../../dist/cce.mjs';
import {
  COMPRESS_MAGIC,
  COMPRESS_UTF16_MAGIC,
  Encoder,
  RAW_FUNCTIONS,
  UNCOMPRESS_MAGIC,
  answerText,
  readAnswer,
} from '../../dist/transport.js';

// Both builds of the compress module load through the one glue file.
const builds = [
  ['cce.wasm', 'size'],
  ['cce-fast.wasm', 'speed'],
];
let wasm;

async function rawModule() {
  const arg = {
    instantiateWasm(imports, receive) {
      const instance = new WebAssembly.Instance(wasm, imports);
      receive(instance, wasm);
      return instance.exports;
    },
  };
  await createCceModule(arg);
  return arg;
}

/** Copies both buffers into the heap and calls `fn` (compressBytes or uncompressBytes). */
function call(raw, fn, request, extra = new Uint8Array(0)) {
  const pointer = raw._malloc(request.length);
  raw.HEAPU8.set(request, pointer);
  const extraPointer = extra.length ? raw._malloc(extra.length) : 0;
  if (extraPointer) raw.HEAPU8.set(extra, extraPointer);
  const view = raw[fn](pointer, request.length, extraPointer, extra.length) >>> 2;
  const [start, length] = raw.HEAPU32.subarray(view, view + 2);
  const answer = readAnswer(raw.HEAPU8.buffer, start, length);
  raw._free(pointer);
  if (extraPointer) raw._free(extraPointer);
  return answer;
}

function encode(write) {
  const out = new Encoder();
  write(out);
  return out.written.slice();
}

const prose =
  'The deployment pipeline retries each failed upload after a short pause and records every ' +
  'attempt in the audit log, so operators can see what happened. ';

for (const [file, build] of builds) {
  describe(`raw module (${file})`, () => {
    before(() => {
      wasm = new WebAssembly.Module(readFileSync(new URL(`../../dist/${file}`, import.meta.url)));
    });

    test(`instantiates with dist/cce.mjs and reports the ${build} build`, async () => {
      const raw = await rawModule();
      assert.equal(answerText(raw, raw.build()), build);
    });

    // Both builds have the project's own allocator (wasm/size_class_heap.cpp): through the
    // exported malloc and free, blocks of mixed sizes (each class, splits of freed large blocks,
    // returns to the heap's top, growth of the memory) never overlap and keep their bytes, and a
    // freed block's memory is used again.
    test('malloc and free hand out disjoint blocks that keep their bytes', async () => {
      const raw = await rawModule();
      let seed = 7;
      const random = (n) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const sizes = [1, 7, 8, 9, 16, 100, 128, 129, 1000, 4096, 65536, 300000, 2_000_000];
      const live = new Map(); // pointer -> [length, fill byte]
      const check = () => {
        const heap = raw.HEAPU8; // re-read: malloc may have grown the memory
        const spans = [...live].sort((a, b) => a[0] - b[0]);
        for (let i = 0; i < spans.length; i++) {
          const [at, [length, fill]] = spans[i];
          if (i > 0) assert.ok(spans[i - 1][0] + spans[i - 1][1][0] <= at, 'blocks overlap');
          for (const k of [0, length >> 1, length - 1]) assert.equal(heap[at + k], fill);
        }
      };
      for (let step = 0; step < 3000; step++) {
        if (live.size > 0 && random(3) === 0) {
          const pointers = [...live.keys()];
          const pointer = pointers[random(pointers.length)];
          raw._free(pointer);
          live.delete(pointer);
        } else {
          const length = sizes[random(sizes.length)] + random(64);
          const pointer = raw._malloc(length);
          assert.ok(pointer > 0 && pointer % 8 === 0, 'an 8-byte aligned block');
          const fill = 1 + random(255);
          raw.HEAPU8.fill(fill, pointer, pointer + length);
          live.set(pointer, [length, fill]);
        }
        if (step % 100 === 0) check();
      }
      check();
      for (const pointer of live.keys()) raw._free(pointer);
      // Everything freed: the same requests again fit in memory already there.
      const before = raw.HEAPU8.length;
      const again = sizes.map((n) => raw._malloc(n));
      assert.ok(again.every((p) => p > 0));
      assert.equal(raw.HEAPU8.length, before, 'freed memory is used again');
      again.forEach((p) => raw._free(p));
    });

    test('binds exactly the declared functions', async () => {
      const raw = await rawModule();
      // embind marks each bound function with its argument count (`argCount`, which Closure renames
      // but keeps consistent): find that marker on one binding, then every function carrying it.
      const standard = new Set(['length', 'name', 'prototype', 'arguments', 'caller']);
      const marker = Object.getOwnPropertyNames(raw.compressBytes).find(
        (p) => !standard.has(p) && typeof raw.compressBytes[p] === 'number',
      );
      assert.ok(marker, 'embind marks its bindings with their argument count');
      const bound = Object.keys(raw).filter(
        (k) => typeof raw[k] === 'function' && Object.hasOwn(raw[k], marker),
      );
      assert.deepEqual(bound.sort(), [...RAW_FUNCTIONS].sort());
      assert.equal(typeof raw._malloc, 'function');
      assert.equal(typeof raw._free, 'function');
      assert.ok(raw.HEAPU8 instanceof Uint8Array);
    });

    test('compresses a bytes request and keeps a lone surrogate of an id', async () => {
      const raw = await rawModule();
      const request = encode((out) => {
        out.word(COMPRESS_MAGIC);
        out.word(2);
        for (const [id, role, times] of [
          ['a\ud800', 'user', 4],
          ['b', 'assistant', 5],
        ]) {
          out.word(2); // content is a string
          out.scalar(id);
          out.scalar(role);
          out.string(prose.repeat(times));
        }
        out.word(2);
        out.string('recencyWindow');
        out.value(0);
        out.string('compat');
        out.value('cce-1.0');
      });
      const envelope = call(raw, 'compressBytes', request);
      assert.equal(envelope.ok, true);
      const { messages, verbatim } = envelope.plan;
      assert.equal(messages.length, 2);
      assert.deepEqual(messages[0].o.src, [0]);
      assert.match(messages[0].c, /^\[summary/);
      assert.deepEqual(
        verbatim.map(([key]) => key),
        ['a\ud800', 'b'],
      );
    });

    test(`fuzzy dedup ${build === 'size' ? 'takes' : 'can take'} lower-cased texts from the request's end`, async () => {
      // Greek lines equal only once lower-cased with Final_Sigma (ΟΔΟΣ -> οδος). The size build
      // has no case tables: without the texts the JS layer appends, it cannot see the duplicate.
      const upper = Array.from({ length: 16 }, (_, k) => `ΟΔΟΣ ${k} ΚΑΙ ΣΤΟΝ`).join('\n');
      const lower = upper.toLowerCase();
      assert.ok(lower.includes('οδος 0') && upper.length >= 200);
      const request = (withLowered) =>
        encode((out) => {
          out.word(COMPRESS_MAGIC);
          out.word(2);
          for (const [id, content] of [['a', upper], ['b', lower]]) {
            out.word(2); // content is a string
            out.scalar(id);
            out.scalar('user');
            out.string(content);
          }
          out.word(3);
          out.string('fuzzyDedup');
          out.value(true);
          out.string('recencyWindow');
          out.value(0);
          out.string('compat');
          out.value('cce-1.0');
          if (withLowered) {
            out.word(2);
            out.word(0);
            out.string(upper.toLowerCase());
            out.word(1);
            out.string(lower.toLowerCase());
          }
        });
      const raw = await rawModule();
      const isNearDup = (answer) => /^\[cce:near-dup of b/.test(answer.plan.messages[0].c ?? '');
      assert.equal(isNearDup(call(raw, 'compressBytes', request(true))), true);
      assert.equal(isNearDup(call(raw, 'compressBytes', request(false))), build === 'speed');
    });

    test('asks for store entries as pending ids, then answers the plan', async () => {
      const raw = await rawModule();
      const request = encode((out) => {
        out.word(UNCOMPRESS_MAGIC);
        out.word(1);
        out.word(256); // _cce_original.ids follows
        out.word(2);
        out.scalar('x');
        out.scalar(7);
        out.word(1); // the store is an object
        out.word(0); // not recursive
      });
      const first = call(raw, 'uncompressBytes', request);
      assert.deepEqual(first.pending, { ids: ['x', '7'] });
      const store = encode((out) => {
        out.word(2);
        out.string('x');
        out.word(0); // found, no _cce_original
        out.string('7');
        out.word(1); // falsy: missing
      });
      const second = call(raw, 'uncompressBytes', request, store);
      assert.deepEqual(second.plan, {
        messages: [{ k: 'x' }],
        messages_expanded: 1,
        messages_passthrough: 0,
        missing_ids: [[3, '7']],
      });
    });

    test(`${build === 'speed' ? 'reads' : 'refuses'} requests with UTF-16 strings`, async () => {
      // Only the speed build (the Node entry's) carries the "CCE2" reader; browsers send "CCE1".
      const raw = await rawModule();
      const request = encode((out) => {
        out.reset((bytes, at, text) => {
          for (let i = 0; i < text.length; i++) {
            bytes[at + 2 * i] = text.charCodeAt(i) & 0xff;
            bytes[at + 2 * i + 1] = text.charCodeAt(i) >> 8;
          }
        });
        out.word(COMPRESS_UTF16_MAGIC);
        out.word(2);
        for (const [id, content] of [['a', prose.repeat(3)], ['b', 'lone \ud800']]) {
          out.word(2); // content is a string
          out.scalar(id);
          out.scalar('user');
          out.string(content);
        }
        out.word(0);
      });
      const answer = call(raw, 'compressBytes', request);
      if (build === 'speed') {
        assert.equal(answer.ok, true);
        assert.equal(answer.plan.messages.length, 2);
      } else {
        assert.equal(answer.error.message, 'malformed bytes request (not a compress request)');
      }
    });

    test('reports errors as envelopes, not exceptions, malformed buffers included', async () => {
      const raw = await rawModule();
      const notArray = encode((out) => {
        out.word(COMPRESS_MAGIC);
        out.word(0xffffffff);
        out.word(0);
      });
      assert.deepEqual(call(raw, 'compressBytes', notArray).error, {
        code: 'InvalidInput',
        message: 'compress(): messages must be an array',
        path: '/messages',
      });
      const truncated = encode((out) => {
        out.word(COMPRESS_MAGIC);
        out.word(3);
        out.word(2);
        out.scalar('a');
      });
      const error = call(raw, 'compressBytes', truncated).error;
      assert.equal(error.code, 'InvalidInput');
      assert.match(error.message, /malformed bytes request/);
      assert.match(call(raw, 'uncompressBytes', notArray).error.message, /malformed/);
    });
  });
}

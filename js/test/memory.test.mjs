// SPDX-License-Identifier: MIT
// Memory: thousands of consecutive calls keep the wasm heap flat (no leak in engine or transport).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { compress, CompressError, uncompress } from 'cce-wasm';

// The live Emscripten module (internal): its allocator, to watch requests being written.
import { currentEngine } from '../../dist/load.js';
import { INPUT, PROSE, describeFlatHeap, heapGrowth } from './support/memory.mjs';

const started = performance.now();
after(() => console.log(`memory.test.mjs: ${((performance.now() - started) / 1000).toFixed(1)} s`));

const CALLS = Number(process.env.CCE_MEMORY_CALLS ?? 10_000);

describeFlatHeap({ compress, uncompress }, CALLS, 'the speed build, through the Node entry');

// Requests are encoded straight into wasm memory (transport.ts HeapEncoder): a failure half-way
// through, or a caller's getter that itself compresses meanwhile, must not lose or share a block.
describe('requests written into wasm memory', () => {
  const TEXT = 'a long enough text to be worth compressing. '.repeat(20);

  /**
   * A message whose content getter throws when the request encoder reads it (found by its stack:
   * the checks before encoding read it too). By then half the request is in wasm memory.
   */
  function failingMessage() {
    return {
      id: 'late',
      role: 'user',
      get content() {
        if (new Error().stack.includes('encodeMessage')) throw new Error('content unreadable');
        return TEXT;
      },
    };
  }

  test('a request whose encoding throws part-way keeps no memory and the next call works', () => {
    const messages = [...INPUT.slice(0, 20), failingMessage(), ...INPUT.slice(20)];
    const run = () =>
      assert.throws(
        () => compress(messages, { recencyWindow: 0 }),
        (error) =>
          error instanceof CompressError &&
          error.code === 'InvalidInput' &&
          error.path === '/messages/20' &&
          error.cause?.message === 'content unreadable',
      );
    // Each failed call's block is at least 64 KB (the encoder's first block): a lost one a call
    // would grow the memory by 64 MB over the calls.
    const m = heapGrowth(run, 20, 1000);
    console.log(`failed encodes x1000: heap ${m.before} -> ${m.after} bytes`);
    assert.equal(m.after, m.before, 'the heap grew during the calls');
    const plain = [...INPUT.slice(0, 20), { id: 'late', role: 'user', content: TEXT }];
    const expected = JSON.stringify(compress(structuredClone(plain), { recencyWindow: 4 }));
    assert.equal(JSON.stringify(compress(plain, { recencyWindow: 4 })), expected);
  });

  test('a request is written into one block, sized from the request before it', () => {
    // About 300 KB as a request: past the first block's 64 KB, so the first call grows it.
    const big = Array.from({ length: 400 }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: `${PROSE[i % PROSE.length].repeat(4)} (${i})`,
    }));
    const raw = currentEngine();
    const malloc = raw._malloc;
    const calls = (run) => {
      const sizes = [];
      raw._malloc = (n) => {
        sizes.push(n);
        return malloc(n);
      };
      try {
        run();
      } finally {
        raw._malloc = malloc;
      }
      return sizes;
    };
    compress(INPUT.slice(0, 3), {}); // a small request: the next block starts small again
    const first = calls(() => compress(big, { recencyWindow: 4 }));
    const again = calls(() => compress(big, { recencyWindow: 4 }));
    assert.ok(first.length >= 2, `the first request grew its block: ${first}`);
    assert.equal(again.length, 1, `the same request again: ${again}`);
    assert.ok(again[0] >= 256 * 1024, `a block of ${again[0]} bytes`);
  });

  test('a content getter that calls compress while the request is written', () => {
    const inner = INPUT.slice(0, 6);
    const innerExpected = JSON.stringify(compress(inner, { recencyWindow: 0 }));
    const text = 'The nested call must not write into the outer request. '.repeat(30);
    const plain = { id: 'nested', role: 'user', content: text };
    const expected = JSON.stringify(compress([...INPUT, plain], { recencyWindow: 0 }));
    let nestedCalls = 0;
    const nesting = {
      id: 'nested',
      role: 'user',
      get content() {
        nestedCalls += 1;
        assert.equal(JSON.stringify(compress(inner, { recencyWindow: 0 })), innerExpected);
        return text;
      },
    };
    const run = () => {
      const out = compress([...INPUT, nesting], { recencyWindow: 0 });
      // The getter's object is the caller's own; the rest must equal the plain message's run.
      assert.equal(JSON.stringify(out), expected);
    };
    run();
    assert.ok(nestedCalls >= 2, `the getter ran ${nestedCalls} times`);
    // Each call writes two requests of at least 64 KB: a lost block a call would grow the memory
    // by 19 MB or more over 300 calls.
    const m = heapGrowth(run, 10, 300);
    assert.equal(m.after, m.before, `the heap grew during the calls: ${m.before} -> ${m.after}`);
  });
});

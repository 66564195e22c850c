// SPDX-License-Identifier: MIT
// scripts/pack-wasm.mjs, the post-link step of every wasm module: its data segments merged into
// one and its functions reordered, the module starts with the same memory and computes the same,
// and modules a step cannot handle safely are refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { mergeDataSegments } from '../../scripts/merge-data-segments.mjs';
import { reorderFunctions } from '../../scripts/reorder-functions.mjs';

const leb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id, body) => [id, ...leb(body.length), ...body];
const name = (s) => [...leb(s.length), ...new TextEncoder().encode(s)];

/**
 * A module exporting one page of memory ("memory") with `segments` ([offset, bytes, passive?]),
 * a data count section, and a name section naming the data segments.
 */
function moduleWith(segments) {
  const data = [...leb(segments.length)];
  for (const [offset, bytes, passive] of segments) {
    if (passive) data.push(1);
    else data.push(0, 0x41, ...leb(offset), 0x0b); // offsets below 64: one-byte sleb
    data.push(...leb(bytes.length), ...bytes);
  }
  const dataNames = [...leb(segments.length)];
  segments.forEach((_, i) => dataNames.push(...leb(i), ...name(`seg${i}`)));
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(5, [1, 0x00, 1]), // memory: one page
    ...section(7, [1, ...name('memory'), 0x02, 0]), // export it
    ...section(12, leb(segments.length)), // data count
    ...section(11, data),
    ...section(0, [...name('name'), 9, ...leb(dataNames.length), ...dataNames]),
  ]);
}

async function memoryOf(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes);
  return new Uint8Array(instance.exports.memory.buffer, 0, 256).slice();
}

describe('merge-data-segments', () => {
  test('writes active segments as one, and the memory starts the same', async () => {
    const original = moduleWith([
      [8, [1, 2, 3]],
      [20, [4, 0, 5]],
      [40, [6]],
      [60, [7, 8]],
    ]);
    const { module, before } = mergeDataSegments(original);
    assert.equal(before, 4);
    assert.ok(WebAssembly.validate(module));
    assert.deepEqual(await memoryOf(module), await memoryOf(original));
    // One segment from the first offset to the last byte: 8..62.
    const segments = WebAssembly.Module.customSections(new WebAssembly.Module(module), 'name');
    assert.equal(segments.length, 1, 'the name section stays');
    assert.ok(module.length < original.length + 60);
  });

  test('leaves a module with one segment as it is', () => {
    const original = moduleWith([[8, [1, 2, 3]]]);
    const { module, before } = mergeDataSegments(original);
    assert.equal(before, 1);
    assert.equal(module, original);
  });

  test('refuses passive segments, which instructions name by index', () => {
    const original = moduleWith([
      [8, [1, 2, 3]],
      [0, [9], true],
    ]);
    assert.throws(() => mergeDataSegments(original), /segment 1 is not an active segment/);
  });

  test('refuses overlapping segments, whose order would matter', () => {
    const original = moduleWith([
      [8, [1, 2, 3]],
      [9, [4, 5]],
    ]);
    assert.throws(() => mergeDataSegments(original), /overlap/);
  });
});

/**
 * Functions of type () -> i32, each body given as its instruction bytes: f0 and f2 alike, f1 and
 * f3 alike, so that the similarity chain moves them (f0, f2, f1, f3). Exported as "f0".."f3";
 * the table holds f0 and f3, which f1 calls indirectly. One import, so function indices start
 * at 1.
 */
function callingModule(bodies) {
  const code = [...leb(bodies.length)];
  for (const b of bodies) {
    const body = [0, ...b, 0x0b]; // no locals
    code.push(...leb(body.length), ...body);
  }
  const exports = [...leb(bodies.length)];
  bodies.forEach((_, i) => exports.push(...name(`f${i}`), 0x00, ...leb(i + 1)));
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [2, 0x60, 0, 1, 0x7f, 0x60, 1, 0x7f, 1, 0x7f]), // () -> i32, (i32) -> i32
    ...section(2, [1, ...name('env'), ...name('twice'), 0x00, 1]), // import twice: (i32) -> i32
    ...section(3, [...leb(bodies.length), ...bodies.map(() => 0)]),
    ...section(4, [1, 0x70, 0x00, 2]), // a table of two funcrefs
    ...section(7, exports),
    ...section(9, [1, 0x00, 0x41, 0, 0x0b, 2, 1, bodies.length]), // table = [f0, f3]
    ...section(10, code),
  ]);
}

const I32 = (n) => [0x41, ...leb(n)]; // i32.const (n < 64)
const CALL = (f) => [0x10, ...leb(f)];
const BODIES = [
  [...I32(7), ...CALL(0), ...I32(1), 0x6a], // f0: twice(7) + 1
  [...I32(1), 0x11, 0, 0, ...CALL(4), 0x6a, ...I32(3), 0x6c], // f1: (table[1]() + f3()) * 3, table[1] being f3
  [...I32(7), ...CALL(0), ...I32(2), 0x6a, ...CALL(1), 0x6a], // f2: twice(7) + 2 + f0()
  [...I32(5), ...I32(3), 0x6c, ...I32(5), ...I32(3), 0x6c, 0x6a], // f3: 5 * 3 + 5 * 3
];

async function results(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes, { env: { twice: (x) => 2 * x } });
  return BODIES.map((_, i) => instance.exports[`f${i}`]());
}

describe('reorder-functions', () => {
  test('moves functions and every reference to them, and the module computes the same', async () => {
    const original = callingModule(BODIES);
    assert.deepEqual(await results(original), [15, 180, 31, 30]);
    const reordered = reorderFunctions(original);
    assert.ok(WebAssembly.validate(reordered));
    assert.notDeepEqual(reordered, original, 'the chain moved f2 next to f0');
    assert.deepEqual(await results(reordered), [15, 180, 31, 30]);
  });

  test('refuses an instruction it does not know rather than guess at its immediates', () => {
    // 0x06 is `try` (exception handling), which no module of the package uses.
    const original = callingModule([[...I32(1)], [0x06, 0x40, 0x0b, ...I32(2)]]);
    assert.throws(() => reorderFunctions(original), /unknown instruction 0x6/);
  });

  test('the build packed the package modules: one data segment each, and they validate', async () => {
    const { readFileSync } = await import('node:fs');
    for (const file of [
      'cce.wasm',
      'cce-fast.wasm',
      'cce-session.wasm',
      'cce-context.wasm',
      'cce-compaction.wasm',
    ]) {
      const bytes = readFileSync(new URL(`../../dist/${file}`, import.meta.url));
      assert.ok(WebAssembly.validate(bytes), file);
      assert.equal(mergeDataSegments(bytes).before, 1, `${file} has one data segment`);
    }
  });
});

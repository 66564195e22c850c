// SPDX-License-Identifier: MIT
// scripts/merge-data-segments.mjs, the post-link step of every wasm module: the merged module
// starts with the same memory, and modules it cannot merge safely are refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { mergeDataSegments } from '../../scripts/merge-data-segments.mjs';

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

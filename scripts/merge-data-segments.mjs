// SPDX-License-Identifier: MIT
// Rewrites a wasm module's active data segments as one segment: the bytes between them become
// zeros, which is what that memory held anyway (a fresh wasm memory is zeroed).
//
// Binaryen's memory packing (part of -O2 and up, which Emscripten runs at link time) splits the
// data at every run of zeros long enough to pay for a segment header, which saves raw bytes:
// cce.wasm had 142 segments. Served compressed, it is the other way round: zeros cost gzip next
// to nothing, and 141 headers of offsets and lengths do not compress. One segment: -0.4 KB gzip
// (+7 KB raw). scripts/pack-wasm.mjs runs this after every link of a module.
//
// Refuses (throws) a module whose segments it cannot merge safely: passive segments
// (memory.init and data.drop name them by index) or offsets that are not constants.

import { Reader, concat, i32Leb, isNameSection, section, sectionsOf, u32Leb } from './wasm-bytes.mjs';

const SECTION_DATA = 11;
const SECTION_DATA_COUNT = 12;
const SECTION_CUSTOM = 0;
const NAME_SUBSECTION_DATA = 9; // data segment names, which would name merged-away indices

const TOOL = 'merge-data-segments';

function fail(message) {
  throw new Error(`${TOOL}: ${message}`);
}

/** The data section as one active segment at memory 0, or null when it already is one. */
function mergedData(body) {
  const r = new Reader(body, TOOL);
  const count = r.u32();
  const segments = [];
  for (let i = 0; i < count; i++) {
    const flags = r.u32();
    if (flags !== 0) fail(`segment ${i} is not an active segment of memory 0 (flags ${flags})`);
    if (body[r.at++] !== 0x41) fail(`segment ${i}'s offset is not an i32.const`);
    const offset = r.i32() >>> 0;
    if (body[r.at++] !== 0x0b) fail(`segment ${i}'s offset is not a constant expression`);
    const length = r.u32();
    segments.push({ offset, data: r.take(length) });
  }
  if (r.at !== body.length) fail('trailing bytes in the data section');
  if (segments.length <= 1) return null;
  segments.sort((a, b) => a.offset - b.offset);
  const start = segments[0].offset;
  const end = Math.max(...segments.map((s) => s.offset + s.data.length));
  const memory = new Uint8Array(end - start);
  for (const s of segments) {
    // Later segments win where they overlap, as instantiation applies them in order; sorted by
    // offset, that order is lost, so overlap is refused instead.
    if (memory.subarray(s.offset - start, s.offset - start + s.data.length).some((b) => b !== 0)) {
      fail(`segments overlap at ${s.offset}`);
    }
    memory.set(s.data, s.offset - start);
  }
  return {
    count: segments.length,
    body: concat([
      u32Leb(1),
      Uint8Array.of(0, 0x41),
      i32Leb(start | 0),
      Uint8Array.of(0x0b),
      u32Leb(memory.length),
      memory,
    ]),
  };
}

/** The name section without its data segment names. */
function withoutDataNames(body) {
  const r = new Reader(body, TOOL);
  const nameLength = r.u32();
  r.at += nameLength;
  const kept = [body.subarray(0, r.at)];
  while (r.at < body.length) {
    const start = r.at;
    const id = body[r.at++];
    const size = r.u32();
    r.at += size;
    if (id !== NAME_SUBSECTION_DATA) kept.push(body.subarray(start, r.at));
  }
  return concat(kept);
}

/**
 * `module` (bytes) with its data segments merged into one; `before` is how many it had (the
 * module comes back as given when that is 0 or 1).
 */
export function mergeDataSegments(module) {
  const sections = sectionsOf(module, TOOL);
  const data = sections.find((s) => s.id === SECTION_DATA);
  const merged = data ? mergedData(data.body) : null;
  if (!merged) return { module, before: data ? 1 : 0 };
  const out = [module.subarray(0, 8)];
  for (const s of sections) {
    if (s.id === SECTION_DATA) out.push(section(SECTION_DATA, merged.body));
    else if (s.id === SECTION_DATA_COUNT) out.push(section(SECTION_DATA_COUNT, u32Leb(1)));
    else if (s.id === SECTION_CUSTOM && isNameSection(s.body)) {
      out.push(section(SECTION_CUSTOM, withoutDataNames(s.body)));
    } else out.push(section(s.id, s.body));
  }
  return { module: concat(out), before: merged.count };
}

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

const SECTION_DATA = 11;
const SECTION_DATA_COUNT = 12;
const SECTION_CUSTOM = 0;
const NAME_SUBSECTION_DATA = 9; // data segment names, which would name merged-away indices

function fail(message) {
  throw new Error(`merge-data-segments: ${message}`);
}

/** A reader of LEB128 integers and byte runs over `bytes`. */
function reader(bytes, at = 0) {
  return {
    get at() {
      return at;
    },
    set at(value) {
      at = value;
    },
    u32() {
      let result = 0;
      let shift = 0;
      for (;;) {
        const b = bytes[at++];
        if (b === undefined) fail('truncated module');
        result += (b & 0x7f) * 2 ** shift;
        if ((b & 0x80) === 0) return result;
        shift += 7;
      }
    },
    i32() {
      let result = 0;
      let shift = 0;
      let b;
      do {
        b = bytes[at++];
        if (b === undefined) fail('truncated module');
        result |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      return shift < 32 && b & 0x40 ? result | (-1 << shift) : result;
    },
    bytes(n) {
      if (at + n > bytes.length) fail('truncated module');
      const out = bytes.subarray(at, at + n);
      at += n;
      return out;
    },
  };
}

function u32Leb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Uint8Array.from(out);
}

function i32Leb(n) {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return Uint8Array.from(out);
    }
    out.push(b | 0x80);
  }
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function section(id, body) {
  return concat([Uint8Array.of(id), u32Leb(body.length), body]);
}

/** The data section as one active segment at memory 0, or null when it already is one. */
function mergedData(body) {
  const r = reader(body);
  const count = r.u32();
  const segments = [];
  for (let i = 0; i < count; i++) {
    const flags = r.u32();
    if (flags !== 0) fail(`segment ${i} is not an active segment of memory 0 (flags ${flags})`);
    if (body[r.at++] !== 0x41) fail(`segment ${i}'s offset is not an i32.const`);
    const offset = r.i32() >>> 0;
    if (body[r.at++] !== 0x0b) fail(`segment ${i}'s offset is not a constant expression`);
    const length = r.u32();
    segments.push({ offset, data: r.bytes(length) });
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
  const r = reader(body);
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
  if (module.length < 8 || module[0] !== 0 || module[1] !== 0x61) fail('not a wasm module');
  const r = reader(module, 8);
  const sections = [];
  while (r.at < module.length) {
    const id = module[r.at++];
    const size = r.u32();
    sections.push({ id, body: r.bytes(size) });
  }
  const data = sections.find((s) => s.id === SECTION_DATA);
  const merged = data ? mergedData(data.body) : null;
  if (!merged) return { module, before: data ? 1 : 0 };
  const out = [module.subarray(0, 8)];
  for (const s of sections) {
    if (s.id === SECTION_DATA) out.push(section(SECTION_DATA, merged.body));
    else if (s.id === SECTION_DATA_COUNT) out.push(section(SECTION_DATA_COUNT, u32Leb(1)));
    else if (s.id === SECTION_CUSTOM && new TextDecoder().decode(s.body.subarray(1, 5)) === 'name' && s.body[0] === 4) {
      out.push(section(SECTION_CUSTOM, withoutDataNames(s.body)));
    } else out.push(section(s.id, s.body));
  }
  return { module: concat(out), before: merged.count };
}

// SPDX-License-Identifier: MIT
// Reading and writing the wasm binary format's basics, for the post-link steps (pack-wasm.mjs):
// LEB128 integers, sections, concatenation.

/** Reads LEB128 integers and byte runs of `bytes` from `at` to `end`; errors name `tool`. */
export class Reader {
  constructor(bytes, tool, at = 0, end = bytes.length) {
    this.bytes = bytes;
    this.tool = tool;
    this.at = at;
    this.end = end;
  }
  fail(message) {
    throw new Error(`${this.tool}: ${message}`);
  }
  byte() {
    if (this.at >= this.end) this.fail('truncated module');
    return this.bytes[this.at++];
  }
  u32() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  }
  i32() {
    let result = 0;
    let shift = 0;
    let b;
    do {
      b = this.byte();
      result |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return shift < 32 && b & 0x40 ? result | (-1 << shift) : result;
  }
  /** Skips a signed LEB128 of any width. */
  skipLeb() {
    while (this.byte() & 0x80);
  }
  skip(n) {
    if (this.at + n > this.end) this.fail('truncated module');
    this.at += n;
  }
  take(n) {
    const start = this.at;
    this.skip(n);
    return this.bytes.subarray(start, this.at);
  }
}

export function u32Leb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Uint8Array.from(out);
}

export function i32Leb(n) {
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

export function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A section: its id, its size, its body. */
export function section(id, body) {
  return concat([Uint8Array.of(id), u32Leb(body.length), body]);
}

/** Whether a custom section's body is the name section. */
export function isNameSection(body) {
  return body[0] === 4 && new TextDecoder().decode(body.subarray(1, 5)) === 'name';
}

/** The module's sections, in order, as { id, body }; throws (naming `tool`) on a bad module. */
export function sectionsOf(module, tool) {
  if (module.length < 8 || module[0] !== 0 || module[1] !== 0x61) {
    throw new Error(`${tool}: not a wasm module`);
  }
  const r = new Reader(module, tool, 8);
  const sections = [];
  while (r.at < module.length) {
    const id = r.byte();
    sections.push({ id, body: r.take(r.u32()) });
  }
  return sections;
}

// SPDX-License-Identifier: MIT
// Value bytes (src/value_bytes.h): a JSON value written straight into a session module's memory,
// which the module reads without a JSON reader. Little-endian 32-bit words: the magic "CCV1", then
// the value: a tag (null 0, false 1, true 2, number 3, string 4, array 5, object 6), then a float64
// for a number, a string (length in UTF-16 units, the units, zero padding to a word), or a count
// and the items / members (a key string and a value each).
import type { CceSessionModule } from './cce-session.mjs';

const MAGIC = 0x31564343;
/** Nesting past this is refused, as the engine's JSON reader refuses it (src/json_io.h). */
export const MAX_DEPTH = 512;

/** @internal A value value bytes cannot hold: deeper than MAX_DEPTH, or a non-finite number. */
export class NotValueBytes extends Error {
  constructor(readonly tooDeep: boolean) {
    super(tooDeep ? `JSON nesting is deeper than the limit of ${MAX_DEPTH} levels` : 'not JSON');
  }
}

const stringBytes = (s: string): number => 4 + ((s.length * 2 + 3) & ~3);

// What JSON.stringify leaves out of an object (and writes as null in an array).
const omitted = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

function sizeOf(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return 4 + stringBytes(value);
    case 'number':
      if (!Number.isFinite(value)) throw new NotValueBytes(false);
      return 12;
    case 'object': {
      if (value === null) return 4;
      if (depth >= MAX_DEPTH) throw new NotValueBytes(true);
      let size = 8;
      if (Array.isArray(value)) {
        for (const item of value) size += sizeOf(item, depth + 1);
      } else {
        const members = value as Record<string, unknown>;
        for (const key of Object.keys(members)) {
          const item = members[key];
          if (!omitted(item)) size += stringBytes(key) + sizeOf(item, depth + 1);
        }
      }
      return size;
    }
    default:
      return 4; // booleans; an omitted value in an array is a null
  }
}

// The writer's position and views, set for one write (views are replaced when memory grows).
let words: Uint32Array;
let units: Uint16Array;
let at = 0; // in words
const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

function writeString(s: string): void {
  words[at++] = s.length;
  const first = at * 2;
  for (let i = 0; i < s.length; i++) units[first + i] = s.charCodeAt(i);
  if (s.length % 2 === 1) units[first + s.length] = 0;
  at += (s.length + 1) >>> 1;
}

function write(value: unknown): void {
  switch (typeof value) {
    case 'string':
      words[at++] = 4;
      writeString(value);
      return;
    case 'number':
      float[0] = value === 0 ? 0 : value; // -0 as JSON.stringify writes it
      words[at++] = 3;
      words[at++] = floatWords[0] as number;
      words[at++] = floatWords[1] as number;
      return;
    case 'boolean':
      words[at++] = value ? 2 : 1;
      return;
    case 'object': {
      if (value === null) break;
      if (Array.isArray(value)) {
        words[at++] = 5;
        words[at++] = value.length;
        for (const item of value) write(item);
        return;
      }
      const members = value as Record<string, unknown>;
      words[at++] = 6;
      const count = at++;
      let n = 0;
      for (const key of Object.keys(members)) {
        const item = members[key];
        if (omitted(item)) continue;
        writeString(key);
        write(item);
        n++;
      }
      words[count] = n;
      return;
    }
  }
  words[at++] = 0;
}

/**
 * @internal Writes `value` (a JSON value as JSON.parse makes them; undefined, function and
 * symbol members are left out as JSON.stringify leaves them) as value bytes into memory it
 * allocates in `raw`, and returns the block's address and byte length. The caller frees it.
 * Throws NotValueBytes for a value nested too deeply or holding a non-finite number, and a
 * RangeError when the module is out of memory.
 */
export function writeValueBytes(
  raw: CceSessionModule,
  value: unknown,
  header = 0,
): [number, number] {
  const length = 4 + sizeOf(value, 0);
  const block = raw._malloc(header + length);
  if (block === 0) throw new RangeError('the session engine is out of memory');
  words = raw.HEAPU32; // after malloc, which may grow memory
  units = raw.HEAPU16;
  at = (block + header) >>> 2;
  words[at++] = MAGIC;
  write(value);
  return [block, length];
}

/**
 * @internal The module's JSON.parse (its `cce_host_parse_json` import, wasm/host_json.cpp): the
 * `length` UTF-16 units at `text`, parsed and written as value bytes after their length word in a
 * block the engine frees; 0 when the text is not JSON or holds a value the engine's own reader
 * refuses (a number that overflows, nesting past MAX_DEPTH).
 */
export function hostParseJson(raw: CceSessionModule, text: number, length: number): number {
  const heap = raw.HEAPU16;
  let source = '';
  // Unit by unit in chunks: a UTF-16 decoder would replace lone surrogates, JSON.parse keeps them.
  for (let i = 0; i < length; i += 8192) {
    const chunk = heap.subarray((text >>> 1) + i, (text >>> 1) + Math.min(length, i + 8192));
    source += String.fromCharCode.apply(null, chunk as unknown as number[]);
  }
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    return 0;
  }
  try {
    const [block, bytes] = writeValueBytes(raw, value, 4);
    raw.HEAPU32[block >>> 2] = bytes;
    return block;
  } catch (error) {
    if (error instanceof NotValueBytes) return 0;
    throw error;
  }
}

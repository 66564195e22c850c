// SPDX-License-Identifier: MIT
// The only caller of the raw module: binary requests -> wasm -> binary answers, with trap recovery.
import type { CceModule } from './cce.mjs';
import { CompressError, type ErrorCode } from './errors.js';
import { currentEngine, dropInstance, engine } from './load.js';
import type { MemoryWatch } from './wasm-load.js';

/** An answer of the engine (docs/boundary.md): a finished plan or work the host must do first. */
export interface Answer<Plan, Pending> {
  plan?: Plan;
  pending?: Pending;
}

interface Envelope<Plan, Pending> extends Answer<Plan, Pending> {
  ok: boolean;
  error?: { code: ErrorCode; message: string; path?: string };
}

/** @internal Where the time of the calls goes (bench.mjs); only counted while `enabled`. */
export const timings = {
  enabled: false,
  calls: 0,
  encodeMs: 0,
  copyInMs: 0,
  wasmMs: 0,
  parseMs: 0,
  rebuildMs: 0,
  reset(): void {
    this.calls = this.encodeMs = this.copyInMs = this.wasmMs = this.parseMs = this.rebuildMs = 0;
  },
};

/** @internal Every function EMSCRIPTEN_BINDINGS registers (js/test/bindings.test.mjs checks it). */
export const RAW_FUNCTIONS = [
  'compressBytes',
  'uncompressBytes',
  'estimateTokensUtf16',
  'version',
  'build',
] as const satisfies ReadonlyArray<keyof CceModule>;

/** @internal */
export const now = (): number => (timings.enabled ? performance.now() : 0);

// ---- the binary request format (docs/boundary.md "Bytes requests") ----------------------------

/** @internal First words of the requests ("CCE1" / "CCU1" little-endian), checked by the engine. */
export const COMPRESS_MAGIC = 0x31454343;
export const UNCOMPRESS_MAGIC = 0x31554343;
/** @internal A compress request whose strings are UTF-16 ("CCE2"). */
export const COMPRESS_UTF16_MAGIC = 0x32454343;

/**
 * @internal Copies the UTF-16 units of `text` into `bytes` at byte offset `at` (room is made by
 * the caller). Only an entry with a fast native copy installs one: the Node entry (Buffer).
 */
export type Utf16Writer = (bytes: Uint8Array, at: number, text: string) => void;
let utf16Writer: Utf16Writer | undefined;

/** @internal Makes compress requests carry their strings as UTF-16, written by `writer`. */
export function useUtf16Strings(writer: Utf16Writer | undefined): void {
  utf16Writer = writer;
}

// Whether the loaded engine is the speed build, which reads UTF-16 requests and lower-cases
// itself; the size build (browsers) leaves out that reader and the Unicode case tables. Asked
// once per instance.
let askedEngine: CceModule | undefined;
let speedBuild = false;

function loadedSpeedBuild(): boolean {
  const raw = engine();
  if (raw !== askedEngine) {
    askedEngine = raw;
    speedBuild = answerText(raw, raw.build()) === 'speed';
  }
  return speedBuild;
}

/**
 * @internal The writer of UTF-16 strings for the next compress request: the installed one when
 * the loaded engine reads them, else undefined (WTF-8).
 */
export function requestUtf16Writer(): Utf16Writer | undefined {
  if (utf16Writer === undefined) return undefined;
  return loadedSpeedBuild() ? utf16Writer : undefined;
}

/**
 * @internal Whether the loaded engine lower-cases fuzzy-dedup lines itself. The size build has no
 * case tables; the request then carries the texts lower-cased (docs/boundary.md).
 */
export function engineLowersText(): boolean {
  return loadedSpeedBuild();
}
/** @internal The message count that says `messages` is not an array. */
export const NOT_AN_ARRAY = 0xffffffff;

const utf8 = new TextEncoder();
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// Node 18 has no isWellFormed (Node 20, Deno, workerd and current browsers do).
const wellFormed =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed()
    : (s: string) => !loneSurrogate.test(s);

/**
 * @internal Writes little-endian words, doubles and strings (a length word, then WTF-8 bytes or,
 * in UTF-16 mode, UTF-16 units, then zero to three bytes of padding) into a growable buffer.
 * Every field starts 4-byte aligned.
 */
export class Encoder {
  protected bytes: Uint8Array;
  protected view: DataView;
  protected at = 0;
  private utf16: Utf16Writer | undefined;

  constructor(capacity = 256) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  /** The bytes written so far (a view: valid until the next write). */
  get written(): Uint8Array {
    return this.bytes.subarray(0, this.at);
  }

  /** Starts over; strings are UTF-16 (written by `utf16`) when one is given, else WTF-8. */
  reset(utf16?: Utf16Writer): this {
    this.at = 0;
    this.utf16 = utf16;
    return this;
  }

  private ensure(extra: number): void {
    const needed = this.at + extra;
    if (needed > this.bytes.length) this.grow(needed);
  }

  /** Moves what was written into a buffer of at least `needed` bytes. */
  protected grow(needed: number): void {
    const grown = new Uint8Array(Math.max(needed, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  word(value: number): void {
    this.ensure(4);
    this.view.setUint32(this.at, value, true);
    this.at += 4;
  }

  /** Reserves a word to be filled in later with `patch` (counts known only afterwards). */
  reserve(): number {
    this.word(0);
    return this.at - 4;
  }

  patch(at: number, value: number): void {
    this.ensure(0); // a heap encoder's view may be stale (see HeapEncoder.grow)
    this.view.setUint32(at, value, true);
  }

  number(value: number): void {
    this.ensure(8);
    this.view.setFloat64(this.at, value, true);
    this.at += 8;
  }

  string(s: string): void {
    if (this.utf16 !== undefined) {
      this.string16(s, this.utf16);
      return;
    }
    const n = s.length;
    this.ensure(4 + 3 * n + 3);
    const bytes = this.bytes;
    const start = this.at + 4;
    let end = start;
    // Short ASCII strings (ids, roles, keys) are copied by hand: cheaper than a call to encodeInto.
    if (n <= 64) {
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        bytes[end++] = c;
      }
      if (i < n) end = this.encodeRest(s, start);
    } else {
      end = this.encodeRest(s, start);
    }
    this.view.setUint32(this.at, end - start, true);
    this.at = (end + 3) & ~3;
  }

  /** The length in units, the units (lone surrogates as they are), padding to 4 bytes. */
  private string16(s: string, write: Utf16Writer): void {
    const n = s.length;
    this.ensure(4 + 2 * n + 2);
    this.view.setUint32(this.at, n, true);
    const start = this.at + 4;
    // Short strings (ids, roles, keys) by hand: cheaper than a call into the runtime.
    if (n <= 32) {
      for (let i = 0; i < n; i++) this.view.setUint16(start + 2 * i, s.charCodeAt(i), true);
    } else {
      write(this.bytes, start, s);
    }
    const end = start + 2 * n;
    if (n % 2 !== 0) this.view.setUint16(end, 0, true);
    this.at = (end + 3) & ~3;
  }

  private encodeRest(s: string, start: number): number {
    // TextEncoder would turn lone surrogates into U+FFFD; the engine keeps them (as WTF-8).
    // (isWellFormed is O(1) on V8's one-byte strings, so ASCII text costs nothing here.)
    if (wellFormed(s)) return start + utf8.encodeInto(s, this.bytes.subarray(start)).written;
    const bytes = this.bytes;
    let p = start;
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        bytes[p++] = c;
      } else if (c < 0x800) {
        bytes[p++] = 0xc0 | (c >> 6);
        bytes[p++] = 0x80 | (c & 0x3f);
      } else {
        const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
          bytes[p++] = 0xf0 | (c >> 18);
          bytes[p++] = 0x80 | ((c >> 12) & 0x3f);
        } else {
          bytes[p++] = 0xe0 | (c >> 12); // a lone surrogate too: WTF-8
        }
        bytes[p++] = 0x80 | ((c >> 6) & 0x3f);
        bytes[p++] = 0x80 | (c & 0x3f);
      }
    }
    return p;
  }

  /** What `===` and truthiness need of an id or role: its kind and `String(value)`. */
  scalar(value: unknown): void {
    switch (typeof value) {
      case 'undefined':
        this.word(0);
        return;
      case 'string':
        this.word(4);
        this.string(value);
        return;
      case 'number':
        this.word(3);
        this.string(String(value));
        return;
      case 'boolean':
        this.word(2);
        this.string(value ? 'true' : 'false');
        return;
      default:
        if (value === null) {
          this.word(1);
          return;
        }
        this.word(5);
        this.string(compositeText(value));
    }
  }

  /** A JSON-like option value: what JSON.stringify would carry of it (nested arrays included). */
  value(value: unknown, depth = 16): void {
    switch (typeof value) {
      case 'boolean':
        this.word(value ? 2 : 1);
        return;
      case 'number':
        if (Number.isFinite(value)) {
          this.word(3);
          this.number(value);
        } else {
          this.word(0);
        }
        return;
      case 'string':
        this.word(4);
        this.string(value);
        return;
      case 'object':
        if (value === null) break;
        if (value instanceof Number || value instanceof String || value instanceof Boolean) {
          this.value(value.valueOf(), depth); // as JSON.stringify unboxes them
          return;
        }
        if (Array.isArray(value) && depth > 0) {
          this.word(5);
          this.word(value.length);
          for (let i = 0; i < value.length; i++) this.value(value[i] as unknown, depth - 1);
        } else {
          this.word(6);
        }
        return;
    }
    this.word(0); // null, and what JSON.stringify writes as null in an array
  }
}

function compositeText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '[object Object]'; // e.g. an object without a prototype
  }
}

// ---- the binary answer format (docs/boundary.md "Bytes answers") ------------------------------

/** @internal Tags of the binary answer (src/answer_writer.h AnswerTag). */
export const AnswerTag = {
  Null: 0,
  False: 1,
  True: 2,
  Number: 3,
  Index: 4,
  String: 5,
  Array: 7,
  Object: 8,
  Key: 9,
} as const;

/** @internal Bit 0 of the answer's flags: the pool holds a lone surrogate. */
export const POOL_HAS_LONE_SURROGATE = 1;

/**
 * @internal The object keys of every answer, by the index the engine sends (src/answer_writer.h
 * CCE_ANSWER_KEYS lists them in the same order; tests/answer_writer_test.cpp reads this list).
 * As constants they are the same strings every time, so the objects built with them share shapes.
 */
// prettier-ignore
export const ANSWER_KEYS = [
  'ok', 'error', 'code', 'message', 'path', 'plan', 'pending', 'valid', 'messages',
  'compression', 'verbatim', 'fits', 'tokenCount', 'recencyWindow', 'blocking', 'fastPath',
  's', 'c', 'o', 'm', 't', 'src', 'summary_id', 'parent_ids', 'version', 'summaries', 'text',
  'counts', 'key', 'ids', 'k', 'messages_expanded', 'messages_passthrough', 'missing_ids',
  'original_version', 'ratio', 'token_ratio', 'messages_compressed', 'messages_preserved',
  'messages_deduped', 'messages_fuzzy_deduped', 'messages_truncated', 'messages_omitted',
] as const;

// `ignoreBOM`: a pool that starts with U+FEFF keeps it. Undefined where the runtime has no UTF-16
// decoder (then the pool takes the unit-by-unit path, which is exact, only slower).
const utf16Decoder: TextDecoder | undefined = (() => {
  try {
    return new TextDecoder('utf-16le', { ignoreBOM: true });
  } catch {
    return undefined;
  }
})();
// fromCharCode.apply takes its arguments on the stack: a long pool goes in slices.
const APPLY_UNITS = 8192;

function fromUnits(units: Uint16Array): string {
  let text = '';
  for (let i = 0; i < units.length; i += APPLY_UNITS) {
    const slice = units.subarray(i, i + APPLY_UNITS) as unknown as number[];
    text += String.fromCharCode.apply(null, slice);
  }
  return text;
}

/**
 * @internal Decodes the answer's string pool into one string, unit for unit (lone surrogates
 * kept). `wellFormed` is false when the engine found a lone surrogate in it.
 */
export type PoolDecoder = (units: Uint16Array, wellFormed: boolean) => string;

/** @internal The decoder every runtime has: TextDecoder when it is exact, unit by unit otherwise. */
export const portablePoolDecoder: PoolDecoder = (units, wellFormed) =>
  wellFormed && utf16Decoder !== undefined ? utf16Decoder.decode(units) : fromUnits(units);

let poolDecoder: PoolDecoder = portablePoolDecoder;

/** @internal Lets an entry install a faster exact decoder (the Node entry: Buffer's UTF-16). */
export function usePoolDecoder(decoder: PoolDecoder): void {
  poolDecoder = decoder;
}

/** @internal The decoder readAnswer uses by default. */
export function activePoolDecoder(): PoolDecoder {
  return poolDecoder;
}

function malformedAnswer(at: number): CompressError {
  return new CompressError('Internal', `cce-wasm: malformed engine answer (at byte ${at})`);
}

/**
 * @internal Decodes the binary answer at `start` (`length` bytes) of `buffer` into what JSON.parse
 * would give for the same answer in JSON: numbers, strings unit for unit (lone surrogates
 * included), arrays and plain objects. The string pool is decoded in one call; each string is a
 * slice of it.
 */
export function readAnswer(
  buffer: ArrayBuffer,
  start: number,
  length: number,
  decodePool: PoolDecoder = poolDecoder,
): unknown {
  if (start % 4 !== 0) {
    // The engine's answers are heap-allocated and so aligned; a copy keeps this reader general.
    const copy = new Uint8Array(buffer, start, length).slice().buffer;
    return readAnswer(copy, 0, length, decodePool);
  }
  const words = new Uint32Array(buffer);
  const view = new DataView(buffer);
  const end = start + length;
  let at = start;

  function word(): number {
    if (at + 4 > end) throw malformedAnswer(at);
    const w = words[at >>> 2] as number;
    at += 4;
    return w;
  }

  const poolLength = word();
  const flags = word();
  if (poolLength > (end - at) / 2 || flags > POOL_HAS_LONE_SURROGATE) throw malformedAnswer(at);
  const pool =
    poolLength > 0
      ? decodePool(new Uint16Array(buffer, at, poolLength), (flags & POOL_HAS_LONE_SURROGATE) === 0)
      : '';
  at += (poolLength * 2 + 3) & ~3;

  function string(): string {
    const offset = word();
    const n = word();
    if (offset + n > poolLength) throw malformedAnswer(at - 8);
    return pool.slice(offset, offset + n);
  }
  function count(): number {
    const n = word();
    if (n > (end - at) / 4) throw malformedAnswer(at - 4); // every value takes a word at least
    return n;
  }
  function key(): string {
    const tag = word();
    if (tag === AnswerTag.Key) {
      const name = ANSWER_KEYS[word()];
      if (name === undefined) throw malformedAnswer(at - 4);
      return name;
    }
    if (tag === AnswerTag.String) return string();
    throw malformedAnswer(at - 4);
  }
  function value(depth: number): unknown {
    if (depth > 64) throw malformedAnswer(at);
    switch (word()) {
      case AnswerTag.Null:
        return null;
      case AnswerTag.False:
        return false;
      case AnswerTag.True:
        return true;
      case AnswerTag.Number: {
        if (at + 8 > end) throw malformedAnswer(at);
        const d = view.getFloat64(at, true);
        at += 8;
        return d;
      }
      case AnswerTag.Index:
        return word();
      case AnswerTag.String:
        return string();
      case AnswerTag.Array: {
        const n = count();
        const items = new Array<unknown>(n);
        for (let i = 0; i < n; i++) items[i] = value(depth + 1);
        return items;
      }
      case AnswerTag.Object: {
        const n = count();
        const object: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const name = key();
          const item = value(depth + 1);
          if (name === '__proto__') {
            // An own property, as JSON.parse makes it (assignment would set the prototype).
            Object.defineProperty(object, name, {
              value: item,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          } else {
            object[name] = item;
          }
        }
        return object;
      }
      default:
        throw malformedAnswer(at - 4);
    }
  }

  const result = value(0);
  if (at !== end) throw malformedAnswer(at);
  return result;
}

// ---- calls --------------------------------------------------------------------------------------

/** Bounds of the first allocation of a request's buffer (the size of the one before, plus 1/8). */
const REQUEST_HINT_MIN = 1 << 16;
const REQUEST_HINT_MAX = 1 << 24;
/** The first allocation when the hint does not fit (the smallest request has 16 bytes). */
const REQUEST_START = 256;

/**
 * An encoder whose buffer is in wasm memory: a request is written where the engine reads it, not
 * copied in afterwards (6 MB in WTF-8, 11 MB in UTF-16 for the scale session). Its own malloc
 * grows memory, and so can a caller's getter that compresses while a message is read: its views
 * are made again after either. (#private members: a bundler shortens them.)
 */
class HeapEncoder extends Encoder {
  #raw: CceModule | undefined;
  #pointer = 0;
  #capacity = 0;
  #hint = REQUEST_HINT_MIN;

  constructor() {
    super(0);
  }

  /** Whether a request is being written. */
  get busy(): boolean {
    return this.#raw !== undefined;
  }

  /** Starts a request in a fresh block of the current instance's memory. */
  begin(utf16?: Utf16Writer): this {
    this.reset(utf16);
    this.#raw = engine();
    // The size of the last request may not fit now: then a small block, which the writes grow.
    let capacity = this.#hint;
    let pointer = this.#malloc(capacity);
    if (pointer === 0) {
      pointer = this.#malloc((capacity = REQUEST_START));
      if (pointer === 0) this.#fail('no wasm memory is left to write the request in');
    }
    this.#place(pointer, capacity);
    return this;
  }

  protected override grow(needed: number): void {
    const raw = this.#raw as CceModule;
    if (this.bytes.length < this.#capacity) {
      // Memory grew since the views were made (a caller's getter that compresses meanwhile):
      // they are detached, empty. The block itself is where it was.
      this.#place(this.#pointer, this.#capacity);
      if (needed <= this.#capacity) return;
    }
    const capacity = Math.max(needed, this.bytes.length * 2);
    const pointer = this.#malloc(capacity);
    if (pointer === 0) {
      this.#fail(`the request needs at least ${needed} bytes of wasm memory, more than is available`);
    }
    raw.HEAPU8.copyWithin(pointer, this.#pointer, this.#pointer + this.at);
    raw._free(this.#pointer);
    this.#place(pointer, capacity);
  }

  /** Hands the written request over to a HeapRequest, which frees it. */
  finish(keep: boolean): HeapRequest {
    const length = this.at;
    this.#hint = Math.min(Math.max(length + (length >> 3), REQUEST_HINT_MIN), REQUEST_HINT_MAX);
    const request = new HeapRequest(this.#raw as CceModule, this.#pointer, length, keep);
    this.#detach();
    return request;
  }

  /** Frees the block of a request whose encoding failed. */
  abandon(): void {
    const raw = this.#raw;
    if (raw !== undefined && this.#pointer !== 0 && raw === currentEngine()) raw._free(this.#pointer);
    this.#detach();
  }

  #fail(message: string): never {
    this.abandon();
    throw new CompressError('InputTooLarge', `cce-wasm: ${message}`);
  }

  #malloc(size: number): number {
    try {
      return (this.#raw as CceModule)._malloc(size);
    } catch (error) {
      throw trapped(error);
    }
  }

  /** Points the encoder at `capacity` bytes at `pointer` (re-reading the heap: malloc may grow it). */
  #place(pointer: number, capacity: number): void {
    const buffer = (this.#raw as CceModule).HEAPU8.buffer;
    this.#pointer = pointer;
    this.#capacity = capacity;
    this.bytes = new Uint8Array(buffer, pointer, capacity);
    this.view = new DataView(buffer, pointer, capacity);
  }

  /** Lets go of the block (handed over or freed): the encoder is free for the next request. */
  #detach(): void {
    this.#raw = undefined;
    this.#pointer = 0;
    this.#capacity = 0;
    this.bytes = NO_BYTES;
    this.view = NO_VIEW;
  }
}

// What a detached encoder points at: one empty buffer for all, not a new one per request (each
// new ArrayBuffer is a backing store for the garbage collector to track).
const NO_BYTES = new Uint8Array(0);
const NO_VIEW = new DataView(NO_BYTES.buffer);

const requestEncoder = new HeapEncoder();

/**
 * @internal Encodes a request straight into wasm memory. `keep` (for runs that await between
 * round trips) keeps a private copy of the bytes too, see HeapRequest.
 */
export function encodeRequest(
  encode: (out: Encoder) => void,
  keep: boolean,
  utf16?: Utf16Writer,
): HeapRequest {
  // A getter of the caller's messages may itself call compress while this one encodes.
  const out = (requestEncoder.busy ? new HeapEncoder() : requestEncoder).begin(utf16);
  try {
    encode(out);
  } catch (error) {
    out.abandon();
    throw error;
  }
  return out.finish(keep);
}

/**
 * @internal A request in wasm memory, written there once and reused by every round trip of the
 * pending protocol. `keep` (for runs that await between round trips, when another call may trap
 * and re-create the instance) retains a private copy of the bytes to copy in again.
 */
export class HeapRequest {
  private raw: CceModule;
  private pointer: number;
  private readonly bytes: Uint8Array | undefined;
  readonly length: number;

  /** Takes over `length` bytes at `pointer` in `raw`'s memory, which `release` frees. */
  constructor(raw: CceModule, pointer: number, length: number, keep: boolean) {
    this.raw = raw;
    this.pointer = pointer;
    this.length = length;
    this.bytes = keep ? raw.HEAPU8.slice(pointer, pointer + length) : undefined;
  }

  pointerIn(raw: CceModule): number {
    if (this.raw !== raw || this.pointer === 0) {
      if (this.bytes === undefined) {
        throw new CompressError('Internal', 'cce-wasm: the engine was re-created during the call');
      }
      this.raw = raw;
      this.pointer = copyIn(raw, this.bytes);
    }
    return this.pointer;
  }

  /**
   * Frees the copy in wasm memory of a request that keeps its bytes (while its run awaits): the
   * next round trip copies it in again.
   */
  evict(): void {
    if (this.bytes !== undefined) this.release();
  }

  /** Frees the copy (skipped for an instance that trapped: its memory is dropped with it). */
  release(): void {
    if (this.pointer !== 0 && this.raw === currentEngine()) this.raw._free(this.pointer);
    this.pointer = 0;
  }
}

// ---- instance lifetime ---------------------------------------------------------------------------

/**
 * @internal Wasm memory past which an idle instance is dropped (the next call instantiates a fresh
 * one, about 4 ms): memory never shrinks, and one huge request would hold it for good otherwise.
 */
export const IDLE_HEAP_LIMIT = 256 << 20;
// compress / uncompress calls on the stack (a caller's getter or counter may call one inside another).
let callDepth = 0;

/** @internal A call starts: the instance is not dropped until every call on the stack returned. */
export function enterCall(): void {
  callDepth++;
}

/** @internal A call returned (or threw). */
export function leaveCall(): void {
  callDepth--;
  shrinkIfIdle();
}

/**
 * @internal Drops the instance when no call is on the stack and its memory is over
 * IDLE_HEAP_LIMIT. Async runs awaiting their summarizer hold no wasm memory (HeapRequest.evict)
 * and copy their request into the next instance.
 */
export function shrinkIfIdle(): void {
  const raw = currentEngine();
  if (callDepth === 0 && raw !== undefined && raw.HEAPU8.length > IDLE_HEAP_LIMIT) dropInstance();
}

/** The error to throw for a failure inside a call into the module. */
function trapped(error: unknown): CompressError {
  if (error instanceof CompressError) return error;
  const raw = currentEngine() as (CceModule & MemoryWatch) | undefined;
  dropInstance(); // after a trap the heap is not trustworthy; the next call re-instantiates
  const text = error instanceof Error ? error.message : String(error);
  // An allocation that failed aborts (C++ new has no null to return without exceptions); any other
  // abort or trap, or one without a failed growth before it, is a bug.
  const exhausted = raw?.memoryExhausted === true && /^Aborted\(/.test(text);
  return new CompressError(
    exhausted ? 'InputTooLarge' : 'Internal',
    exhausted
      ? 'cce-wasm: the request needs more wasm memory than the engine can have (1 GiB); ' +
          'the engine is re-created on the next call'
      : `cce-wasm: the engine trapped (${text}); it is re-created on the next call`,
    '',
    { cause: error },
  );
}

function copyIn(raw: CceModule, bytes: Uint8Array): number {
  const pointer = raw._malloc(Math.max(bytes.length, 1));
  if (pointer === 0) {
    throw new CompressError(
      'InputTooLarge',
      `cce-wasm: the request needs ${bytes.length} bytes of wasm memory, more than is available`,
    );
  }
  raw.HEAPU8.set(bytes, pointer); // HEAPU8 is re-read after malloc, which may grow memory
  return pointer;
}

/**
 * One stateless engine call over a request already in memory and a second buffer of host answers
 * (compress) or looked-up store entries (uncompress).
 */
export function callEngine<Plan, Pending>(
  kind: 'compress' | 'uncompress',
  request: HeapRequest,
  extra: Uint8Array,
): Answer<Plan, Pending> {
  const t1 = now();
  const raw = engine() as CceModule & MemoryWatch;
  raw.memoryExhausted = false; // a failed growth counts for the call it happened in
  let copyInEnd = 0;
  let answerStart: number;
  let answerLength: number;
  try {
    const pointer = request.pointerIn(raw);
    const extraPointer = extra.length > 0 ? copyIn(raw, extra) : 0;
    copyInEnd = now();
    const view =
      (kind === 'compress'
        ? raw.compressBytes(pointer, request.length, extraPointer, extra.length)
        : raw.uncompressBytes(pointer, request.length, extraPointer, extra.length)) >>> 2;
    const heap = raw.HEAPU32; // re-read: the call may have grown memory
    answerStart = heap[view] as number;
    answerLength = heap[view + 1] as number;
    if (extraPointer !== 0) raw._free(extraPointer); // the answer stays valid until the next call
  } catch (error) {
    throw trapped(error);
  }
  const t2 = now();
  // Read straight from wasm memory (the buffer re-read: the call may have grown it).
  const envelope = readAnswer(
    raw.HEAPU8.buffer as ArrayBuffer,
    answerStart,
    answerLength,
  ) as Envelope<Plan, Pending>;
  if (timings.enabled) {
    const t3 = performance.now();
    timings.calls += 1;
    timings.copyInMs += copyInEnd - t1;
    timings.wasmMs += t2 - copyInEnd;
    timings.parseMs += t3 - t2;
  }
  if (!envelope.ok) {
    const error = envelope.error ?? {
      code: 'Internal' as const,
      message: 'malformed engine answer',
    };
    throw new CompressError(error.code, error.message, error.path);
  }
  return envelope;
}

/** @internal The engine's script-aware estimate of `text` (copied in as UTF-16, surrogates and all). */
export function estimateTextTokens(text: string): number {
  const raw = engine();
  const pointer = raw._malloc(Math.max(text.length * 2, 2));
  if (pointer === 0) {
    throw new CompressError(
      'InputTooLarge',
      `cce-wasm: ${text.length} UTF-16 units do not fit in wasm memory`,
    );
  }
  try {
    const units = new Uint16Array(raw.HEAPU8.buffer, pointer, text.length);
    for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
    const tokens = raw.estimateTokensUtf16(pointer, text.length);
    raw._free(pointer);
    return tokens;
  } catch (error) {
    throw trapped(error);
  }
}

/**
 * @internal The ASCII text a binding located at `view` (two words: pointer, length), as the
 * envelopes are: the compress module's bindings return numbers only.
 */
export function answerText(raw: CceModule, view: number): string {
  const at = view >>> 2;
  const start = raw.HEAPU32[at] as number;
  const length = raw.HEAPU32[at + 1] as number;
  return String.fromCharCode(...raw.HEAPU8.subarray(start, start + length));
}

/** @internal The engine's version string. */
export function engineVersion(): string {
  const raw = engine();
  return answerText(raw, raw.version());
}

/** @internal Which build of the engine is loaded: 'size' (cce.wasm) or 'speed' (cce-fast.wasm). */
export function engineBuild(): string {
  const raw = engine();
  return answerText(raw, raw.build());
}


/**
 * @internal Makes the engine trap (tests of trap recovery): it reads a text at the top of the
 * 32-bit address space, past the end of any wasm memory this module can have (1 GB at most), which
 * traps with "memory access out of bounds" as a bug in the engine would. (A binding that executes
 * `unreachable` would do the same from every download of the module.)
 */
export function debugTrap(): void {
  const raw = engine();
  try {
    raw.estimateTokensUtf16(0xfffffff0, 8);
  } catch (error) {
    dropInstance();
    throw new CompressError(
      'Internal',
      'cce-wasm: the engine trapped; it is re-created on the next call',
      '',
      { cause: error },
    );
  }
}

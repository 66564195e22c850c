// SPDX-License-Identifier: MIT
// compress / uncompress over the boundary: slim requests, the pending loop, rebuilt outputs.
import { clearThenCompress, readClearing } from './clearing.js';
import { CompressError } from './errors.js';
import { imagePartTokens } from './image-size.js';
import { defaultTokenCounter, toolCallTexts } from './token-counter.js';
import {
  callEngine,
  COMPRESS_MAGIC,
  COMPRESS_UTF16_MAGIC,
  Encoder,
  encodeRequest,
  engineLowersText,
  enterCall,
  leaveCall,
  NOT_AN_ARRAY,
  shrinkIfIdle,
  now,
  requestUtf16Writer,
  timings,
  UNCOMPRESS_MAGIC,
  type Answer,
  type HeapRequest,
} from './transport.js';
import type {
  AsyncCompressOptions,
  CceOriginal,
  CompressionStats,
  CompressOptions,
  CompressResult,
  ContentPart,
  Message,
  StoreLookup,
  Summarizer,
  SyncCompressOptions,
  TokenCounter,
  UncompressOptions,
  UncompressResult,
  VerbatimMap,
} from './types.js';

// ---- wire shapes (docs/boundary.md) -------------------------------------------------------------

/** `_cce_original` with source indices where the ids go (read from the caller's objects). */
interface PlanOriginal {
  src: number[];
  summary_id: string;
  parent_ids?: string[];
  version: number;
}

/** How to build one output message from the caller's objects: a source index alone is the
 * caller's own object. */
type Entry = number | Rebuilt;

interface Rebuilt {
  s: number;
  c?: string;
  m?: 1;
  o?: PlanOriginal;
  /** Counting only: the message with its text as a string content (see textView). */
  t?: 1;
}

interface CompressPlan {
  messages: Entry[];
  compression: CompressionStats;
  verbatim: Array<[string, number, boolean]>;
  fits?: boolean;
  tokenCount?: number;
  recencyWindow?: number;
  blockingIds?: Array<Message['id']>;
  blocking?: number[];
  fastPath?: boolean;
}

interface CompressPending {
  summaries?: Array<{ text: string; budget: number }>;
  counts?: Array<{ key: string; message: Entry }>;
}

interface CompressHost {
  summarizer?: true;
  summaries?: Array<string | null>;
  tokenCounter?: true;
  inputCounts?: number[];
  counts?: Record<string, number>;
}

type Obj = Record<string, unknown>;

// The options the engine reads, by how JavaScript would read them.
const NUMBER_OPTIONS = [
  'maxInputBytes',
  'recencyWindow',
  'sourceVersion',
  'tokenBudget',
  'minRecencyWindow',
  'fuzzyThreshold',
  'imageTokens',
] as const;
const TRUTHY_OPTIONS = ['fuzzyDedup', 'embedSummaryId', 'forceConverge'] as const;
const PLAIN_OPTIONS = ['preserve', 'dedup', 'compat', 'tokenEstimate'] as const;
const CALLBACK_OPTIONS = ['summarizer', 'tokenCounter', 'summarizerTimeoutMs'] as const;
// Read in JS only (clearing.ts), before the engine runs.
const CLEARING_OPTIONS = ['clearToolResults', 'clearReasoning'] as const;
// Array options (preserve) list role names: past this many elements they are a runaway, not a list.
const MAX_OPTION_ELEMENTS = 1 << 20;

// ---- reading the caller's input -----------------------------------------------------------------

/**
 * A throw of the caller's getter or Proxy trap while the input was read: InvalidInput at `path`,
 * the original as the cause. (Errors of ours, or of a nested call, pass unchanged.)
 */
function readFailed(error: unknown, api: string, path: string): CompressError {
  if (error instanceof CompressError) return error;
  return new CompressError(
    'InvalidInput',
    `${api}(): reading ${path} threw: ${describeError(error)}`,
    path,
    { cause: error },
  );
}

/**
 * @internal The options, each read once, before anything else: no caller code then runs while a
 * request is written into wasm memory, and a getter or Proxy trap that throws is InvalidInput.
 */
export function readOptions(options: unknown): CompressOptions {
  const copy: Obj = {};
  if (options == null) return copy;
  for (const keys of [NUMBER_OPTIONS, TRUTHY_OPTIONS, PLAIN_OPTIONS, CALLBACK_OPTIONS, CLEARING_OPTIONS]) {
    for (const key of keys) {
      try {
        copy[key] = plainValue((options as Obj)[key], key, 16);
      } catch (error) {
        throw readFailed(error, 'compress', `/options/${key}`);
      }
    }
  }
  return copy as CompressOptions;
}

/** What Encoder.value would read of an option value, read now: boxed primitives unboxed, arrays
 * copied (nested ones too, as deep as Encoder.value goes). */
function plainValue(value: unknown, key: string, depth: number): unknown {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return value.valueOf();
  }
  if (!Array.isArray(value) || depth === 0) return value;
  const n = value.length;
  if (n > MAX_OPTION_ELEMENTS) {
    throw new CompressError(
      'InputTooLarge',
      `compress(): options.${key} has ${n} elements (at most ${MAX_OPTION_ELEMENTS})`,
      `/options/${key}`,
    );
  }
  const copy: unknown[] = [];
  for (let i = 0; i < n; i++) copy.push(plainValue(value[i] as unknown, key, depth - 1));
  return copy;
}

// ---- bytes requests: only what the engine reads crosses the boundary ---------------------------

/** What JSON.stringify would write as null (or leave out): these never reach the engine. */
function jsonNull(value: unknown): boolean {
  const type = typeof value;
  return (
    value == null ||
    type === 'undefined' ||
    type === 'function' ||
    type === 'symbol' ||
    type === 'bigint'
  );
}

// Message flags of the bytes request (docs/boundary.md).
const NOT_OBJECT = 1;
const CONTENT_STRING = 2;
const TOOL_CALLS = 4;
const TOOL_CALL_ID = 8;
const METADATA_TRUTHY = 16;
const METADATA_OBJECT = 32;
const ORIGINAL_TRUTHY = 64;
const SUMMARY_ID = 128;
const IDS = 256;
const CONTENT_ARRAY = 512;
const CONTENT_INVALID = 1024;
const BAD_PART = 2048; // + word: the first element of an array content that is not a part
const CONTENT_PARTS = 4096; // + the parts of an array content (encodeParts)

// Part kinds of CONTENT_PARTS; the image types are those of src/request.cpp isImagePartType.
const PART_TEXT = 0;
const PART_IMAGE = 1;
const PART_OTHER = 2;
const PART_PRICED_IMAGE = 3; // + word: OpenAI's price of its pixel size (image-size.ts)
const IMAGE_PARTS = new Set(['image_url', 'image', 'input_image']);

/** A text part as the engine reads one: `{type: 'text', text: string}`. */
function isTextPart(part: unknown): part is Obj & { text: string } {
  return (
    typeof part === 'object' &&
    part !== null &&
    (part as Obj).type === 'text' &&
    typeof (part as Obj).text === 'string'
  );
}

/** The parts of an array content: text parts by their text, images by kind (and, with
 * `priceImages`, the price of an inline image's pixel size), every other part as
 * JSON.stringify(part) (the safe mode estimates its tokens over that text). */
function encodeParts(
  out: Encoder,
  parts: unknown[],
  index: number,
  safe: boolean,
  texts: string[] | undefined,
  priceImages: boolean,
): void {
  out.word(parts.length);
  for (let j = 0; j < parts.length; j++) {
    const part = parts[j] as unknown;
    if (isTextPart(part)) {
      const text = part.text;
      out.word(PART_TEXT);
      out.string(text);
      texts?.push(text);
    } else if (
      typeof part === 'object' &&
      part !== null &&
      IMAGE_PARTS.has((part as Obj).type as string)
    ) {
      // Inline data is priced by its pixel size, unless the caller set imageTokens.
      const tokens = priceImages ? imagePartTokens(part as Obj) : undefined;
      if (tokens === undefined) {
        out.word(PART_IMAGE);
      } else {
        out.word(PART_PRICED_IMAGE);
        out.word(tokens);
      }
    } else {
      out.word(PART_OTHER);
      let text: string | undefined;
      try {
        text = JSON.stringify(part);
      } catch (error) {
        // A cyclic part, or one holding a BigInt. cce-1.0 never reads parts (as the reference);
        // the default mode must size it, and a part no provider could be sent is a caller bug.
        if (safe) {
          throw new CompressError(
            'InvalidInput',
            `compress(): messages[${index}].content[${j}] cannot be serialised as JSON ` +
              `(${error instanceof Error ? error.message : String(error)})`,
            `/messages/${index}/content/${j}`,
          );
        }
      }
      out.string(text ?? '');
    }
  }
}

/** An id of `_cce_original.ids`: as JSON would carry an array element (undefined -> null). */
function encodeIds(out: Encoder, ids: unknown[]): void {
  out.word(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as unknown;
    const type = typeof id;
    out.scalar(type === 'undefined' || type === 'function' || type === 'symbol' ? null : id);
  }
}

// Fuzzy dedup considers texts of at least this many UTF-16 units (spec §8): shorter ones need no
// lowered copy.
const FUZZY_MIN_LENGTH = 200;

/**
 * What the engine reads of one message: flags, id, role, string content, tool_calls.length and
 * the `_cce_original` fields (the rest stays with the caller's object).
 *
 * With `lowered` (fuzzy dedup through an engine without case tables), a text fuzzy dedup may read
 * is also lower-cased here, by the String.prototype.toLowerCase the reference itself calls, and
 * its index and lowered text appended to `lowered` for the request's end: the string content, or
 * in the safe mode an array content's text parts joined with "\n" (the text the engine reads such
 * a message as).
 */
function encodeMessage(
  out: Encoder,
  message: unknown,
  index: number,
  safe: boolean,
  lowered: (number | string)[] | undefined,
  priceImages: boolean,
): unknown {
  if (typeof message !== 'object' || message === null) {
    out.word(NOT_OBJECT);
    return undefined;
  }
  const m = message as Obj;
  const content = m.content;
  const toolCalls = m.tool_calls;
  const metadata = m.metadata;
  let flags = 0;
  let badPart = -1;
  if (typeof content === 'string') {
    flags |= CONTENT_STRING;
  } else if (Array.isArray(content)) {
    flags |= CONTENT_ARRAY | CONTENT_PARTS;
    for (let j = 0; j < content.length; j++) {
      const part = content[j] as unknown;
      if (typeof part !== 'object' || part === null || typeof (part as Obj).type !== 'string') {
        badPart = j;
        flags |= BAD_PART;
        break;
      }
    }
  } else if (content != null) {
    flags |= CONTENT_INVALID;
  }
  if (Array.isArray(toolCalls)) flags |= TOOL_CALLS;
  if (m.tool_call_id != null) flags |= TOOL_CALL_ID;
  let summaryId: unknown;
  let ids: unknown;
  if (metadata) {
    flags |= METADATA_TRUTHY;
    if (typeof metadata === 'object' && !Array.isArray(metadata)) {
      flags |= METADATA_OBJECT;
      const original = (metadata as Obj)._cce_original;
      if (original) {
        flags |= ORIGINAL_TRUTHY;
        if (typeof original === 'object' || typeof original === 'function') {
          summaryId = (original as Obj).summary_id;
          ids = (original as Obj).ids;
          if (typeof summaryId === 'string') flags |= SUMMARY_ID;
          if (Array.isArray(ids)) flags |= IDS;
        }
      }
    }
  }
  const id = m.id;
  out.word(flags);
  out.scalar(id);
  out.scalar(m.role);
  if (flags & BAD_PART) out.word(badPart);
  if (flags & CONTENT_STRING) out.string(content as string);
  if (flags & TOOL_CALLS) out.word((toolCalls as unknown[]).length);
  if (flags & SUMMARY_ID) out.string(summaryId as string);
  if (flags & IDS) encodeIds(out, ids as unknown[]);
  let text = flags & CONTENT_STRING ? (content as string) : undefined;
  if (flags & CONTENT_PARTS) {
    const texts = lowered && safe ? [] : undefined;
    encodeParts(out, content as unknown[], index, safe, texts, priceImages);
    if (texts) text = texts.join('\n');
  }
  if (lowered && text !== undefined && text.length >= FUZZY_MIN_LENGTH) {
    lowered.push(index, text.toLowerCase());
  }
  return id;
}

/** The options the engine reads, as JSON would carry them (it reports bad types itself). */
function encodeOptions(out: Encoder, options: CompressOptions): void {
  const at = out.reserve();
  let count = 0;
  for (const key of NUMBER_OPTIONS) {
    const value = options[key] as unknown;
    if (value == null) continue;
    // A BigInt, function or Symbol would vanish from JSON and leave the default in force.
    if ((typeof value === 'number' && !Number.isFinite(value)) || jsonNull(value)) {
      throw new CompressError(
        'InvalidInput',
        `compress(): options.${key} must be a finite number`,
        `/options/${key}`,
      );
    }
    out.string(key);
    out.value(value);
    count++;
  }
  for (const key of TRUTHY_OPTIONS) {
    const value = options[key] as unknown;
    if (value == null) continue;
    out.string(key);
    out.value(jsonNull(value) ? Boolean(value) : value);
    count++;
  }
  for (const key of PLAIN_OPTIONS) {
    const value = options[key] as unknown;
    if (jsonNull(value)) continue;
    out.string(key);
    out.value(value);
    count++;
  }
  out.patch(at, count);
}

/** Default of `options.maxInputBytes` (the engine's kDefaultMaxInputBytes): 64 MiB. */
export const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** The modules' heap maximum (-sMAXIMUM_MEMORY): no request larger than this can be written. */
const MAX_WASM_BYTES = 1 << 30;

/** The request size limit: `options.maxInputBytes`, else 64 MiB; 0 (no limit) leaves the heap's. */
function inputLimit(options: CompressOptions): number {
  const given = options.maxInputBytes as unknown;
  const limit =
    typeof given === 'number' && Number.isFinite(given) && given >= 0
      ? given
      : DEFAULT_MAX_INPUT_BYTES;
  return limit === 0 ? MAX_WASM_BYTES : limit;
}

function limitText(limit: number): string {
  return limit === MAX_WASM_BYTES
    ? `over the ${MAX_WASM_BYTES} bytes wasm memory can hold`
    : `over the limit of ${Math.floor(limit)} bytes (options.maxInputBytes; 0 disables it)`;
}

/**
 * The caller's array as it is now (its elements, not copies of them), so that a later change to
 * it cannot change the result. Its length is checked first (every message takes at least 4 bytes
 * of the request): a sparse array of 2**32 - 1 holes is rejected without being walked.
 */
function readMessages(messages: unknown, limit: number, api: string): unknown {
  let n = 0;
  let i = -1;
  try {
    if (!Array.isArray(messages)) return messages;
    n = messages.length;
    if (4 * n > limit) {
      throw new CompressError(
        'InputTooLarge',
        `${api}(): messages has ${n} elements, at least ${4 * n} bytes of request, ` +
          limitText(limit),
        '/messages',
      );
    }
    const copy: unknown[] = [];
    for (i = 0; i < n; i++) copy.push(messages[i]);
    return copy;
  } catch (error) {
    throw readFailed(error, api, i < 0 ? '/messages' : `/messages/${i}`);
  }
}

/**
 * Each message's own fields as they are now, as the spread that rebuilds a message would copy
 * them: an async run rebuilds its output after the summarizer answered, and a caller's edit
 * meanwhile must not show in it. (What the engine reads is read at call time either way.)
 */
function readFields(input: unknown): unknown {
  if (!Array.isArray(input)) return input;
  const fields: unknown[] = [];
  for (let i = 0; i < input.length; i++) {
    const m = input[i] as unknown;
    try {
      fields.push(typeof m === 'object' && m !== null ? { ...m } : m);
    } catch (error) {
      throw readFailed(error, 'compress', `/messages/${i}`);
    }
  }
  return fields;
}

/**
 * Rejects a request whose message contents alone are over the limit before anything is encoded
 * or copied into wasm memory (every UTF-16 unit is at least one byte of the request). The engine
 * checks the exact size of the encoded request against the same limit.
 */
function checkInputSize(messages: unknown, limit: number): void {
  if (!Array.isArray(messages)) return;
  let units = 0;
  let i = 0;
  try {
    for (; i < messages.length; i++) {
      const m = messages[i] as unknown;
      const content = typeof m === 'object' && m !== null ? (m as Obj).content : undefined;
      if (typeof content === 'string') units += content.length;
    }
  } catch (error) {
    throw readFailed(error, 'compress', `/messages/${i}`);
  }
  if (units > limit) {
    // A byte count is whole: over 250.9 is over 250, and the message says so, as the engine's does.
    throw new CompressError(
      'InputTooLarge',
      `the message contents alone are ${units} UTF-16 units (at least as many bytes), ` +
        limitText(limit),
    );
  }
}

/** The reference's synchronous validation (spec §1.3) passes: counting inputs is then safe. */
function validMessages(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  let i = 0;
  try {
    for (; i < messages.length; i++) {
      const m = messages[i] as unknown;
      if (typeof m !== 'object' || m === null || (m as Obj).id == null) return false;
    }
  } catch (error) {
    throw readFailed(error, 'compress', `/messages/${i}`);
  }
  return true;
}

// The encoder of host answers, reused by every call, so its buffer grows once, not on every call.
// Its result is a view, valid until its next use: callEngine copies it in before anything can
// encode again. (Requests are encoded straight into wasm memory: encodeRequest.)
const hostScratch = new Encoder(1 << 12);
const EMPTY = new Uint8Array(0);

function encodeWith(out: Encoder, encode: (out: Encoder) => void): Uint8Array {
  encode(out.reset());
  return out.written;
}

// ---- callbacks ----------------------------------------------------------------------------------

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return String(error);
  } catch {
    return 'a value that cannot be printed';
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 20 ? value.slice(0, 20) + '…' : value);
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

/** The summarizer's reply, or `TIMED_OUT` when it did not settle within `ms` (0: no limit). */
const TIMED_OUT: unique symbol = Symbol('timed out');

function withTimeout<T>(reply: T | Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  if (ms <= 0 || !(reply instanceof Promise || (typeof reply === 'object' && reply !== null && 'then' in reply))) {
    return Promise.resolve(reply);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([Promise.resolve(reply), timeout]).finally(() => clearTimeout(timer));
}

// ---- rebuilding outputs from the caller's objects ---------------------------------------------

function cloneWithMetadata(m: Message): Message {
  return { ...m, metadata: m.metadata ? { ...m.metadata } : {} };
}

/** `_cce_original` in the reference's key order, with the ids exactly as the caller gave them. */
function original(input: readonly Message[], o: PlanOriginal): CceOriginal {
  const ids: unknown[] = [];
  for (const s of o.src) ids.push((input[s] as Message).id);
  const result = { ids, summary_id: o.summary_id } as Obj;
  if (o.parent_ids !== undefined) result.parent_ids = o.parent_ids;
  result.version = o.version;
  return result as unknown as CceOriginal;
}

/** An array content with its text replaced (safe mode): the first text part takes the text,
 * later text parts are dropped, every other part stays in place (src/request.cpp partsWithText). */
function partsWithText(parts: unknown[], text: string): unknown[] {
  const out: unknown[] = [];
  let placed = false;
  for (const part of parts) {
    if (!isTextPart(part)) out.push(part);
    else if (!placed) {
      out.push({ ...part, text });
      placed = true;
    }
  }
  if (!placed) out.unshift({ type: 'text', text });
  return out;
}

/** The text a multimodal message's text parts make, joined as the engine joins them. */
function textOfParts(parts: readonly unknown[]): string {
  let text: string | undefined;
  for (const part of parts) {
    if (isTextPart(part)) text = text === undefined ? part.text : `${text}\n${part.text}`;
  }
  return text ?? '';
}

/**
 * What a token counter sees of a message with array content in the default mode: its text parts
 * as a string `content` (a counter written for string contents keeps working); the engine adds
 * the built-in estimate of its images and other parts.
 */
function textView(message: Message, content?: string): Message {
  return { ...message, content: content ?? textOfParts(message.content as unknown[]) };
}

/**
 * One output message: `input` holds the caller's objects (returned as they are), `fields` what
 * was read of them (the same array, or an async run's copies taken at call time).
 */
function build(input: readonly Message[], fields: readonly Message[], entry: Entry): Message {
  if (typeof entry === 'number') return input[entry] as Message;
  const source = fields[entry.s] as Message;
  if (entry.t) {
    const base = entry.m ? cloneWithMetadata(source) : source;
    const viewed = textView(base, entry.c);
    if (entry.o === undefined) return viewed;
    return { ...viewed, metadata: { ...viewed.metadata, _cce_original: original(input, entry.o) } };
  }
  if (entry.c === undefined && entry.o === undefined) {
    return entry.m ? cloneWithMetadata(source) : (input[entry.s] as Message);
  }
  const base = entry.m ? cloneWithMetadata(source) : source;
  if (entry.c === undefined) {
    // A stand-in (src/earlier_provenance.h): its own content under a fresh _cce_original.
    return { ...base, metadata: { ...base.metadata, _cce_original: original(input, entry.o!) } };
  }
  const sourceContent = source.content as unknown;
  const content: Message['content'] = Array.isArray(sourceContent)
    ? (partsWithText(sourceContent, entry.c) as ContentPart[])
    : entry.c;
  if (entry.o === undefined) return { ...base, content };
  return {
    ...base,
    content,
    metadata: { ...base.metadata, _cce_original: original(input, entry.o) },
  };
}

// ---- compress ----------------------------------------------------------------------------------

class CompressRun {
  private readonly request: HeapRequest;
  private readonly host: CompressHost = {};
  private readonly counter: TokenCounter | undefined;
  /** Objects the counter saw, reused in the result so it sees exactly what is returned. */
  private readonly counted = new Map<string, Message>();
  /** The default mode: stricter input checks, and counts must not be negative. */
  private readonly safe: boolean;
  private readonly summarizerTimeoutMs: number;

  /** The caller's array as it was at call time (its own objects). */
  private readonly input: Message[];
  /** What rebuilt messages are spread from: `input` itself, or (async) copies made at call time. */
  private readonly fields: Message[];
  /** Each message's `id` as the request carried it (see `result`). */
  private readonly ids: unknown[] = [];

  constructor(
    private readonly given: Message[],
    options: CompressOptions,
    private readonly summarizer: Summarizer | undefined,
  ) {
    const counter = options.tokenCounter;
    // defaultTokenCounter is the reference's estimate, which the engine applies natively in
    // cce-1.0 mode (safe mode may estimate differently, so there it is called like any counter).
    const native = counter === defaultTokenCounter && options.compat === 'cce-1.0';
    this.counter = counter == null || native ? undefined : counter;
    const limit = inputLimit(options);
    const input = readMessages(given, limit, 'compress') as Message[];
    this.input = input;
    this.fields = (summarizer ? readFields(input) : input) as Message[];
    checkInputSize(input, limit);
    this.safe = options.compat !== 'cce-1.0';
    this.summarizerTimeoutMs = options.summarizerTimeoutMs ?? 0;
    const t0 = now();
    // UTF-16 strings where the entry has a fast native copy of them (Node), else WTF-8.
    const utf16 = requestUtf16Writer();
    // Written into wasm memory once: every round trip of the pending protocol reuses it. An async
    // run keeps its own copy of the bytes too: another call may re-create the engine meanwhile.
    this.request = encodeRequest(
      (out) => {
        out.word(utf16 ? COMPRESS_UTF16_MAGIC : COMPRESS_MAGIC);
        // The size build has no case tables: for fuzzy dedup it takes lower-cased texts from here.
        const lowered: (number | string)[] | undefined =
          options.fuzzyDedup && !engineLowersText() ? [] : undefined;
        // The default estimate bills tool calls: it reads their names and arguments from here.
        const billed = this.safe && !this.counter && (options.tokenEstimate ?? 'script') === 'script';
        const withCalls: [number, unknown[]][] = [];
        // Images are priced by their pixel size unless the caller set a price (docs/token-counts.md).
        const priceImages = this.safe && options.imageTokens == null;
        if (Array.isArray(input)) {
          out.word(input.length);
          let i = 0;
          try {
            for (; i < input.length; i++) {
              this.ids.push(encodeMessage(out, input[i], i, this.safe, lowered, priceImages));
              const calls = billed ? (input[i] as Obj | null)?.tool_calls : undefined;
              if (Array.isArray(calls) && calls.length > 0) withCalls.push([i, calls]);
            }
          } catch (error) {
            throw readFailed(error, 'compress', `/messages/${i}`);
          }
        } else {
          out.word(NOT_AN_ARRAY);
        }
        encodeOptions(out, options);
        if (lowered || withCalls.length > 0) {
          out.word(lowered ? lowered.length / 2 : 0);
          for (let k = 0; lowered && k < lowered.length; k += 2) {
            out.word(lowered[k] as number);
            out.string(lowered[k + 1] as string);
          }
        }
        if (withCalls.length > 0) {
          out.word(withCalls.length);
          for (const [i, calls] of withCalls) {
            out.word(i);
            out.word(calls.length);
            for (const call of calls) for (const text of toolCallTexts(call)) out.string(text);
          }
        }
      },
      summarizer !== undefined,
      utf16,
    );
    if (timings.enabled) timings.encodeMs += performance.now() - t0;
    if (summarizer) {
      this.host.summarizer = true;
      this.host.summaries = [];
    }
    if (this.counter) this.host.tokenCounter = true;
  }

  /** Frees the request's copy in wasm memory. */
  release(): void {
    this.request.release();
  }

  /**
   * Throws the engine's validation error before any callback runs: the reference's TypeErrors
   * (synchronously, as it does, even when compress returns a Promise) and, in the default mode,
   * the stricter checks. A run with no callbacks validates inside its only engine call.
   */
  validate(): void {
    const reference = validMessages(this.input);
    if (reference && !(this.safe && (this.counter || this.summarizer))) return;
    if (!reference) this.step(); // the engine reports the reference's TypeError text
    else this.step(true); // answers {valid: true} or the first error, without compressing
  }

  private step(validateOnly = false): Answer<CompressPlan, CompressPending> {
    const t0 = now();
    const host = this.host;
    const extra = validateOnly
      ? encodeWith(hostScratch, (out) => out.word(4))
      : host.summarizer || host.tokenCounter
        ? encodeWith(hostScratch, (out) => {
            out.word((host.summarizer ? 1 : 0) | (host.tokenCounter ? 2 : 0));
            if (host.summaries) {
              out.word(host.summaries.length);
              for (const text of host.summaries) {
                if (text === null) {
                  out.word(0);
                } else {
                  out.word(1);
                  out.string(text);
                }
              }
            }
            if (host.tokenCounter) {
              const inputCounts = host.inputCounts ?? [];
              out.word(inputCounts.length);
              for (const n of inputCounts) out.number(n);
              const at = out.reserve();
              let n = 0;
              for (const key in host.counts) {
                out.string(key);
                out.number(host.counts[key] as number);
                n++;
              }
              out.patch(at, n);
            }
          })
        : EMPTY;
    if (timings.enabled) timings.encodeMs += performance.now() - t0;
    return callEngine<CompressPlan, CompressPending>('compress', this.request, extra);
  }

  private count(message: Message): number {
    const counter = this.counter as TokenCounter;
    let value: unknown;
    try {
      value = counter(message);
    } catch (error) {
      throw new CompressError(
        'CallbackFailed',
        `compress(): tokenCounter threw: ${describeError(error)}`,
        '/options/tokenCounter',
        { cause: error },
      );
    }
    // The reference does arithmetic with whatever comes back; a negative count is accepted in
    // cce-1.0 mode, where the corpus pins its behaviour, and is a caller bug otherwise.
    if (typeof value !== 'number' || !Number.isFinite(value) || (this.safe && value < 0)) {
      throw new CompressError(
        'CallbackFailed',
        `compress(): tokenCounter must return a finite${this.safe ? ', non-negative' : ''} ` +
          `number (it returned ${describeValue(value)} for message ${String(message.id)})`,
        '/options/tokenCounter',
      );
    }
    return value;
  }

  private countInputs(): void {
    if (!this.counter || !validMessages(this.input)) return;
    const counts: number[] = [];
    let i = 0;
    try {
      for (; i < this.input.length; i++) {
        const m = this.input[i] as Message;
        counts.push(this.count(this.safe && Array.isArray(m.content) ? textView(m) : m));
      }
    } catch (error) {
      throw readFailed(error, 'compress', `/messages/${i}`);
    }
    this.host.inputCounts = counts;
    this.host.counts = {};
  }

  private message(entry: Entry): Message {
    try {
      if (!this.counter || typeof entry === 'number' || (entry.c === undefined && !entry.m)) {
        return build(this.input, this.fields, entry);
      }
      const key = JSON.stringify(entry);
      let m = this.counted.get(key);
      if (m === undefined) this.counted.set(key, (m = build(this.input, this.fields, entry)));
      return m;
    } catch (error) {
      // A spread of the caller's message: its getters and Proxy traps (ownKeys) run.
      throw readFailed(error, 'compress', `/messages/${typeof entry === 'number' ? entry : entry.s}`);
    }
  }

  private answerCounts(pending: CompressPending): void {
    const counts = this.host.counts as Record<string, number>;
    if (!pending.summaries?.length && pending.counts?.every(({ key }) => key in counts)) {
      throw new CompressError('Internal', 'cce-wasm: the engine asked again for answered counts');
    }
    for (const { key, message } of pending.counts ?? [])
      counts[key] = this.count(this.message(message));
  }

  runSync(): CompressResult {
    this.validate();
    this.countInputs();
    for (let answer = this.step(); ; answer = this.step()) {
      if (answer.plan) return this.result(answer.plan);
      const pending = expectPending(answer);
      if (pending.summaries?.length) {
        throw new CompressError(
          'Internal',
          'cce-wasm: the engine asked for summaries without a summarizer',
        );
      }
      this.answerCounts(pending);
    }
  }

  async runAsync(): Promise<CompressResult> {
    this.countInputs();
    const summarizer = this.summarizer as Summarizer;
    const summaries = this.host.summaries as Array<string | null>;
    for (let answer = this.step(); ; answer = this.step()) {
      if (answer.plan) return this.result(answer.plan);
      const pending = expectPending(answer);
      // Nothing of this run stays in wasm memory while the summarizer is pending (one that never
      // settles must not hold its request there): the next round copies the request in again.
      if (pending.summaries?.length) this.request.evict();
      // In request order, one at a time, like the reference's sequential awaits.
      for (const { text } of pending.summaries ?? []) {
        let reply: unknown = null;
        try {
          reply = await withTimeout(summarizer(text), this.summarizerTimeoutMs);
        } catch {
          // a throwing or rejecting summarizer falls back to the deterministic summary
        }
        if (reply === TIMED_OUT) {
          throw new CompressError(
            'Timeout',
            `compress(): the summarizer did not answer within ${this.summarizerTimeoutMs} ms`,
            '/options/summarizerTimeoutMs',
          );
        }
        summaries.push(typeof reply === 'string' ? reply : null);
      }
      this.answerCounts(pending);
    }
  }

  private result(plan: CompressPlan): CompressResult {
    const t0 = timings.enabled ? performance.now() : 0;
    let messages = this.input;
    if (!plan.fastPath) {
      messages = [];
      for (const entry of plan.messages) messages.push(this.message(entry));
    } else if (unchanged(this.given, this.input)) {
      messages = this.given; // as the reference: the input array itself (spec §13 example 12)
    }
    const verbatim: VerbatimMap = {};
    for (const [text, source, ensureMetadata] of plan.verbatim) {
      // The key is String(id) of the id the request carried: for a string id, that very string.
      // Keyed by it rather than by the answer's copy, the map reuses the hash V8 keeps on the
      // caller's string (a fresh copy is hashed and looked up in the string table anew: 1,784 of
      // them on the scale session, about half of this loop's time).
      const id = this.ids[source];
      const key = id === text ? (id as string) : text;
      let value = this.input[source] as Message;
      if (ensureMetadata) {
        try {
          value = cloneWithMetadata(this.fields[source] as Message);
        } catch (error) {
          throw readFailed(error, 'compress', `/messages/${source}`);
        }
      }
      // An id "__proto__" must become an own key, not the map's prototype.
      if (key === '__proto__') {
        Object.defineProperty(verbatim, key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        verbatim[key] = value;
      }
    }
    const result: CompressResult = { messages, compression: plan.compression, verbatim };
    if (plan.fits !== undefined) {
      result.fits = plan.fits;
      result.tokenCount = plan.tokenCount;
      result.recencyWindow = plan.recencyWindow;
      // The engine names blocking messages by id, or by input index when it had no objects.
      if (plan.blockingIds) result.blockingIds = plan.blockingIds;
      else if (plan.blocking)
        result.blockingIds = plan.blocking.map((i) => (this.input[i] as Message).id);
    }
    if (timings.enabled) timings.rebuildMs += performance.now() - t0;
    return result;
  }
}

/** Whether the caller's array still holds the elements read at call time. */
function unchanged(given: unknown, input: readonly unknown[]): boolean {
  try {
    if (!Array.isArray(given) || given.length !== input.length) return false;
    for (let i = 0; i < input.length; i++) if (given[i] !== input[i]) return false;
    return true;
  } catch {
    return false; // a Proxy whose traps throw now: the elements read at call time
  }
}

function expectPending<P extends CompressPending | UncompressPending>(
  answer: Answer<unknown, P>,
): P {
  const pending = answer.pending;
  const empty =
    !pending ||
    (!('ids' in pending && pending.ids?.length) &&
      !('summaries' in pending && pending.summaries?.length) &&
      !('counts' in pending && pending.counts?.length));
  if (empty)
    throw new CompressError('Internal', 'cce-wasm: the engine answered neither a plan nor work');
  return pending as P;
}

/**
 * Compresses a conversation: the same behaviour, options and result shape as
 * context-compression-engine 1.0.0. Synchronous without a summarizer, a Promise with one.
 * Unchanged messages are your own objects; compressed ones are shallow copies of them.
 *
 * @throws {CompressError} `InvalidInput` for the reference's TypeErrors (same message text), e.g.
 *   `compress(): messages[2] must be an object` — thrown synchronously even with a summarizer.
 * @example
 * const { messages, compression, verbatim } = compress(history, { recencyWindow: 4 });
 * const budgeted = await compress(history, { tokenBudget: 4000, summarizer: mySummarizer });
 */
export function compress(messages: Message[], options?: SyncCompressOptions): CompressResult;
export function compress(
  messages: Message[],
  options: AsyncCompressOptions,
): Promise<CompressResult>;
export function compress(
  messages: Message[],
  options?: CompressOptions,
): CompressResult | Promise<CompressResult>;
export function compress(
  messages: Message[],
  options?: CompressOptions,
): CompressResult | Promise<CompressResult> {
  return compressReadOptions(messages, readOptions(options));
}

/**
 * @internal compress() for options already read by readOptions (the Node entry's shortcut reads
 * them first): a second read would copy the copy, every option key included, on every call.
 */
export function compressReadOptions(
  messages: Message[],
  opts: CompressOptions,
): CompressResult | Promise<CompressResult> {
  const clearing = readClearing(opts as Obj, 'compress()');
  if (clearing) return clearThenCompress(messages, opts, clearing, compressReadOptions);
  const summarizer = opts.summarizer ? (opts.summarizer as Summarizer) : undefined;
  const counter = opts.tokenCounter as unknown;
  if (counter != null && typeof counter !== 'function') {
    throw new CompressError(
      'InvalidInput',
      'compress(): options.tokenCounter must be a function',
      '/options/tokenCounter',
    );
  }
  const timeout = opts.summarizerTimeoutMs as unknown;
  if (timeout != null && !(typeof timeout === 'number' && Number.isFinite(timeout) && timeout >= 0)) {
    throw new CompressError(
      'InvalidInput',
      'compress(): options.summarizerTimeoutMs must be a non-negative number of milliseconds',
      '/options/summarizerTimeoutMs',
    );
  }
  let run: CompressRun | undefined;
  let pending: Promise<CompressResult> | undefined;
  enterCall();
  try {
    run = new CompressRun(messages, opts, summarizer);
    if (!summarizer) return run.runSync();
    run.validate();
    const async = run;
    // Its first round runs now, inside this call; later rounds run after the summarizer answered.
    pending = run.runAsync().finally(() => {
      async.release();
      shrinkIfIdle();
    });
    return pending;
  } finally {
    if (pending === undefined) run?.release();
    leaveCall();
  }
}

// ---- uncompress --------------------------------------------------------------------------------

interface UncompressPlan {
  /** An index into the request's messages, or a store key. */
  messages: Array<number | { k: string }>;
  messages_expanded: number;
  messages_passthrough: number;
  /** [kind, String(id)]: the kinds of the request's scalars. */
  missing_ids: Array<[number, string]>;
}

interface UncompressPending {
  ids?: string[];
}

// Uncompress flags of the bytes request (docs/boundary.md).
const JSON_NULL = 1; // an element JSON would write as null: the engine reports it
const FALSY = 1; // a store entry the lookup answered with a falsy value: missing

/** Only `metadata._cce_original.ids` (a non-empty array) matters to uncompress. */
function encodeOriginal(out: Encoder, message: unknown, nullFlag: number): void {
  if (typeof message !== 'object' || message === null) {
    out.word(jsonNull(message) ? nullFlag : 0);
    return;
  }
  const metadata = (message as Obj).metadata as Obj | undefined;
  const original = metadata ? (metadata._cce_original as Obj | undefined) : undefined;
  const ids = original ? original.ids : undefined;
  if (Array.isArray(ids) && ids.length > 0) {
    out.word(IDS);
    encodeIds(out, ids);
  } else {
    out.word(0);
  }
}

/** A missing id as the caller gave it, rebuilt from its kind and text. */
function missingId([kind, text]: [number, string]): unknown {
  switch (kind) {
    case 2:
      return text === 'true';
    case 3:
      return Number(text);
    case 4:
    case 5:
      return text;
    default:
      return null;
  }
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Restores the originals of compressed messages from a `verbatim` map (or a lookup function).
 * Originals are returned as the very objects the store holds.
 *
 * @example
 * const restored = uncompress(result.messages, result.verbatim).messages;
 */
export function uncompress(
  messages: Message[],
  store: VerbatimMap | StoreLookup,
  options?: UncompressOptions,
): UncompressResult {
  let recursive: boolean;
  try {
    recursive = Boolean(options?.recursive);
  } catch (error) {
    throw readFailed(error, 'uncompress', '/options/recursive');
  }
  const input = readMessages(messages, MAX_WASM_BYTES, 'uncompress') as Message[];
  const storeValue = store as unknown;
  let lookup: ((key: string) => unknown) | undefined;
  if (typeof storeValue === 'function') {
    lookup = (key) => {
      try {
        return (storeValue as (id: unknown) => unknown)(key);
      } catch (error) {
        throw new CompressError(
          'CallbackFailed',
          `uncompress(): the store lookup threw for id ${key}: ${describeError(error)}`,
          '/store',
          { cause: error },
        );
      }
    };
  } else if (typeof storeValue === 'object' && storeValue !== null) {
    // Own keys only: the native build cannot see prototype members either.
    lookup = (key) => {
      try {
        return hasOwn.call(storeValue, key) ? (storeValue as Obj)[key] : undefined;
      } catch (error) {
        throw readFailed(error, 'uncompress', `/store/${key}`);
      }
    };
  }
  enterCall();
  try {
    return uncompressWith(input, lookup, recursive);
  } finally {
    leaveCall();
  }
}

function uncompressWith(
  messages: Message[],
  lookup: ((key: string) => unknown) | undefined,
  recursive: boolean,
): UncompressResult {
  const t0 = now();
  // Synchronous: nothing runs between its round trips but the caller's lookup.
  const request = encodeRequest((out) => {
    out.word(UNCOMPRESS_MAGIC);
    if (Array.isArray(messages)) {
      out.word(messages.length);
      let i = 0;
      try {
        for (; i < messages.length; i++) encodeOriginal(out, messages[i], JSON_NULL);
      } catch (error) {
        throw readFailed(error, 'uncompress', `/messages/${i}`);
      }
    } else {
      out.word(NOT_AN_ARRAY);
    }
    out.word(lookup ? 1 : 0);
    out.word(recursive ? 1 : 0);
  }, false);
  if (timings.enabled) timings.encodeMs += performance.now() - t0;
  // The store crosses lazily: the engine names the ids it needs (pending), the host answers them.
  const answered = new Map<string, unknown>(); // key -> the looked-up value (falsy: missing)
  try {
    for (;;) {
      const extra =
        answered.size === 0
          ? EMPTY
          : encodeWith(hostScratch, (out) => {
              out.word(answered.size);
              for (const [key, value] of answered) {
                out.string(key);
                try {
                  if (!value || jsonNull(value)) out.word(FALSY);
                  else encodeOriginal(out, value, FALSY);
                } catch (error) {
                  throw readFailed(error, 'uncompress', `/store/${key}`);
                }
              }
            });
      const answer = callEngine<UncompressPlan, UncompressPending>('uncompress', request, extra);
      if (answer.plan) {
        const plan = answer.plan;
        const out: Message[] = [];
        for (const e of plan.messages)
          out.push((typeof e === 'number' ? messages[e] : answered.get(e.k)) as Message);
        return {
          messages: out,
          messages_expanded: plan.messages_expanded,
          messages_passthrough: plan.messages_passthrough,
          missing_ids: plan.missing_ids.map(missingId) as string[],
        };
      }
      const pending = expectPending(answer);
      if (pending.ids?.every((id) => answered.has(String(id)))) {
        throw new CompressError('Internal', 'cce-wasm: the engine asked again for answered ids');
      }
      for (const id of pending.ids ?? []) {
        const key = String(id);
        answered.set(key, (lookup as (key: string) => unknown)(key));
      }
    }
  } finally {
    request.release();
  }
}

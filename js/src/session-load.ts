// SPDX-License-Identifier: MIT
// The session modules (context manager, compaction): JSON calls, one instance per module.
//
// Each entry loads the module it runs (cce-context.wasm, cce-compaction.wasm; cce-session.wasm,
// with both, for cce-wasm/session/init and workerd) through that module's own glue, which the
// entry imports and hands over here, so this file imports no glue.
import type { CceSessionModule } from './cce-session.mjs';
import { CompressError, type ErrorCode } from './errors.js';
import { hostParseJson, NotValueBytes, writeValueBytes } from './value-bytes.js';
import { createLoader, type InitOptions, type Loader, type ModuleArg } from './wasm-load.js';

/** @internal A session entry point: the export a module must have to serve it. */
export type SessionEntry = 'contextJson' | 'compactionJson';
/** @internal A session module's Emscripten factory (its glue's default export). */
export type SessionFactory = (arg: ModuleArg) => Promise<CceSessionModule>;

/** The module export that serves each entry point. */
const exportOf = { contextJson: '_contextRequest', compactionJson: '_compactionRequest' } as const;

const loaders = new Map<SessionFactory, Loader<CceSessionModule>>();
/** Which loaded (or loading) module serves each entry point. */
const serving: { [E in SessionEntry]?: Loader<CceSessionModule> } = {};

/**
 * @internal Loads the module of `factory`, which serves `entries`, once; later calls for the same
 * module share the first load. An entry point keeps the module that served it first, unless that
 * one never loaded (a failed fetch: then init() from cce-wasm/session/init can still supply one).
 */
export function loadSession(
  factory: SessionFactory,
  entries: readonly SessionEntry[],
  source: InitOptions | (() => Promise<WebAssembly.Module>),
): Promise<void> {
  return loaderFor(factory, entries).load(source);
}

/** @internal {@link loadSession} from a compiled Module, synchronously (the Node entries, which
 * have no top-level await so that CommonJS code can require() them). */
export function loadSessionSync(
  factory: SessionFactory,
  entries: readonly SessionEntry[],
  module: WebAssembly.Module,
): void {
  loaderFor(factory, entries).loadSync(module);
}

function loaderFor(
  factory: SessionFactory,
  entries: readonly SessionEntry[],
): Loader<CceSessionModule> {
  let loader = loaders.get(factory);
  if (loader === undefined) {
    loader = createLoader<CceSessionModule>({
      factory: factory as (arg: object) => Promise<CceSessionModule>,
      ready: (module) => entries.every((entry) => typeof module[exportOf[entry]] === 'function'),
      name: 'the session engine',
      use: 'the context manager or compaction functions',
      init: 'init() from cce-wasm/session/init',
    });
    loaders.set(factory, loader);
  }
  for (const entry of entries) {
    if (!(serving[entry]?.isLoaded() ?? false)) serving[entry] = loader;
  }
  return loader;
}

function loaderOf(entry: SessionEntry): Loader<CceSessionModule> {
  const loader = serving[entry];
  if (loader === undefined) {
    throw new CompressError(
      'Internal',
      'cce-wasm: the session engine is not loaded; call init() from cce-wasm/session/init first',
    );
  }
  return loader;
}

/** @internal The live instance of the context manager's module (re-created after a trap): states
 * held by handle live in one instance, so a manager compares it with the one it opened its state
 * in. */
export const sessionInstance = (): CceSessionModule => loaderOf('contextJson').engine();
/** @internal The same, if any, without re-creating one. */
export const currentSessionInstance = (): CceSessionModule | undefined =>
  serving.contextJson?.currentEngine();

/** @internal Bytes of value requests sent to the session module and UTF-16 units of answers
 * received from it so far (tests count what crosses the boundary per call). */
export const sessionTraffic = { sent: 0, received: 0 };

/** @internal The engine's answer: the output, or what the host must answer first. */
export type SessionAnswer<Output, Pending> =
  | { output: Output; pending?: undefined }
  | { pending: Pending; output?: undefined };

interface Envelope {
  ok: boolean;
  output?: unknown;
  pending?: unknown;
  error?: { code: ErrorCode; message: string; path?: string };
}

/**
 * @internal Runs one session entry point on `request` (any value JSON.stringify accepts) and
 * returns its output or pending answer; engine errors become CompressError, a trap drops the
 * instance. `plain`: the request is a JSON value already (JSON.parse's kinds only, with
 * undefined members at most), so it needs no JSON round trip before it is written.
 */
export function callSession<Output, Pending = never>(
  entry: 'contextJson' | 'compactionJson',
  request: object,
  caller: string,
  plain = false,
): SessionAnswer<Output, Pending> {
  // A request is an object, so it always has a JSON text (or a typed error): its JSON value is
  // what the engine reads.
  const value = plain ? request : JSON.parse(jsonTextOf(request, caller) as string);
  const loader = loaderOf(entry);
  const raw = loader.engine();
  let answer: string;
  try {
    answer = runEntry(raw, entry, value);
  } catch (error) {
    if (error instanceof NotValueBytes) {
      throw new CompressError('InputTooLarge', `${caller}: ${error.message}`, '');
    }
    loader.dropInstance(); // after a trap the heap is not trustworthy; the next call re-creates it
    throw new CompressError(
      'Internal',
      `cce-wasm: the session engine trapped (${describe(error)}); ` +
        'it is re-created on the next call',
      '',
      { cause: error },
    );
  }
  sessionTraffic.received += answer.length;
  const envelope = JSON.parse(answer) as Envelope;
  if (!envelope.ok) {
    const error = envelope.error ?? { code: 'Internal' as const, message: 'malformed answer' };
    throw new CompressError(error.code, error.message, error.path);
  }
  return envelope.pending !== undefined
    ? { pending: envelope.pending as Pending }
    : { output: envelope.output as Output };
}

const decoder = new TextDecoder();

/**
 * One call of a plain export: the request's value bytes go into memory the module allocates (and
 * frees after the call), the answer is read where the two words the call returns locate it.
 */
function runEntry(
  raw: CceSessionModule,
  entry: 'contextJson' | 'compactionJson',
  value: unknown,
): string {
  // The engine parses tool-call arguments with this (wasm/host_json.cpp); a re-created instance
  // is a new module object, so it is set wherever it is missing.
  raw.parseJsonText ??= (text, length) => hostParseJson(raw, text, length);
  const [pointer, length] = writeValueBytes(raw, value);
  sessionTraffic.sent += length;
  const call = entry === 'contextJson' ? raw._contextRequest : raw._compactionRequest;
  const at = call(pointer, length);
  // Freed only after a call that returned: after a trap the instance is dropped whole.
  raw._free(pointer);
  const heap = raw.HEAPU32; // re-read: the call may have grown memory
  const start = heap[at >>> 2] as number;
  const bytes = heap[(at >>> 2) + 1] as number;
  return decoder.decode(raw.HEAPU8.subarray(start, start + bytes));
}

/** @internal Makes the session engine execute `unreachable` (tests of trap recovery): the
 * context manager's module, or compaction's when only that one is loaded. */
export function debugSessionTrap(): void {
  const loader = serving.contextJson ?? loaderOf('compactionJson');
  const raw = loader.engine();
  try {
    raw._debugTrap();
  } catch (error) {
    loader.dropInstance();
    throw new CompressError('Internal', `cce-wasm: the session engine trapped`, '', {
      cause: error,
    });
  }
}

/**
 * @internal The JSON text of a caller's value, as the session engines read their requests: a
 * value JSON cannot carry (a BigInt, a cycle) is a typed error naming the caller.
 */
export function jsonTextOf(value: unknown, caller: string): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    // BigInt values and cycles: JSON cannot carry them.
    throw new CompressError(
      'InvalidInput',
      `${caller}: the input is not JSON-serialisable (${describe(error)})`,
      '',
      { cause: error },
    );
  }
}

/** @internal A JSON copy of a caller's value (what the engine would keep of it), read once. */
export function jsonCopy<T>(value: unknown, caller: string): T | undefined {
  const text = jsonTextOf(value, caller);
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}

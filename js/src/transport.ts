// SPDX-License-Identifier: MIT
// The only caller of the raw module: request -> JSON -> wasm -> envelope, with trap recovery.
import type { CceModule } from './cce.mjs';
import { CompressError, type ErrorCode } from './errors.js';
import { dropInstance, engine } from './load.js';

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
  stringifyMs: 0,
  copyInMs: 0,
  wasmMs: 0,
  parseMs: 0,
  rebuildMs: 0,
  reset(): void {
    this.calls = this.stringifyMs = this.copyInMs = this.wasmMs = this.parseMs = this.rebuildMs = 0;
  },
};

/** @internal Every function EMSCRIPTEN_BINDINGS registers (js/test/bindings.test.mjs checks it). */
export const RAW_FUNCTIONS = [
  'compressJson',
  'uncompressJson',
  'compressBytes',
  'uncompressBytes',
  'errorCodesJson',
  'version',
  'debugTrap',
] as const satisfies ReadonlyArray<keyof CceModule>;

const encoder = new TextEncoder();
const now = () => (timings.enabled ? performance.now() : 0);

/**
 * One stateless engine call. Lone surrogates are safe: JSON.stringify writes them as `\udXXX`
 * escapes, the engine's parser keeps them, and its writer escapes them again.
 */
export function callEngine<Plan, Pending>(
  kind: 'compress' | 'uncompress',
  request: object,
): Answer<Plan, Pending> {
  const t0 = now();
  const json = JSON.stringify(request);
  const t1 = now();
  const raw = engine();
  let copyInEnd = 0;
  let text: string;
  try {
    text = invoke(raw, kind, json, () => (copyInEnd = now()));
  } catch (error) {
    if (error instanceof CompressError) throw error;
    dropInstance(); // after a trap the heap is not trustworthy; the next call re-instantiates
    throw new CompressError(
      'Internal',
      `cce-wasm: the engine trapped (${error instanceof Error ? error.message : String(error)}); ` +
        'it is re-created on the next call',
      '',
      { cause: error },
    );
  }
  const t2 = now();
  const envelope = JSON.parse(text) as Envelope<Plan, Pending>;
  if (timings.enabled) {
    const t3 = performance.now();
    timings.calls += 1;
    timings.stringifyMs += t1 - t0;
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

// Copies the request into the heap with encodeInto (about 2x faster than embind's std::string
// marshalling on multi-MB requests), then calls the byte variant of the entry point.
function invoke(raw: CceModule, kind: 'compress' | 'uncompress', json: string, copied: () => void) {
  const capacity = json.length * 3; // UTF-8 bytes per UTF-16 code unit, at most
  const pointer = raw._malloc(capacity);
  if (pointer === 0) {
    throw new CompressError(
      'InputTooLarge',
      `cce-wasm: the request needs ${capacity} bytes of wasm memory, more than is available`,
    );
  }
  const { written } = encoder.encodeInto(json, raw.HEAPU8.subarray(pointer, pointer + capacity));
  copied();
  const out =
    kind === 'compress'
      ? raw.compressBytes(pointer, written)
      : raw.uncompressBytes(pointer, written);
  raw._free(pointer); // skipped after a trap: that heap is dropped with its instance
  return out;
}

/** @internal The engine's version string. */
export function engineVersion(): string {
  return engine().version();
}

/** @internal The engine's error vocabulary (tests compare it with ERROR_CODES). */
export function engineErrorCodes(): string[] {
  return JSON.parse(engine().errorCodesJson()) as string[];
}

/** @internal Makes the engine execute `unreachable` (tests of trap recovery). */
export function debugTrap(): void {
  const raw = engine();
  try {
    raw.debugTrap();
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

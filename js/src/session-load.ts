// SPDX-License-Identifier: MIT
// The session module (cce-session.wasm: context manager, compaction): one instance, JSON calls.
import createCceSessionModule, { type CceSessionModule } from './cce-session.mjs';
import { CompressError, type ErrorCode } from './errors.js';
import { createLoader } from './wasm-load.js';

const loader = createLoader<CceSessionModule>({
  factory: createCceSessionModule as (arg: object) => Promise<CceSessionModule>,
  ready: (module) => typeof module.contextJson === 'function',
  name: 'the session engine',
  use: 'the context manager or compaction functions',
  init: 'init() from cce-wasm/session/init',
});

/** @internal Loads the session module once; later calls share the first load. */
export const loadSession = loader.load;
/** @internal True once the session module can be used synchronously. */
export const isSessionLoaded = loader.isLoaded;

/** @internal The live session instance (re-created after a trap): states held by handle live in
 * one instance, so a manager compares it with the one it opened its state in. */
export const sessionInstance = loader.engine;
/** @internal The live session instance, if any, without re-creating one. */
export const currentSessionInstance = loader.currentEngine;

/** @internal UTF-16 units sent to and received from the session module so far (tests count
 * what crosses the boundary per call). */
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
 * @internal Serialises `request` (a plain JSON value), runs one session entry point and returns
 * its output or pending answer; engine errors become CompressError, a trap drops the instance.
 */
export function callSession<Output, Pending = never>(
  entry: 'contextJson' | 'compactionJson',
  request: object,
  caller: string,
): SessionAnswer<Output, Pending> {
  let text: string;
  try {
    text = JSON.stringify(request);
  } catch (error) {
    // BigInt values and cycles: JSON cannot carry them.
    throw new CompressError(
      'InvalidInput',
      `${caller}: the input is not JSON-serialisable (${describe(error)})`,
      '',
      { cause: error },
    );
  }
  const raw = loader.engine();
  let answer: string;
  sessionTraffic.sent += text.length;
  try {
    answer = raw[entry](text);
  } catch (error) {
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

/** @internal Makes the session engine execute `unreachable` (tests of trap recovery). */
export function debugSessionTrap(): void {
  const raw = loader.engine();
  try {
    raw.debugTrap();
  } catch (error) {
    loader.dropInstance();
    throw new CompressError('Internal', `cce-wasm: the session engine trapped`, '', {
      cause: error,
    });
  }
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}

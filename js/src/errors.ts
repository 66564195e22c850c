// SPDX-License-Identifier: MIT
// The one error vocabulary of the engine, as a typed JS exception.

/**
 * Every error code the engine can report; equal to the C++ `ErrorCode` names (a test checks it).
 * - `InvalidJson`: a request is not JSON (not reachable through this API unless it has a bug).
 * - `InvalidInput`: bad arguments; the reference's `TypeError` cases keep their exact text.
 * - `InputTooLarge`: over a size or depth limit, or the wasm heap is exhausted.
 * - `BudgetTooSmall`: the configuration leaves no tokens for the conversation (context manager).
 * - `CallbackFailed`: your token counter or store lookup threw (the error is the `cause`) or
 *   returned something that is not a finite (in the default mode: non-negative) number.
 * - `Timeout`: the summarizer did not settle within `options.summarizerTimeoutMs`.
 * - `Internal`: a bug or a wasm trap (the instance is then re-created on the next call).
 */
export const ERROR_CODES = [
  'InvalidJson',
  'InvalidInput',
  'InputTooLarge',
  'BudgetTooSmall',
  'CallbackFailed',
  'Timeout',
  'Internal',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Thrown by `compress` / `uncompress` (and `init`) for every failure. Exceptions thrown by your
 * own callbacks (token counter, store lookup) arrive as `CallbackFailed` with the original as
 * `cause`; a summarizer that throws or rejects is not an error (that summary falls back).
 *
 * @example
 * try { compress(messages) } catch (e) {
 *   if (e instanceof CompressError && e.code === 'InvalidInput') console.log(e.path, e.message);
 * }
 */
export class CompressError extends Error {
  /** Machine-readable kind of failure. */
  readonly code: ErrorCode;
  /** JSON pointer into the call's arguments (e.g. `/messages/3`), when the error has a place. */
  readonly path: string | undefined;

  constructor(code: ErrorCode, message: string, path?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CompressError';
    this.code = code;
    this.path = path === '' ? undefined : path;
  }
}

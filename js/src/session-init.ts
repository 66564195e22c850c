// SPDX-License-Identifier: MIT
// `cce-wasm/session/init`: context manager and compaction with explicit loading (Workers, Deno).
import createCceSessionModule from './cce-session.mjs';
import { loadSession } from './session-load.js';
import { fetchBeside, type InitOptions } from './wasm-load.js';

export * from './context-api.js';
export * from './compaction-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';
export type { InitOptions } from './wasm-load.js';

/**
 * Loads the session engine (cce-session.wasm); the context manager and the compaction functions
 * work once the promise resolves. Later calls resolve at once (the first source wins). Without
 * options it fetches `cce-session.wasm` beside this module.
 *
 * @example
 * // Cloudflare Workers: the wasm arrives as a compiled module
 * import wasmModule from 'cce-wasm/cce-session.wasm';
 * import { init, createContextManager } from 'cce-wasm/session/init';
 * await init({ wasmModule });
 * @example
 * await init({ wasmBinary: await fs.readFile('node_modules/cce-wasm/dist/cce-session.wasm') });
 */
export function init(options?: InitOptions): Promise<void> {
  const entries = ['contextJson', 'compactionJson'] as const;
  if (options !== undefined) return loadSession(createCceSessionModule, entries, options);
  return loadSession(
    createCceSessionModule,
    entries,
    fetchBeside(() => new URL('./cce-session.wasm', import.meta.url)),
  );
}

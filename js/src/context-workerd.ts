// SPDX-License-Identifier: MIT
// `cce-wasm/context` under Cloudflare workerd: cce-session.wasm arrives as a compiled module import
// (see workerd.ts), so the entry is ready on import.
import sessionWasm from './cce-session.wasm';
import createCceSessionModule from './cce-session.mjs';
import { loadSession } from './session-load.js';

export * from './context-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

await loadSession(createCceSessionModule, ['contextJson', 'compactionJson'], {
  wasmModule: sessionWasm,
});

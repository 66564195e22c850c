// SPDX-License-Identifier: MIT
// Lets `import ... from './cce-compaction.mjs'` (the glue of cce-compaction.wasm, copied into dist/) type-check:
// the session module's types (wasm/cce_session.d.ts); this build exports _compactionRequest only.
export * from '../../wasm/cce_session.js';
export { default } from '../../wasm/cce_session.js';

// SPDX-License-Identifier: MIT
// Lets `import ... from './cce-session.mjs'` (the session glue copied into dist/) type-check.
export * from '../../wasm/cce_session.js';
export { default } from '../../wasm/cce_session.js';

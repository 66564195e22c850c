// SPDX-License-Identifier: MIT
// `cce-wasm/compaction` under Node (the "node" export condition): reads cce-session.wasm from disk.
import './session-node.js';

export * from './compaction-api.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';

// SPDX-License-Identifier: MIT
// `cce-wasm/ai-sdk` under Node: the Node entry (which loads the speed build) first.
import './node.js';

export * from './ai-sdk.js';

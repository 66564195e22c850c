// SPDX-License-Identifier: MIT
// `cce-wasm/ai-sdk` under Cloudflare workerd: the workerd entry (the wasm as a module import) first.
import './workerd.js';

export * from './ai-sdk.js';

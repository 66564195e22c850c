// SPDX-License-Identifier: MIT
// `cce-wasm/langchain` under Cloudflare workerd: the workerd entry (the wasm as a module import) first.
import './workerd.js';

export * from './langchain.js';

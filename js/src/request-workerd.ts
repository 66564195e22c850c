// SPDX-License-Identifier: MIT
// `cce-wasm/request` under Cloudflare workerd: the workerd entry (the wasm as a module import) first.
import './workerd.js';

export * from './request.js';

// SPDX-License-Identifier: MIT
// `cce-wasm/formats` under Cloudflare workerd: the workerd entry (the wasm as a compiled module
// import, ready on import) plus compress / uncompress / validate for every provider's format.
import './workerd.js';

export * from './formats.js';

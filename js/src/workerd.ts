// SPDX-License-Identifier: MIT
// Default entry under Cloudflare workerd (the "workerd" export condition, which wrangler resolves):
// Workers forbid compiling wasm from bytes and have no URL to fetch it from, so the wasm arrives
// as a compiled module import (wrangler's default rule for *.wasm) and `compress` is ready on
// import, with no init() to call.
import wasmModule from './cce.wasm';
import { load } from './load.js';

export * from './api.js';

await load({ wasmModule });

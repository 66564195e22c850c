// SPDX-License-Identifier: MIT
// Types of `import wasmModule from 'cce-wasm/cce.wasm'` (Cloudflare Workers and bundlers that
// import wasm as a compiled module); copied to dist/cce.wasm.d.ts by `npm run build:js`.
declare const wasmModule: WebAssembly.Module;
export default wasmModule;

// SPDX-License-Identifier: MIT
// Explicit-init entry for Cloudflare Workers, Deno and custom loading: nothing happens at import.
import { load, type InitOptions } from './load.js';
import { fetchBeside } from './wasm-load.js';

export * from './api.js';
export type { InitOptions } from './load.js';

/**
 * Loads the engine; `compress` and `uncompress` work once the promise resolves. Later calls
 * resolve at once (the first source wins). Without options it fetches `cce.wasm` beside this
 * module, which needs a runtime where `import.meta.url` is a fetchable URL.
 *
 * @example
 * // Cloudflare Workers: the wasm arrives as a compiled module (compiling bytes is forbidden there)
 * import wasmModule from 'cce-wasm/cce.wasm';
 * import { init, compress } from 'cce-wasm/init';
 * await init({ wasmModule });
 * @example
 * await init({ wasmBinary: await fs.readFile('node_modules/cce-wasm/dist/cce.wasm') });
 * await init({ wasmUrl: 'https://example.com/assets/cce.wasm' });
 */
export function init(options?: InitOptions): Promise<void> {
  if (options !== undefined) return load(options);
  return load(fetchBeside(() => new URL('./cce.wasm', import.meta.url)));
}

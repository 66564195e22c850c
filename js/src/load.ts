// SPDX-License-Identifier: MIT
// Instantiates the wasm once (from bytes, a compiled Module or a URL); re-creates it after a trap.
import createCceModule, { type CceModule } from './cce.mjs';
import { compileResponse as compileFetched, createLoader } from './wasm-load.js';

export type { InitOptions } from './wasm-load.js';

/** @internal Compiles a fetched wasm, streaming when the server sends `application/wasm`. */
export const compileResponse = compileFetched;

const loader = createLoader<CceModule>({
  factory: createCceModule as (arg: object) => Promise<CceModule>,
  ready: (module) => typeof module.compressBytes === 'function',
  name: 'the engine',
  use: 'compress()',
  init: 'init() from cce-wasm/init',
});

/** @internal Loads the engine once; later calls share the first load (whatever their source). */
export const load = loader.load;
/** @internal Loads the engine from a compiled Module, synchronously (the Node entry). */
export const loadSync = loader.loadSync;
/** @internal The live instance; re-instantiated synchronously after a trap dropped it. */
export const engine = loader.engine;
/** @internal The live instance, if any, without re-creating one. */
export const currentEngine = loader.currentEngine;
/** @internal Forgets the instance: memory after a trap is not trustworthy. */
export const dropInstance = loader.dropInstance;
/** @internal True once an instance exists or can be re-created synchronously. */
export const isLoaded = loader.isLoaded;

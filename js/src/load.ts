// SPDX-License-Identifier: MIT
// Instantiates the wasm once (from bytes, a compiled Module or a URL); re-creates it after a trap.
import createCceModule, { type CceModule, type CceModuleArg } from './cce.mjs';
import { CompressError } from './errors.js';

/**
 * Where `init` gets the engine from; give exactly one. `wasmModule` is what Cloudflare Workers
 * hand you for `import wasm from 'cce-wasm/cce.wasm'` (they forbid compiling wasm from bytes).
 */
export type InitOptions =
  | { wasmModule: WebAssembly.Module & object; wasmBinary?: never; wasmUrl?: never }
  | { wasmBinary: ArrayBuffer | ArrayBufferView; wasmModule?: never; wasmUrl?: never }
  | { wasmUrl: string | URL; wasmModule?: never; wasmBinary?: never };

let compiled: WebAssembly.Module | undefined;
let instance: CceModule | undefined;
let loading: Promise<void> | undefined;
let reloading: Promise<void> | undefined;

/** @internal Loads the engine once; later calls share the first load (whatever their source). */
export function load(source: InitOptions | (() => Promise<WebAssembly.Module>)): Promise<void> {
  if (compiled) return Promise.resolve();
  loading ??= (async () => {
    const module = typeof source === 'function' ? await source() : await compile(source);
    instance = await instantiate(module);
    compiled = module;
  })().catch((error: unknown) => {
    loading = undefined; // a failed load may be retried, e.g. with another source
    throw error instanceof CompressError
      ? error
      : new CompressError('Internal', `cce-wasm: cannot load the engine: ${describe(error)}`, '', {
          cause: error,
        });
  });
  return loading;
}

/** @internal The live instance; re-instantiated synchronously after a trap dropped it. */
export function engine(): CceModule {
  if (instance) return instance;
  if (compiled) {
    try {
      return (instance = instantiateSync(compiled));
    } catch (error) {
      // A host that refuses synchronous instantiation gets the new instance asynchronously.
      const module = compiled;
      reloading ??= instantiate(module)
        .then((fresh) => void (instance = fresh))
        .catch(() => {})
        .finally(() => (reloading = undefined));
      throw error;
    }
  }
  throw new CompressError(
    'Internal',
    loading
      ? 'cce-wasm: the engine is still loading; await init() before calling compress()'
      : 'cce-wasm: the engine is not loaded; call init() from cce-wasm/init first',
  );
}

/** @internal The live instance, if any, without re-creating one. */
export function currentEngine(): CceModule | undefined {
  return instance;
}

/** @internal Forgets the instance: memory after a trap is not trustworthy. */
export function dropInstance(): void {
  instance = undefined;
}

/** @internal True once an instance exists or can be re-created synchronously. */
export function isLoaded(): boolean {
  return compiled !== undefined;
}

async function compile(options: InitOptions): Promise<WebAssembly.Module> {
  if (options === null || typeof options !== 'object') {
    throw new CompressError(
      'InvalidInput',
      'init(): expected { wasmModule | wasmBinary | wasmUrl }',
    );
  }
  if (options.wasmModule !== undefined) {
    if (!(options.wasmModule instanceof WebAssembly.Module)) {
      throw new CompressError('InvalidInput', 'init(): wasmModule must be a WebAssembly.Module');
    }
    return options.wasmModule;
  }
  if (options.wasmBinary !== undefined)
    return WebAssembly.compile(options.wasmBinary as BufferSource);
  if (options.wasmUrl !== undefined) return compileResponse(await fetch(options.wasmUrl));
  throw new CompressError('InvalidInput', 'init(): expected { wasmModule | wasmBinary | wasmUrl }');
}

/** @internal Compiles a fetched wasm, streaming when the server sends `application/wasm`. */
export async function compileResponse(response: Response): Promise<WebAssembly.Module> {
  if (!response.ok) {
    throw new CompressError(
      'Internal',
      `cce-wasm: fetching ${response.url} failed: HTTP ${response.status}`,
    );
  }
  if (typeof WebAssembly.compileStreaming === 'function') {
    const fallback = response.clone(); // compileStreaming rejects any other Content-Type
    try {
      return await WebAssembly.compileStreaming(response);
    } catch {
      return WebAssembly.compile(await fallback.arrayBuffer());
    }
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

function moduleArg(instantiateWasm: CceModuleArg['instantiateWasm']): CceModuleArg {
  const quiet = () => {}; // the abort text reaches the caller inside the CompressError instead
  return { locateFile: (path) => path, print: quiet, printErr: quiet, instantiateWasm };
}

// The glue initialises synchronously when instantiateWasm does, so a trapped instance can be
// replaced inside the next (synchronous) compress() call.
function instantiateSync(module: WebAssembly.Module): CceModule {
  let failure: unknown;
  const arg = moduleArg((imports, receiveInstance) => {
    try {
      const wasm = new WebAssembly.Instance(module, imports);
      receiveInstance(wasm, module);
      return wasm.exports;
    } catch (error) {
      failure = error; // the glue would only log it and never finish
      throw error;
    }
  });
  createCceModule(arg).catch(() => {}); // its ready promise rejects again on any later abort
  const raw = arg as CceModule;
  if (failure !== undefined || typeof raw.compressBytes !== 'function') {
    throw new CompressError(
      'Internal',
      `cce-wasm: cannot instantiate the engine: ${describe(failure)}`,
      '',
      { cause: failure },
    );
  }
  return raw;
}

async function instantiate(module: WebAssembly.Module): Promise<CceModule> {
  try {
    return instantiateSync(module);
  } catch {
    // Some hosts refuse synchronous instantiation (browser main threads did for large modules).
  }
  return new Promise<CceModule>((resolve, reject) => {
    const arg = moduleArg((imports, receiveInstance) => {
      // .catch, not a second .then argument: a throw inside receiveInstance must reject too.
      WebAssembly.instantiate(module, imports)
        .then((wasm) => receiveInstance(wasm, module))
        .catch(reject); // 3.1.6 would otherwise leave its ready promise pending forever
      return {};
    });
    arg.onAbort = (what) =>
      reject(new CompressError('Internal', `cce-wasm: aborted: ${describe(what)}`));
    createCceModule(arg).then(() => resolve(arg as CceModule), reject);
  });
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}

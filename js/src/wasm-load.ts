// SPDX-License-Identifier: MIT
// Loading an Emscripten module (from bytes, a compiled Module or a URL) and re-creating it after a
// trap; shared by the compress module (load.ts) and the session module (session-load.ts).
import type { CceModuleArg } from './cce.mjs';
import { CompressError } from './errors.js';

/**
 * Where `init` gets the engine from; give exactly one. `wasmModule` is what Cloudflare Workers
 * hand you for `import wasm from 'cce-wasm/cce.wasm'` (they forbid compiling wasm from bytes).
 */
export type InitOptions =
  | { wasmModule: WebAssembly.Module & object; wasmBinary?: never; wasmUrl?: never }
  | { wasmBinary: ArrayBuffer | ArrayBufferView; wasmModule?: never; wasmUrl?: never }
  | { wasmUrl: string | URL; wasmModule?: never; wasmBinary?: never };

/** @internal What the Emscripten factories read from their argument (-sINCOMING_MODULE_JS_API):
 * the same for both modules, typed once with the compress module's glue (a type-only import). */
export type ModuleArg = CceModuleArg;

/** @internal How one module is created and named in error messages. */
export interface LoaderSpec<M> {
  /** The Emscripten MODULARIZE factory. */
  factory: (arg: ModuleArg) => Promise<M>;
  /** True when the glue finished initialising `module` (its bindings are present). */
  ready: (module: M) => boolean;
  /** "the engine": what the messages call the module. */
  name: string;
  /** "compress()": what cannot run before the module is loaded. */
  use: string;
  /** "init() from cce-wasm/init": how to load it explicitly. */
  init: string;
}

/** @internal One module's instance, shared by every caller of the entry that owns it. */
export interface Loader<M> {
  /** Loads the module once; later calls share the first load (whatever their source). */
  load(source: InitOptions | (() => Promise<WebAssembly.Module>)): Promise<void>;
  /** Loads the module once from a compiled Module, synchronously (the Node entries: no top-level
   * await, so that CommonJS code can `require()` them). */
  loadSync(module: WebAssembly.Module): void;
  /** The live instance; re-instantiated synchronously after a trap dropped it. */
  engine(): M;
  /** The live instance, if any, without re-creating one. */
  currentEngine(): M | undefined;
  /** Forgets the instance: memory after a trap is not trustworthy. */
  dropInstance(): void;
  /** True once an instance exists or can be re-created synchronously. */
  isLoaded(): boolean;
}

/** @internal */
export function createLoader<M>(spec: LoaderSpec<M>): Loader<M> {
  let compiled: WebAssembly.Module | undefined;
  let instance: M | undefined;
  let loading: Promise<void> | undefined;
  let reloading: Promise<void> | undefined;

  // The glue initialises synchronously when instantiateWasm does, so a trapped instance can be
  // replaced inside the next (synchronous) call.
  const instantiateSync = (module: WebAssembly.Module): M => {
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
    spec.factory(arg).catch(() => {}); // its ready promise rejects again on any later abort
    const raw = arg as M;
    if (failure !== undefined || !spec.ready(raw)) {
      throw new CompressError(
        'Internal',
        `cce-wasm: cannot instantiate ${spec.name}: ${describe(failure)}`,
        '',
        { cause: failure },
      );
    }
    return raw;
  };

  const instantiate = async (module: WebAssembly.Module): Promise<M> => {
    try {
      return instantiateSync(module);
    } catch {
      // Some hosts refuse synchronous instantiation (browser main threads did for large modules).
    }
    return new Promise<M>((resolve, reject) => {
      const arg = moduleArg((imports, receiveInstance) => {
        // .catch, not a second .then argument: a throw inside receiveInstance must reject too.
        WebAssembly.instantiate(module, imports)
          .then((wasm) => receiveInstance(wasm, module))
          .catch(reject); // 3.1.6 would otherwise leave its ready promise pending forever
        return {};
      });
      arg.onAbort = (what) =>
        reject(new CompressError('Internal', `cce-wasm: aborted: ${describe(what)}`));
      spec.factory(arg).then(() => resolve(arg as M), reject);
    });
  };

  const loadFailed = (error: unknown): CompressError =>
    error instanceof CompressError
      ? error
      : new CompressError(
          'Internal',
          // Names the fix: where nothing can fetch the wasm (a bundled worker), hand it over.
          `cce-wasm: cannot load ${spec.name} (${describe(error)}); import the wasm as a ` +
            `module and pass it to ${spec.init} as { wasmModule } (or { wasmBinary }, { wasmUrl })`,
          '',
          { cause: error },
        );

  return {
    load(source) {
      if (compiled) return Promise.resolve();
      loading ??= (async () => {
        const module = typeof source === 'function' ? await source() : await compile(source);
        const created = await instantiate(module);
        if (compiled) return; // loadSync came first: keep its instance (states may live in it)
        instance = created;
        compiled = module;
      })().catch((error: unknown) => {
        loading = undefined; // a failed load may be retried, e.g. with another source
        throw loadFailed(error);
      });
      return loading;
    },
    loadSync(module) {
      if (compiled) return;
      try {
        instance = instantiateSync(module);
      } catch (error) {
        throw loadFailed(error);
      }
      compiled = module;
    },
    engine() {
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
          ? `cce-wasm: ${spec.name} is still loading; await init() before calling ${spec.use}`
          : `cce-wasm: ${spec.name} is not loaded; call ${spec.init} first`,
      );
    },
    currentEngine: () => instance,
    dropInstance() {
      instance = undefined;
    },
    isLoaded: () => compiled !== undefined,
  };
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
  // compileStreaming takes only `application/wasm`; other servers' bytes are compiled whole. Read
  // from the header rather than tried on a clone: a clone's unread body keeps a second copy of
  // the download, and under Node 18 keeps the process alive after the work is done.
  const type = response.headers.get('content-type') ?? '';
  if (typeof WebAssembly.compileStreaming === 'function' && /^application\/wasm\s*(;|$)/i.test(type)) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * @internal The source `init()` uses without options: the wasm that `locate` names, fetched and
 * compiled. `locate` stays in the entry module as `new URL('./x.wasm', import.meta.url)`, the
 * form bundlers recognise as an asset reference.
 */
export function fetchBeside(locate: () => URL): () => Promise<WebAssembly.Module> {
  return async () => {
    let url: URL;
    try {
      url = locate();
    } catch {
      throw new CompressError(
        'InvalidInput',
        'init(): no module URL in this runtime; pass { wasmModule }, { wasmBinary } or { wasmUrl }',
      );
    }
    return compileResponse(await fetch(url));
  };
}

function moduleArg(instantiateWasm: NonNullable<ModuleArg['instantiateWasm']>): ModuleArg {
  const quiet = () => {}; // the abort text reaches the caller inside the CompressError instead
  const arg: ModuleArg & MemoryWatch = {
    locateFile: (path) => path,
    print: quiet,
    printErr: quiet,
    instantiateWasm: (imports, receiveInstance) => {
      watchGrowth(imports, arg);
      return instantiateWasm(imports, receiveInstance);
    },
  };
  return arg;
}

/** @internal What the loader records on a module (the module argument is the module). */
export interface MemoryWatch {
  /** Set when the memory could not grow as far as the module asked: its heap is exhausted. */
  memoryExhausted?: boolean;
}

/**
 * Wraps the glue's emscripten_resize_heap (its name is minified: it is the one import that calls
 * the memory's grow) so that a failed growth is recorded. An abort after one is memory
 * exhaustion, not a bug (transport.ts trapped()).
 */
function watchGrowth(imports: WebAssembly.Imports, watch: MemoryWatch): void {
  for (const functions of Object.values(imports)) {
    for (const [name, value] of Object.entries(functions)) {
      if (typeof value !== 'function' || !String(value).includes('.grow(')) continue;
      const resize = value as (size: number) => unknown;
      (functions as Record<string, unknown>)[name] = (size: number) => {
        const grown = resize(size);
        if (!grown) watch.memoryExhausted = true;
        return grown;
      };
    }
  }
}

function describe(value: unknown): string {
  return value instanceof Error ? value.message : String(value);
}

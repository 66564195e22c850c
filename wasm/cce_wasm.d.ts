// SPDX-License-Identifier: MIT
// Hand-written types of the raw Emscripten 3.1.6 module (dist/cce.mjs); internal, never exported.
//
// Emscripten 3.1.6 cannot emit typings. Keep this in sync with EMSCRIPTEN_BINDINGS in
// wasm/bindings.cpp and the link flags in wasm/CMakeLists.txt (INCOMING_MODULE_JS_API,
// EXPORTED_FUNCTIONS); js/test/bindings.test.mjs checks the runtime surface against RAW_FUNCTIONS.

/** What the factory reads from its argument (-sINCOMING_MODULE_JS_API). */
export interface CceModuleArg {
  locateFile?: (path: string, scriptDirectory: string) => string;
  /** Must call `receiveInstance` (synchronously or later) and return the exports, or `{}` if later. */
  instantiateWasm?: (
    imports: WebAssembly.Imports,
    receiveInstance: (instance: WebAssembly.Instance, module?: WebAssembly.Module) => void,
  ) => WebAssembly.Exports | Record<string, never>;
  onAbort?: (what: unknown) => void;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

/** The module object after initialisation: the argument object, extended by the glue. */
export interface CceModule extends CceModuleArg {
  /**
   * compress / uncompress over binary requests the caller wrote into memory (docs/boundary.md
   * "Bytes requests"): the request at `pointer`, the host's answers (compress) or looked-up
   * store entries (uncompress) at `extraPointer` (length 0: none). Returns the address of two
   * uint32 words {pointer, length} locating the binary answer (docs/boundary.md "Bytes
   * answers"), valid until the next call.
   */
  compressBytes(pointer: number, length: number, extraPointer: number, extraLength: number): number;
  uncompressBytes(
    pointer: number,
    length: number,
    extraPointer: number,
    extraLength: number,
  ): number;
  /** cce::estimateTokens over `length` UTF-16 units at `pointer` (2-aligned). */
  estimateTokensUtf16(pointer: number, length: number): number;
  // The texts below come back located like the envelopes: the address of {pointer, length} of
  // ASCII bytes, valid until the next call (transport.ts answerText reads them).
  version(): number;
  /** "size" for cce.wasm, "speed" for cce-fast.wasm (the same engine built for speed). */
  build(): number;
  _malloc(size: number): number;
  _free(pointer: number): void;
  /** Replaced when memory grows: re-read after every call that may allocate. */
  readonly HEAPU8: Uint8Array;
  readonly HEAPU32: Uint32Array;
}

export type CreateCceModule = (moduleArg?: CceModuleArg) => Promise<CceModule>;
declare const createCceModule: CreateCceModule;
export default createCceModule;

// SPDX-License-Identifier: MIT
// Hand-written types of the raw session module (dist/cce-session.mjs); internal, never exported.
//
// Keep this in sync with the exports of wasm/session_bindings.cpp and the link flags of
// cce_session in wasm/CMakeLists.txt (INCOMING_MODULE_JS_API, EXPORTED_FUNCTIONS).
import type { CceModuleArg } from './cce_wasm.js';

export type { CceModuleArg };

/** The module object after initialisation: the argument object, extended by the glue. */
export interface CceSessionModule extends CceModuleArg {
  /**
   * cce::contextRequest over the value bytes (src/value_bytes.h) of `length` bytes at `pointer`
   * (the caller's allocation); returns the address of two uint32 words {pointer, length}
   * locating the UTF-8 JSON envelope, valid until the next call. Never fails: errors are
   * envelopes.
   */
  _contextRequest(pointer: number, length: number): number;
  /** cce::compactionRequest, the same way. */
  _compactionRequest(pointer: number, length: number): number;
  /**
   * Set by the JS layer: the module's JSON.parse (its `cce_host_parse_json` import, which reads
   * `Module.parseJsonText`): UTF-16 text in, the address of a malloc'd block holding a length
   * word and value bytes out, 0 when the text is not JSON.
   */
  parseJsonText?: (text: number, length: number) => number;
  /** The engine version (ASCII), located the same way. */
  _version(): number;
  /** Executes `unreachable` (tests of trap recovery). */
  _debugTrap(): void;
  _malloc(size: number): number;
  _free(pointer: number): void;
  /** Replaced when memory grows: re-read after every call that may allocate. */
  readonly HEAPU8: Uint8Array;
  readonly HEAPU16: Uint16Array;
  readonly HEAPU32: Uint32Array;
}

export type CreateCceSessionModule = (moduleArg?: CceModuleArg) => Promise<CceSessionModule>;
declare const createCceSessionModule: CreateCceSessionModule;
export default createCceSessionModule;

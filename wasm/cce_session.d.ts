// SPDX-License-Identifier: MIT
// Hand-written types of the raw session module (dist/cce-session.mjs); internal, never exported.
//
// Keep this in sync with EMSCRIPTEN_BINDINGS in wasm/session_bindings.cpp and the link flags of
// cce_session in wasm/CMakeLists.txt (INCOMING_MODULE_JS_API).
import type { CceModuleArg } from './cce_wasm.js';

export type { CceModuleArg };

/** The module object after initialisation: the argument object, extended by the glue. */
export interface CceSessionModule extends CceModuleArg {
  /** cce::contextJson: one context-manager request in, its JSON envelope out (never throws). */
  contextJson(request: string): string;
  /** cce::compactionJson: one compaction request in, its JSON envelope out (never throws). */
  compactionJson(request: string): string;
  version(): string;
  /** Executes `unreachable` (tests of trap recovery). */
  debugTrap(): void;
}

export type CreateCceSessionModule = (moduleArg?: CceModuleArg) => Promise<CceSessionModule>;
declare const createCceSessionModule: CreateCceSessionModule;
export default createCceSessionModule;

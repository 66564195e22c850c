// SPDX-License-Identifier: MIT
// The Node entries' wasm, compiled synchronously from the file beside them.
import { readFileSync } from 'node:fs';

import { CompressError } from './errors.js';

/**
 * @internal Compiles the wasm file `name` beside the calling entry. `asset` is the entry's
 * `new URL('./name', import.meta.url)`, the form bundlers recognise (Turbopack and Vite's SSR
 * build copy the file and give its new place); `here` is the entry's own `import.meta.url`.
 * webpack's server bundles (Next.js with webpack) turn `asset` into a web path under the app's
 * public path, which is no file: the file is then read from beside the module webpack bundled,
 * whose file: URL webpack puts in for `here`.
 */
export function compileWasmFile(name: string, asset: URL, here: string): WebAssembly.Module {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(isFileUrl(asset) ? asset : new URL(name, here));
  } catch (error) {
    throw new CompressError(
      'Internal',
      `cce-wasm: cannot read ${name} (${error instanceof Error ? error.message : String(error)}); ` +
        "if a bundler moved the package's files, leave it unbundled (Next.js: " +
        "serverExternalPackages: ['cce-wasm']) or load the wasm yourself with init() from " +
        'cce-wasm/init (cce-wasm/session/init for the session entries)',
      '',
      { cause: error },
    );
  }
  return new WebAssembly.Module(bytes as BufferSource);
}

/** A URL object that names a file (webpack's stand-in for a relative URL is neither). */
function isFileUrl(value: unknown): value is URL {
  return value instanceof URL && value.protocol === 'file:';
}

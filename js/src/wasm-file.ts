// SPDX-License-Identifier: MIT
// The Node entries' wasm, compiled synchronously from the file beside them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CompressError } from './errors.js';

/**
 * @internal Compiles the wasm file `name` beside the calling entry. `asset` makes the entry's
 * `new URL('./name', import.meta.url)`, the form bundlers recognise (Turbopack and Vite's SSR
 * build copy the file and give its new place); `here` is the entry's own `import.meta.url`.
 * - webpack's server bundles (Next.js with webpack) turn `asset` into a web path under the app's
 *   public path, which is no file: the file is read from beside the module webpack bundled, whose
 *   file: URL webpack puts in for `here`.
 * - A CommonJS bundle (esbuild `--format=cjs`, as VS Code extensions are built) has no
 *   `import.meta.url`, so `asset` throws: the file is read from beside the bundle (`__dirname`).
 */
export function compileWasmFile(name: string, asset: () => URL, here: string | undefined): WebAssembly.Module {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(locate(name, asset, here));
  } catch (error) {
    throw new CompressError(
      'Internal',
      `cce-wasm: cannot read ${name} (${error instanceof Error ? error.message : String(error)}); ` +
        "if a bundler moved the package's files, copy dist/" + name + ' beside the bundle, leave ' +
        "the package unbundled (Next.js: serverExternalPackages: ['cce-wasm']) or load the wasm " +
        'yourself with init() from cce-wasm/init (cce-wasm/session/init for the session entries)',
      '',
      { cause: error },
    );
  }
  return new WebAssembly.Module(bytes as BufferSource);
}

function locate(name: string, asset: () => URL, here: string | undefined): URL | string {
  let url: URL;
  try {
    url = asset();
  } catch (error) {
    // No import.meta.url: a CommonJS bundle, whose directory Node gives as __dirname.
    if (typeof __dirname === 'string') return join(__dirname, name);
    throw error;
  }
  return isFileUrl(url) ? url : new URL(name, here);
}

/** A URL object that names a file (webpack's stand-in for a relative URL is neither). */
function isFileUrl(value: unknown): value is URL {
  return value instanceof URL && value.protocol === 'file:';
}

#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The post-link step of every wasm module (wasm/CMakeLists.txt): lays the module out for gzip,
// which is how browsers download it, without changing what it does. One data segment instead of
// Binaryen's zero-split ones (merge-data-segments.mjs), and functions ordered so that similar
// bodies are neighbours (reorder-functions.mjs). cce.wasm: -1.6 KB gzip.
//
//   node scripts/pack-wasm.mjs FILE.wasm [--refine PASSES]
//
// --refine runs that many passes of the function order's deflate-measured refinement (slow: some
// 13 s a pass for cce.wasm; the build asks for two, for the browser download only).
//
// Rewrites FILE in place only when the result validates; a module either step cannot handle
// fails the build (exit 1) with the file untouched.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { mergeDataSegments } from './merge-data-segments.mjs';
import { reorderFunctions } from './reorder-functions.mjs';

/** `module` (bytes) laid out for gzip; throws when a step cannot handle it. */
export function packWasm(module, refinePasses = 0) {
  const packed = reorderFunctions(mergeDataSegments(module).module, refinePasses);
  if (!WebAssembly.validate(packed)) throw new Error('pack-wasm: the rewritten module does not validate');
  return packed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, flag, passes] = process.argv.slice(2);
  const refinePasses = flag === '--refine' ? Number(passes) : 0;
  if (!file || (flag !== undefined && (flag !== '--refine' || !(refinePasses >= 0)))) {
    console.error('usage: pack-wasm.mjs FILE.wasm [--refine PASSES]');
    process.exit(2);
  }
  try {
    const packed = packWasm(readFileSync(file), refinePasses);
    writeFileSync(`${file}.tmp`, packed);
    renameSync(`${file}.tmp`, file);
  } catch (error) {
    console.error(`${error.message} (${file})`);
    process.exit(1);
  }
}

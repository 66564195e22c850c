#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The post-link step of every wasm module (wasm/CMakeLists.txt): lays the module out for gzip,
// which is how browsers download it, without changing what it does. One data segment instead of
// Binaryen's zero-split ones (merge-data-segments.mjs), and functions ordered so that similar
// bodies are neighbours (reorder-functions.mjs). cce.wasm: -1.3 KB gzip.
//
//   node scripts/pack-wasm.mjs FILE.wasm
//
// Rewrites FILE in place only when the result validates; a module either step cannot handle
// fails the build (exit 1) with the file untouched.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { mergeDataSegments } from './merge-data-segments.mjs';
import { reorderFunctions } from './reorder-functions.mjs';

/** `module` (bytes) laid out for gzip; throws when a step cannot handle it. */
export function packWasm(module) {
  const packed = reorderFunctions(mergeDataSegments(module).module);
  if (!WebAssembly.validate(packed)) throw new Error('pack-wasm: the rewritten module does not validate');
  return packed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: pack-wasm.mjs FILE.wasm');
    process.exit(2);
  }
  try {
    const packed = packWasm(readFileSync(file));
    writeFileSync(`${file}.tmp`, packed);
    renameSync(`${file}.tmp`, file);
  } catch (error) {
    console.error(`${error.message} (${file})`);
    process.exit(1);
  }
}

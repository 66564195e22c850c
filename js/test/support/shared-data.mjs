// SPDX-License-Identifier: MIT
// Where the tests find the reference corpus and the data sets: the copy unpacked from the
// repository's own compressed test data (build/testdata, written by scripts/testdata.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const unpacked = new URL('../../../build/testdata/', import.meta.url);
const beside = new URL('../../../../shared/', import.meta.url);

/** URL of the test-data root (ends with a slash); `rel` like 'conformance/public/cases/'. */
export function sharedUrl(rel = '') {
  const root = existsSync(fileURLToPath(unpacked)) ? unpacked : beside;
  return new URL(rel, root);
}

/** File-system path of the same. */
export function sharedPath(rel = '') {
  return fileURLToPath(sharedUrl(rel));
}

// SPDX-License-Identifier: MIT
// What the compaction test files share: the native suite's golden files, the real transcripts
// (null where a data set is absent) and two helpers for inputs that must come back untouched.
import { existsSync, readFileSync } from 'node:fs';

import { sharedUrl } from './shared-data.mjs';

/** A golden file of tests/golden/compaction/, parsed. */
export const golden = (name) =>
  JSON.parse(readFileSync(new URL(`../../../tests/golden/compaction/${name}`, import.meta.url), 'utf8'));

const REAL = sharedUrl('data/real/');

/** A transcript of data/real/, parsed, or null when the data is not there. */
export const loadReal = (file) =>
  existsSync(new URL(file, REAL)) ? JSON.parse(readFileSync(new URL(file, REAL), 'utf8')) : null;

export const json = (value) => JSON.stringify(value);

/** Freezes a value and everything in it, so that a mutation by the code under test throws. */
export const deepFreeze = (value) => {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

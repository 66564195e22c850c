// SPDX-License-Identifier: MIT
// Every oracle case of the oracle corpus (conformance/public) through the built package, byte for byte.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, test } from 'node:test';

import * as api from 'cce-wasm';

import { runCase } from '../../scripts/conformance.mjs';
import { sharedUrl } from './support/shared-data.mjs';

const shared = sharedUrl('conformance/');
const casesDir = new URL('public/cases/', shared);
if (!existsSync(casesDir))
  throw new Error(`missing ${casesDir.pathname}: run node scripts/testdata.mjs to unpack the test data`);

describe('public conformance corpus', () => {
  const files = readdirSync(casesDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  test('has all 495 cases', () => assert.equal(files.length, 495));
  for (const file of files) {
    test(file.replace(/\.json$/, ''), async () => {
      const failures = await runCase(
        api,
        JSON.parse(readFileSync(new URL(file, casesDir), 'utf8')),
      );
      assert.deepEqual(failures, []);
    });
  }
});

describe('large input', () => {
  test('the 6 MB scale session matches the reference output byte for byte', () => {
    const scale = new URL('scale/', shared);
    const text = readFileSync(new URL('scale-conversation.json', scale), 'utf8');
    const expected = readFileSync(new URL('expected-v1-defaults.json', scale), 'utf8');
    const messages = JSON.parse(text);
    const result = api.compress(messages, { compat: 'cce-1.0' });
    const json = JSON.stringify(result);
    const sha = (s) => createHash('sha256').update(s).digest('hex');
    assert.equal(sha(json), sha(expected));
    const kept = result.messages.filter((m) => messages.includes(m)).length;
    assert.equal(
      kept,
      result.compression.messages_preserved,
      'preserved messages are the caller objects',
    );
  });
});

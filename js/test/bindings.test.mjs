// SPDX-License-Identifier: MIT
// The raw embind surface of dist/cce.mjs equals the declared list, and its JSON entry points work.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import createCceModule from '../../dist/cce.mjs';
import { RAW_FUNCTIONS } from '../../dist/transport.js';

const wasm = new WebAssembly.Module(readFileSync(new URL('../../dist/cce.wasm', import.meta.url)));

async function rawModule() {
  const arg = {
    instantiateWasm(imports, receive) {
      const instance = new WebAssembly.Instance(wasm, imports);
      receive(instance, wasm);
      return instance.exports;
    },
  };
  await createCceModule(arg);
  return arg;
}

describe('raw module', () => {
  test('registers exactly the declared embind functions', async () => {
    const raw = await rawModule();
    // embind marks its wrappers with argCount (no Closure in this build).
    const bound = Object.keys(raw).filter(
      (k) => typeof raw[k] === 'function' && 'argCount' in raw[k],
    );
    assert.deepEqual(bound.sort(), [...RAW_FUNCTIONS].sort());
    assert.equal(typeof raw._malloc, 'function');
    assert.equal(typeof raw._free, 'function');
    assert.ok(raw.HEAPU8 instanceof Uint8Array);
  });

  test('answers the envelope of docs/boundary.md through std::string and bytes alike', async () => {
    const raw = await rawModule();
    const request = JSON.stringify({ messages: [{ id: 'a', content: 'hi \ud800' }], options: {} });
    const viaString = raw.compressJson(request);
    const bytes = new TextEncoder().encode(request);
    const pointer = raw._malloc(bytes.length);
    raw.HEAPU8.set(bytes, pointer);
    const viaBytes = raw.compressBytes(pointer, bytes.length);
    raw._free(pointer);
    assert.equal(viaBytes, viaString);
    const envelope = JSON.parse(viaString);
    assert.equal(envelope.ok, true);
    assert.equal(envelope.output.messages[0].content, 'hi \ud800');
    assert.ok(viaString.includes('\\ud800'), 'the lone surrogate crosses as an escape');
  });

  test('reports errors as envelopes, not exceptions', async () => {
    const raw = await rawModule();
    assert.equal(JSON.parse(raw.compressJson('{not json')).error.code, 'InvalidJson');
    const bad = JSON.parse(raw.uncompressJson('{"messages":1,"store":{}}'));
    assert.deepEqual([bad.ok, bad.error.code], [false, 'InvalidInput']);
    assert.deepEqual(JSON.parse(raw.errorCodesJson()), [
      'InvalidJson',
      'InvalidInput',
      'InputTooLarge',
      'BudgetTooSmall',
      'Internal',
    ]);
  });
});

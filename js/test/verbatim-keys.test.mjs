// SPDX-License-Identifier: MIT
// The keys of `verbatim`: String(id) of each original's id as the request carried it. The host
// keys the map by the caller's own id string when it equals the engine's key (a speed matter,
// js/src/engine.ts `result`); these tests pin what the key must be whatever string it is made of.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compress } from 'cce-wasm';

import { compress as engineCompress } from '../../dist/engine.js';

const prose =
  'The deployment pipeline builds the service, runs the integration suite against a staging ' +
  'database, and then promotes the image once the health checks report ready. ';

function conversation(ids) {
  return [
    { id: ids[0], role: 'system', content: 'Be brief.' },
    { id: ids[1], role: 'user', content: prose.repeat(6) },
    { id: ids[2], role: 'assistant', content: prose.repeat(5) },
    { id: ids[3], role: 'user', content: 'And now?' },
  ];
}

// `encodeRead`: which read of an id getter writes the request. The Node entry reads the messages
// once before (js/src/unchanged.ts looks for a call it can answer without the engine).
for (const [entry, run, encodeRead] of [
  ['Node entry', compress, 2],
  ['engine module', engineCompress, 1],
]) {
  describe(`verbatim keys (${entry})`, () => {
    test('a string id keys its original, the caller\'s object itself', () => {
      const messages = conversation(['s', 'u1', 'a1', 'u2']);
      const result = run(messages, { recencyWindow: 1 });
      assert.deepEqual(Object.keys(result.verbatim), ['u1', 'a1']);
      assert.equal(result.verbatim.u1, messages[1]);
      assert.equal(result.verbatim.a1, messages[2]);
    });

    test('a number id keys String(id) (compat, where ids need not be strings)', () => {
      const messages = conversation([0, 1.5, 2, 3]);
      const result = run(messages, { recencyWindow: 1, compat: 'cce-1.0' });
      // (Object key order: integer-like keys first.)
      assert.deepEqual(Object.keys(result.verbatim), ['2', '1.5']);
      assert.equal(result.verbatim['1.5'], messages[1]);
      // The number and its text are different ids: neither stands for the other.
      assert.equal(Object.hasOwn(result.verbatim, 1.5), true);
    });

    test('an id getter: the key is the id read when the request was written', () => {
      const messages = conversation(['s', 'u1', 'a1', 'u2']);
      let reads = 0;
      Object.defineProperty(messages[1], 'id', {
        enumerable: true,
        get: () => `u1-read-${++reads}`,
      });
      const result = run(messages, { recencyWindow: 1 });
      // Not a later read (the rebuild reads the id again for `_cce_original.ids`).
      const key = `u1-read-${encodeRead}`;
      assert.ok(reads > encodeRead);
      assert.deepEqual(Object.keys(result.verbatim), [key, 'a1']);
      assert.equal(result.verbatim[key], messages[1]);
    });
  });
}

// SPDX-License-Identifier: MIT
// `import { compress } from 'cce-wasm'` in a Cloudflare Worker, as a user writes it: bundled the
// way wrangler bundles (esbuild with the "workerd" condition, *.wasm imports kept as compiled
// modules) and run in workerd (miniflare). The context manager and compaction entries likewise.
// Elsewhere, a loading failure names the fix.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';

import { CompressError, init } from 'cce-wasm/init';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cce-workers-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'cce-wasm'), 'dir');
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Bundles `source` as wrangler does and starts it in workerd; returns the Miniflare instance. */
async function startBundled(name, source, conditions) {
  const entry = join(dir, `${name}.mjs`);
  const out = join(dir, `out-${name}`);
  writeFileSync(entry, source);
  const { metafile } = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions,
    external: ['*.wasm'],
    outdir: out,
    metafile: true,
    logLevel: 'silent',
  });
  // Like wrangler, ship each imported wasm beside the bundle as a compiled-module import.
  const wasm = [
    ...new Set(
      Object.values(metafile.outputs)
        .flatMap((o) => o.imports)
        .filter((i) => i.external && i.path.endsWith('.wasm'))
        .map((i) => i.path.replace(/^\.\//, '')),
    ),
  ];
  for (const file of wasm) copyFileSync(join(root, 'dist', file), join(out, file));
  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    compatibilityDate: '2024-09-23',
    modulesRoot: out,
    modules: [
      { type: 'ESModule', path: join(out, `${name}.js`) },
      ...wasm.map((file) => ({ type: 'CompiledWasm', path: join(out, file) })),
    ],
  });
  return { mf, wasm };
}

const post = (url, body) => fetch(url, { method: 'POST', body: JSON.stringify(body) });

describe('Cloudflare Workers, default imports', () => {
  test("import { compress } from 'cce-wasm' works with no init()", async () => {
    const { mf, wasm } = await startBundled(
      'compress',
      `import { compress, uncompress } from 'cce-wasm';
       import { compress as compressNative } from 'cce-wasm/formats';
       export default {
         async fetch(request) {
           const { messages, options } = await request.json();
           const result = compress(messages, options);
           const restored = uncompress(result.messages, result.verbatim).messages;
           const anthropic = compressNative(
             messages.map(({ role, content }) => ({ role, content })),
             { format: 'anthropic', recencyWindow: 1 },
           );
           return Response.json({ result, same: JSON.stringify(restored) === JSON.stringify(messages),
                                  anthropic: anthropic.messages });
         },
       };`,
      ['workerd', 'worker', 'browser'],
    );
    try {
      assert.deepEqual(wasm, ['cce.wasm'], 'the bundle imports the size build as a module');
      const url = await mf.ready;
      const long = 'The deployment pipeline retries each failed stage twice before paging. '.repeat(8);
      const messages = [
        { id: '1', role: 'user', content: long },
        { id: '2', role: 'assistant', content: long.toUpperCase() },
        { id: '3', role: 'user', content: 'and now?' },
      ];
      const res = await post(url, { messages, options: { recencyWindow: 1 } });
      assert.equal(res.status, 200);
      const { result, same, anthropic } = await res.json();
      assert.equal(result.compression.messages_compressed, 2);
      assert.equal(anthropic.length, 3, 'cce-wasm/formats too, in the same bundle');
      assert.match(anthropic[0].content, /^\[summary/);
      assert.match(result.messages[0].content, /^\[summary/);
      assert.equal(same, true);
    } finally {
      await mf.dispose();
    }
  });

  test("cce-wasm/context and cce-wasm/compaction work with no init()", async () => {
    const { mf, wasm } = await startBundled(
      'session',
      `import { createContextManager } from 'cce-wasm/context';
       import { fromOpenAI, dryRun } from 'cce-wasm/compaction';
       export default {
         async fetch(request) {
           const { messages } = await request.json();
           const manager = createContextManager({ contextWindow: 8000 });
           for (const m of messages) manager.add(m);
           const preview = dryRun(fromOpenAI(messages), { profile: 'default' });
           return Response.json({ total: manager.usage().total, before: preview.tokens.before });
         },
       };`,
      ['workerd', 'worker', 'browser'],
    );
    try {
      assert.deepEqual(wasm, ['cce-session.wasm']);
      const url = await mf.ready;
      const messages = [];
      for (let turn = 0; turn < 8; turn++) {
        messages.push({ role: 'user', content: `Where is setting ${turn} of the config read?` });
        messages.push({ role: 'assistant', content: `In src/config/load.ts, line ${10 * turn}.` });
      }
      const res = await post(url, { messages });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      const body = JSON.parse(text);
      assert.ok(body.total > 0 && body.before > 0, JSON.stringify(body));
    } finally {
      await mf.dispose();
    }
  });
});

describe('loading failures name the fix', () => {
  test('a wasm that cannot be fetched: the error says how to pass it instead', async () => {
    await assert.rejects(init({ wasmUrl: 'http://127.0.0.1:9/cce.wasm' }), (error) => {
      assert.ok(error instanceof CompressError);
      assert.equal(error.code, 'Internal');
      assert.match(error.message, /^cce-wasm: cannot load the engine \(/);
      assert.match(error.message, /pass it to init\(\) from cce-wasm\/init as \{ wasmModule \}/);
      return true;
    });
  });
});

// SPDX-License-Identifier: MIT
// npm pack -> install the tarball in a temporary project -> import it there (no workspace links).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { installTarball, packTarball } from './support/packed.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const bin = (name) => join(root, 'node_modules', '.bin', name);
let dir;
let files;
let tarball;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cce-pack-'));
  ({ tarball, files } = await packTarball(dir));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'smoke', private: true, type: 'module' }),
  );
  await installTarball(tarball, dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('npm pack', () => {
  test('ships only the built package', () => {
    for (const f of files)
      assert.match(f, /^(package\.json|README\.md|LICENSE|dist\/[\w.-]+\.(js|d\.ts|mjs|wasm))$/, f);
    for (const needed of [
      'dist/index.js',
      'dist/node.js',
      'dist/init.js',
      'dist/index.d.ts',
      'dist/init.d.ts',
      'dist/cce.mjs',
      'dist/cce.wasm',
      'dist/cce-fast.wasm',
    ]) {
      assert.ok(files.includes(needed), `${needed} is in the tarball`);
    }
  });

  test('installs and runs examples/node from the tarball', async () => {
    writeFileSync(join(dir, 'example.mjs'), readFileSync(join(root, 'examples/node/index.mjs')));
    const { stdout } = await exec(process.execPath, ['example.mjs'], { cwd: dir, timeout: 30_000 });
    const out = JSON.parse(stdout);
    assert.equal(out.roundTrip, true);
    assert.equal(out.compression.messages_compressed, 1);
    assert.equal(
      out.firstCompressed,
      '[summary: This is a long message about general topics that could be compressed.]',
    );
  });

  test('resolves both entries and the wasm export from the installed package', async () => {
    const code = `import { compress, ERROR_CODES } from 'cce-wasm';
      import { init, compress as compress2 } from 'cce-wasm/init';
      import { createRequire } from 'node:module';
      import { readFileSync } from 'node:fs';
      const wasmPath = import.meta.resolve('cce-wasm/cce.wasm');
      await init({ wasmBinary: readFileSync(new URL(wasmPath)) });
      console.log(JSON.stringify({ a: compress([]).messages.length, b: compress2([]).messages.length, codes: ERROR_CODES.length, wasmPath }));`;
    writeFileSync(join(dir, 'entries.mjs'), code);
    const { stdout } = await exec(process.execPath, ['entries.mjs'], { cwd: dir, timeout: 30_000 });
    const out = JSON.parse(stdout);
    assert.deepEqual([out.a, out.b, out.codes], [0, 0, 7]);
    assert.match(out.wasmPath, /node_modules\/cce-wasm\/dist\/cce\.wasm$/);
  });

  test('the integrations load and run without their optional peers (ai, @langchain/core)', async () => {
    const code = `import { compressionMiddleware } from 'cce-wasm/ai-sdk';
      import { compressMessages } from 'cce-wasm/langchain';
      import { compressRequest } from 'cce-wasm/request';
      const long = 'The deployment pipeline retries each failed stage twice before paging. '.repeat(20);
      const body = { model: 'm', messages: [{ role: 'user', content: long }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'and?' }] };
      const middleware = compressionMiddleware({ tokenBudget: 60 });
      const params = await middleware.transformParams({ type: 'generate', params: { prompt: [{ role: 'user', content: [{ type: 'text', text: long }] }, { role: 'user', content: [{ type: 'text', text: 'and?' }] }] } });
      const lc = compressMessages([{ type: 'human', content: long }, { type: 'ai', content: 'ok' }, { type: 'human', content: 'and?' }], { tokenBudget: 60 });
      let peers = 0;
      for (const name of ['ai', '@langchain/core']) { try { await import(name); peers++; } catch {} }
      console.log(JSON.stringify({ peers, request: compressRequest(body, { provider: 'openai-chat', tokenBudget: 60 }).messages[0].content.length < long.length,
        aiSdk: params.prompt[0].content[0].text.length < long.length, langchain: lc[0].content.length < long.length }));`;
    writeFileSync(join(dir, 'integrations.mjs'), code);
    const { stdout } = await exec(process.execPath, ['integrations.mjs'], { cwd: dir, timeout: 30_000 });
    assert.deepEqual(JSON.parse(stdout), { peers: 0, request: true, aiSdk: true, langchain: true });
  });

  test('CommonJS code require()s every Node entry from the tarball (no top-level await)', async (t) => {
    // require() of an ES module graph works from Node 20.19 / 22.12 unless the graph awaits at
    // its top level, which is why the Node entries load their wasm synchronously.
    const [major, minor] = process.versions.node.split('.').map(Number);
    const nodes = [];
    if (major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19)) nodes.push(process.execPath);
    else t.diagnostic(`Node ${process.version} cannot require() ES modules; checked under Node 22 only`);
    const node22 = join(root, 'build/node22/bin/node');
    if (existsSync(node22)) nodes.push(node22);
    if (nodes.length === 0) return t.skip('no Node here can require() ES modules');
    const code = `'use strict';
      const { compress, uncompress } = require('cce-wasm');
      const { createContextManager } = require('cce-wasm/context');
      const { compact, fromOpenAI } = require('cce-wasm/compaction');
      const formats = require('cce-wasm/formats');
      const { compressRequest } = require('cce-wasm/request');
      const { compressionMiddleware } = require('cce-wasm/ai-sdk');
      const { compressMessages } = require('cce-wasm/langchain');
      const { compressStable } = require('cce-wasm/cache');
      const long = 'The deployment pipeline retries each failed stage twice before paging. '.repeat(20);
      const messages = [{ id: '1', index: 0, role: 'user', content: long }, { id: '2', index: 1, role: 'assistant', content: 'ok' }, { id: '3', index: 2, role: 'user', content: 'and?' }];
      const result = compress(messages, { tokenBudget: 60 });
      const restored = uncompress(result.messages, result.verbatim);
      const manager = createContextManager({ contextWindow: 1200, promptBudget: 100, keepLast: 1 });
      for (let i = 0; i < 6; i++) manager.add({ role: i % 2 ? 'assistant' : 'user', content: long });
      const compressed = manager.compress();
      const openai = messages.map(({ role, content }) => ({ role, content }));
      const body = compressRequest({ model: 'm', messages: openai }, { provider: 'openai-chat', tokenBudget: 60 });
      console.log(JSON.stringify({
        fits: result.fits,
        roundTrip: JSON.stringify(restored.messages) === JSON.stringify(messages),
        context: compressed.compressed && manager.view().messages.length < 6,
        compaction: Array.isArray(compact(fromOpenAI(openai)).conversation.turns),
        formats: formats.compress(openai, { tokenBudget: 60 }).messages[0].content.length < long.length,
        request: body.messages[0].content.length < long.length,
        integrations: [compressionMiddleware, compressMessages, compressStable].every((f) => typeof f === 'function'),
      }));`;
    writeFileSync(join(dir, 'entries.cjs'), code);
    for (const node of nodes) {
      const { stdout } = await exec(node, ['entries.cjs'], { cwd: dir, timeout: 30_000 });
      assert.deepEqual(JSON.parse(stdout), {
        fits: true, roundTrip: true, context: true, compaction: true, formats: true, request: true, integrations: true,
      }, node);
    }
    // TypeScript (5.8+) lets a CommonJS file import the package under "module": "nodenext".
    writeFileSync(join(dir, 'entries.cts'), `import { compress } from 'cce-wasm';
      import { createContextManager } from 'cce-wasm/context';
      export const n: number = compress([]).messages.length + createContextManager({ contextWindow: 8000 }).usage().messages;
      // @ts-expect-error the result's messages are an array, not a number
      export const wrong: number = compress([]).messages;`);
    writeFileSync(join(dir, 'tsconfig.cjs.json'), JSON.stringify({
      compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [] },
      files: ['entries.cts'],
    }));
    await exec(bin('tsc'), ['-p', 'tsconfig.cjs.json'], { cwd: dir, timeout: 120_000 });
  });

  test('a CommonJS bundle of the package (esbuild --format=cjs, as VS Code extensions are built) runs beside its wasm', async () => {
    // No top-level await, so esbuild can bundle the Node entries as CommonJS; such a bundle has
    // no import.meta.url, and the entries read their wasm from beside the bundle (__dirname).
    const { build } = await import('esbuild');
    writeFileSync(join(dir, 'extension.cjs'), `const { compress } = require('cce-wasm');
      const { createContextManager } = require('cce-wasm/context');
      const long = 'The deployment pipeline retries each failed stage twice before paging. '.repeat(20);
      const result = compress([{ id: '1', index: 0, role: 'user', content: long }, { id: '2', index: 1, role: 'assistant', content: 'ok' }], { tokenBudget: 60 });
      const manager = createContextManager({ contextWindow: 8000 });
      manager.add({ role: 'user', content: 'hi' });
      console.log(JSON.stringify({ fits: result.fits, messages: manager.usage().messages }));`);
    const out = join(dir, 'extension-bundle');
    await build({ entryPoints: [join(dir, 'extension.cjs')], bundle: true, platform: 'node', format: 'cjs', outfile: join(out, 'extension.cjs'), logLevel: 'error' });
    await assert.rejects(exec(process.execPath, [join(out, 'extension.cjs')], { cwd: dir, timeout: 30_000 }), (error) => {
      assert.match(error.stderr, /cannot read cce-fast\.wasm .*copy dist\/cce-fast\.wasm beside the bundle/);
      return true;
    });
    for (const wasm of ['cce-fast.wasm', 'cce-context.wasm']) {
      copyFileSync(join(dir, 'node_modules/cce-wasm/dist', wasm), join(out, wasm));
    }
    const { stdout } = await exec(process.execPath, [join(out, 'extension.cjs')], { cwd: dir, timeout: 30_000 });
    assert.deepEqual(JSON.parse(stdout), { fits: true, messages: 1 });
  });

  test('publint --strict finds nothing wrong with the tarball', async () => {
    const { stdout } = await exec(bin('publint'), ['--strict', tarball], { timeout: 60_000 });
    assert.match(stdout, /All good!/);
  });

  test('are-the-types-wrong passes the tarball for ESM consumers and bundlers', async () => {
    // The package is ESM only, so CommonJS resolutions (node10, node16 from CJS) are not checked;
    // attw exits non-zero on any problem in the others.
    const { stdout } = await exec(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'json'],
                                  { timeout: 60_000 });
    const report = JSON.parse(stdout);
    const esm = report.analysis.problems.filter(
      (p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs',
    );
    assert.deepEqual(esm, []);
    const entries = Object.keys(report.analysis.entrypoints);
    for (const entry of ['.', './init', './context', './compaction', './cce.wasm', './formats', './ai-sdk', './langchain', './request', './cache'])
      assert.ok(entries.includes(entry), `${entry} is analysed`);
  });

  test('a prepack script rebuilds dist/ so a tarball is never stale', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    assert.equal(pkg.scripts.prepack, 'npm run build');
  });
});

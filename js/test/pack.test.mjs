// SPDX-License-Identifier: MIT
// npm pack -> install the tarball in a temporary project -> import it there (no workspace links).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const bin = (name) => join(root, 'node_modules', '.bin', name);
const npm = (args, cwd) =>
  exec('npm', args, {
    cwd,
    timeout: 120_000,
    env: {
      ...process.env,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  });

let dir;
let files;
let tarball;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cce-pack-'));
  // --ignore-scripts: the prepack build already ran as npm test's build step.
  const { stdout } = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], root);
  const [info] = JSON.parse(stdout);
  files = info.files.map((f) => f.path).sort();
  tarball = join(dir, info.filename);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'smoke', private: true, type: 'module' }),
  );
  await npm(['install', '--offline', '--no-save', tarball], dir);
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

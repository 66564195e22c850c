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
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cce-pack-'));
  const { stdout } = await npm(['pack', '--json', '--pack-destination', dir], root);
  const [info] = JSON.parse(stdout);
  files = info.files.map((f) => f.path).sort();
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'smoke', private: true, type: 'module' }),
  );
  await npm(['install', '--offline', '--no-save', join(dir, info.filename)], dir);
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
});

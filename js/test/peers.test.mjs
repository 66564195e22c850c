// SPDX-License-Identifier: MIT
// `ai` and `@langchain/core` are optional peers: no entry loads them, the integrations included
// (they only duck-type the packages' shapes), so a user without them never needs them. Checked
// on esbuild bundles of each entry, and on package.json.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cce-peers-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'cce-wasm'), 'dir');
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The package names a bundle of `import * from specifier` reads files of. */
async function packagesIn(specifier, conditions) {
  const entry = join(dir, 'entry.mjs');
  writeFileSync(entry, `export * from '${specifier}';\n`);
  const { metafile } = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: conditions.includes('node') ? 'node' : 'neutral',
    conditions,
    external: ['*.wasm'],
    metafile: true,
    logLevel: 'silent',
  });
  const names = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    names.add(m ? m[1] : '(project)');
  }
  return names;
}

describe('optional peers', () => {
  const entries = ['cce-wasm', 'cce-wasm/formats', 'cce-wasm/ai-sdk', 'cce-wasm/langchain', 'cce-wasm/request'];
  for (const conditions of [['browser'], ['node'], ['workerd', 'worker', 'browser']]) {
    test(`no entry bundles ai or @langchain/* (${conditions[0]})`, async () => {
      for (const specifier of entries) {
        const names = [...(await packagesIn(specifier, conditions))];
        assert.deepEqual(names.filter((n) => n !== 'cce-wasm' && n !== '(project)'), [], `${specifier}: ${names}`);
      }
    });
  }

  test('package.json declares them as optional peers', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const name of ['ai', '@langchain/core']) {
      assert.ok(pkg.peerDependencies[name], `${name} is a peer`);
      assert.equal(pkg.peerDependenciesMeta[name]?.optional, true, `${name} is optional`);
      assert.equal(pkg.dependencies?.[name], undefined, `${name} is not a dependency`);
    }
  });

  test('the ai peer range admits every major the tests run against (ai 6 here, ai 7 under Node 22)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const majors = pkg.peerDependencies.ai.split('||').map((r) => r.trim());
    for (const tested of ['ai', 'ai-v7']) {
      const { version } = JSON.parse(readFileSync(join(root, 'node_modules', tested, 'package.json'), 'utf8'));
      // npm refuses to install cce-wasm beside an ai outside this range (ERESOLVE).
      assert.ok(majors.includes(`^${version.split('.')[0]}.0.0`), `${tested} ${version} is within ${pkg.peerDependencies.ai}`);
    }
  });
});

// SPDX-License-Identifier: MIT
// The package as a browser app's dependency, through the bundlers the README names: Vite (its
// production build and its dev server, which pre-bundles dependencies) and webpack 5. Each emits
// the wasm modules as assets from the entries' `new URL('./x.wasm', import.meta.url)`, and the app
// compresses, restores and runs a context manager in each browser engine (Chromium, Firefox,
// WebKit: support/browsers.mjs). The package is installed from its tarball, as an app gets it
// from npm. The builds need Chromium at least; a missing browser skips locally but fails in CI
// (CI=true), so CI cannot pass by skipping.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { BROWSERS, browserMissing, launchBrowser, wrongEngine } from './support/browsers.mjs';
import { installTarball, packTarball } from './support/packed.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const chromiumPath = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(
  (p) => p && existsSync(p),
);

// The app: the default entry and the context manager's, one call of each kind. It writes what it
// saw into #out, or the error that stopped it.
const APP = `import { compress, uncompress } from 'cce-wasm';
import { createContextManager } from 'cce-wasm/context';
const out = document.getElementById('out');
try {
  const long = 'The deployment pipeline retries each failed stage twice before paging. '.repeat(20);
  const messages = [
    { id: '1', index: 0, role: 'user', content: long },
    { id: '2', index: 1, role: 'assistant', content: 'ok' },
    { id: '3', index: 2, role: 'user', content: 'and then?' },
  ];
  const result = compress(messages, { tokenBudget: 60 });
  const restored = uncompress(result.messages, result.verbatim).messages;
  const manager = createContextManager({ contextWindow: 1200, promptBudget: 100, keepLast: 1 });
  for (let i = 0; i < 6; i++) manager.add({ role: i % 2 ? 'assistant' : 'user', content: long });
  const compressed = manager.compress();
  out.textContent = JSON.stringify({
    fits: result.fits,
    shorter: result.messages[0].content.length < long.length,
    roundTrip: JSON.stringify(restored) === JSON.stringify(messages),
    context: compressed.compressed && manager.view().messages.length < 6,
  });
} catch (error) {
  out.textContent = 'error: ' + (error && error.message);
}
`;
const HTML = (script) =>
  `<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="${script}"></script></body></html>`;
const EXPECTED = { fits: true, shorter: true, roundTrip: true, context: true };

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

/** Serves a built app's directory on 127.0.0.1. */
async function serve(dir) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

let browsers = []; // [engine, launched browser] for each engine found
let dir;
let project;
before(async () => {
  if (!chromiumPath) return;
  dir = mkdtempSync(join(tmpdir(), 'cce-bundlers-'));
  const { tarball } = await packTarball(dir);
  project = join(dir, 'app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await installTarball(tarball, project);
  writeFileSync(join(project, 'main.js'), APP);
  for (const engine of BROWSERS) {
    const missing = await browserMissing(engine);
    if (missing && process.env.CI === 'true') assert.fail(`${missing} is missing in CI`);
    if (!missing) browsers.push([engine, await launchBrowser(engine)]);
  }
});
after(async () => {
  for (const [, browser] of browsers) await browser.close();
  browsers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens `url` in every browser and returns what the app wrote, the same in each (its page
 * errors must be none). */
async function runApp(url) {
  let first;
  for (const [engine, browser] of browsers) {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(url);
      await page.waitForFunction(() => document.getElementById('out').textContent !== 'loading', {
        timeout: 30_000,
      });
      assert.equal(await wrongEngine(engine, page), undefined, `${engine.name} runs the page`);
      const text = await page.evaluate(() => document.getElementById('out').textContent);
      assert.deepEqual(errors, [], engine.name);
      assert.ok(text.startsWith('{'), `${engine.name}: ${text}`);
      const result = JSON.parse(text);
      if (first === undefined) first = result;
      else assert.deepEqual(result, first, `${engine.name} answers as ${browsers[0][0].name}`);
    } finally {
      await page.close?.();
    }
  }
  return first;
}

function requireChromium(t) {
  if (chromiumPath) return true;
  if (process.env.CI === 'true') assert.fail('chromium is missing in CI (apt-get install -y chromium)');
  t.skip('chromium not installed (apt-get install -y chromium)');
  return false;
}

describe('Vite', () => {
  test('vite build: the wasm modules are emitted as assets and the app runs', async (t) => {
    if (!requireChromium(t)) return;
    const { build } = await import('vite');
    writeFileSync(join(project, 'index.html'), HTML('/main.js'));
    const outDir = join(project, 'dist-vite');
    await build({ root: project, logLevel: 'silent', configFile: false, build: { outDir } });
    const assets = readdirSync(join(outDir, 'assets'));
    assert.ok(assets.some((f) => /^cce-[\w-]+\.wasm$/.test(f)), assets.join(', '));
    assert.ok(assets.some((f) => /^cce-context-[\w-]+\.wasm$/.test(f)), assets.join(', '));
    const server = await serve(outDir);
    try {
      assert.deepEqual(await runApp(server.url), EXPECTED);
    } finally {
      server.close();
    }
  });

  test('vite dev server (dependencies pre-bundled): the app runs', async (t) => {
    if (!requireChromium(t)) return;
    const { createServer: createViteServer } = await import('vite');
    writeFileSync(join(project, 'index.html'), HTML('/main.js'));
    const server = await createViteServer({
      root: project,
      logLevel: 'silent',
      configFile: false,
      server: { host: '127.0.0.1', port: 0, strictPort: false },
    });
    await server.listen();
    try {
      const { port } = server.httpServer.address();
      assert.deepEqual(await runApp(`http://127.0.0.1:${port}/`), EXPECTED);
    } finally {
      await server.close();
    }
  });
});

describe('webpack 5', () => {
  test('webpack --mode production: the wasm modules are emitted as assets and the app runs', async (t) => {
    if (!requireChromium(t)) return;
    const { default: webpack } = await import('webpack');
    const outDir = join(project, 'dist-webpack');
    const stats = await new Promise((resolve, reject) =>
      webpack(
        {
          mode: 'production',
          context: project,
          entry: './main.js',
          target: 'web',
          output: { path: outDir, filename: 'main.js', publicPath: 'auto' },
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    );
    assert.ok(!stats.hasErrors(), stats.toString('errors-only'));
    writeFileSync(join(outDir, 'index.html'), HTML('./main.js'));
    const wasm = readdirSync(outDir).filter((f) => f.endsWith('.wasm'));
    assert.equal(wasm.length, 2, wasm.join(', '));
    const server = await serve(outDir);
    try {
      assert.deepEqual(await runApp(server.url), EXPECTED);
    } finally {
      server.close();
    }
  });
});

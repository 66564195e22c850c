// SPDX-License-Identifier: MIT
// The loading paths: default entry, init() from bytes, a compiled Module and a URL; failures reject.
// Each scenario runs in a fresh Node process, because the engine is loaded once per process.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));
const wasmBytes = readFileSync(new URL('../../dist/cce.wasm', import.meta.url));

/** Runs an ES module snippet in a fresh process (inside the package, so 'cce-wasm' resolves). */
async function run(code) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', code],
    {
      cwd: root,
      timeout: 20_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop());
}

const SAMPLE = `const messages = [{ id: 'a', role: 'user', content: 'This is a long message about general topics that could be compressed. '.repeat(5) }];
const summary = (r) => r.messages[0].content;`;
const EXPECTED = '[summary: This is a long message about general topics that could be compressed.]';

let server;
let base;
before(async () => {
  server = createServer((req, res) => {
    const types = {
      '/cce.wasm': 'application/wasm',
      '/wrong-type.wasm': 'application/octet-stream',
    };
    if (types[req.url]) {
      res.writeHead(200, { 'content-type': types[req.url] });
      res.end(wasmBytes);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

describe('default entry', () => {
  test('is ready right after import (top-level await) in Node', async () => {
    const out = await run(`${SAMPLE}
      const t0 = performance.now();
      const { compress } = await import('cce-wasm');
      const loadMs = performance.now() - t0;
      console.log(JSON.stringify({ summary: summary(compress(messages, { recencyWindow: 0 })), loadMs }));`);
    assert.equal(out.summary, EXPECTED);
  });

  test('loads the speed build (cce-fast.wasm) under Node', async () => {
    const out = await run(`await import('cce-wasm');
      const { engineBuild } = await import('./dist/transport.js');
      console.log(JSON.stringify({ build: engineBuild() }));`);
    assert.equal(out.build, 'speed');
  });
});

describe('cce-wasm/init', () => {
  test('loads the size build when given cce.wasm, and the speed build when given cce-fast.wasm', async () => {
    const builds = {};
    for (const file of ['cce.wasm', 'cce-fast.wasm']) {
      const out = await run(`import { readFileSync } from 'node:fs';
        import { init } from 'cce-wasm/init';
        await init({ wasmBinary: readFileSync('dist/${file}') });
        const { engineBuild } = await import('./dist/transport.js');
        console.log(JSON.stringify({ build: engineBuild() }));`);
      builds[file] = out.build;
    }
    assert.deepEqual(builds, { 'cce.wasm': 'size', 'cce-fast.wasm': 'speed' });
  });

  test('the size build dedups fuzzily with JavaScript lower-casing, as the speed build does', async () => {
    // The size build has no case tables: the wrapper sends the lower-cased texts. Final_Sigma,
    // U+0130 (two units lower-cased), capital sharp s, a case-ignorable after a sigma, a text
    // below 200 units, and (default mode) a multimodal message that is read as its joined text
    // parts: it is the only link between x and y (each 19/21 like it, 18/22 like each other), so
    // x is deduped only if its lowered text reached the engine.
    const results = {};
    for (const file of ['cce.wasm', 'cce-fast.wasm']) {
      results[file] = await run(`import { readFileSync } from 'node:fs';
        import { init, compress } from 'cce-wasm/init';
        await init({ wasmBinary: readFileSync('dist/${file}') });
        const block = (word, k) => Array.from({ length: 20 }, (_, i) =>
          word + ' ' + i + ' İSTANBUL ẞTRASSE ΑΣ\u0301 ' + (i === k ? 'EXTRA' : '')).join('\\n');
        const linked = block('ΦΩΣ', -1);
        const cut = linked.indexOf('\\n', 150); // the parts join back with a newline
        const messages = [
          { id: 'a', role: 'user', content: block('ΟΔΟΣ', -1) },
          { id: 'b', role: 'assistant', content: block('ΟΔΟΣ', -1).toLowerCase() },
          { id: 'f', role: 'user', content: block('ΟΔΟΣ', 5).toUpperCase() },
          { id: 'e', role: 'assistant', content: 'ΟΔΟΣ short' },
          { id: 'x', role: 'user', content: block('ΦΩΣ', 10).toLowerCase() },
          { id: 'd', role: 'assistant', content: [{ type: 'text', text: linked.slice(0, cut) },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'text', text: linked.slice(cut + 1) }] },
          { id: 'y', role: 'user', content: block('ΦΩΣ', 15) },
        ];
        const out = {};
        for (const [label, options] of [['compat', { compat: 'cce-1.0', fuzzyDedup: true, recencyWindow: 0 }],
                                        ['default', { fuzzyDedup: true, recencyWindow: 0 }],
                                        ['off', { recencyWindow: 0 }]]) {
          const r = compress(messages, options);
          const nearDups = r.messages.filter((m) => /^\\[cce:near-dup/.test(m.content)).map((m) => m.id);
          out[label] = { nearDups, json: JSON.stringify(r) };
        }
        console.log(JSON.stringify(out));`);
    }
    const size = results['cce.wasm'];
    const speed = results['cce-fast.wasm'];
    assert.deepEqual(size.compat.nearDups, ['a', 'b']); // f, the newest of the three, is kept
    assert.deepEqual(size.default.nearDups, ['a', 'b', 'x']); // x through d, as a dup of y
    assert.deepEqual(size.off.nearDups, []);
    assert.deepEqual(size, speed);
  });

  test('throws a clear CompressError before init()', async () => {
    const out = await run(`import { compress, CompressError } from 'cce-wasm/init';
      try { compress([]); console.log('{}'); } catch (e) {
        console.log(JSON.stringify({ isCompressError: e instanceof CompressError, code: e.code, message: e.message }));
      }`);
    assert.equal(out.isCompressError, true);
    assert.equal(out.code, 'Internal');
    assert.match(out.message, /call init\(\)/);
  });

  const sources = {
    'wasm bytes (Buffer)': `{ wasmBinary: readFileSync('dist/cce.wasm') }`,
    'wasm bytes (ArrayBuffer)': `{ wasmBinary: new Uint8Array(readFileSync('dist/cce.wasm')).buffer }`,
    'a compiled WebAssembly.Module': `{ wasmModule: new WebAssembly.Module(readFileSync('dist/cce.wasm')) }`,
    'a URL (application/wasm)': () => `{ wasmUrl: new URL('${base}/cce.wasm') }`,
    'a URL string with the wrong content type': () => `{ wasmUrl: '${base}/wrong-type.wasm' }`,
  };
  for (const [name, source] of Object.entries(sources)) {
    test(`loads from ${name}`, async () => {
      const options = typeof source === 'function' ? source() : source;
      const out = await run(`import { readFileSync } from 'node:fs';
        import { init, compress } from 'cce-wasm/init';
        ${SAMPLE}
        await init(${options});
        await init(${options}); // idempotent
        console.log(JSON.stringify({ summary: summary(compress(messages, { recencyWindow: 0 })) }));`);
      assert.equal(out.summary, EXPECTED);
    });
  }

  const failures = {
    'garbage bytes': `{ wasmBinary: new Uint8Array([1, 2, 3, 4]) }`,
    'an empty but valid wasm module': `{ wasmModule: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) }`,
    'a 404 URL': () => `{ wasmUrl: '${base}/missing.wasm' }`,
    'no source at all': `{}`,
    'a string as wasmModule': `{ wasmModule: 'cce.wasm' }`,
    'init() without options under Node (file: URLs cannot be fetched)': ``,
  };
  for (const [name, source] of Object.entries(failures)) {
    test(`rejects with a CompressError, instead of hanging, for ${name}`, async () => {
      const options = typeof source === 'function' ? source() : source;
      const out = await run(`import { init, compress, CompressError } from 'cce-wasm/init';
        import { readFileSync } from 'node:fs';
        const outcome = {};
        try { await init(${options}); outcome.loaded = true; } catch (e) {
          outcome.isCompressError = e instanceof CompressError; outcome.code = e.code;
        }
        // A failed load can be retried with a good source.
        await init({ wasmBinary: readFileSync('dist/cce.wasm') });
        outcome.after = compress([]).messages.length;
        console.log(JSON.stringify(outcome));`);
      assert.equal(out.loaded, undefined);
      assert.equal(out.isCompressError, true);
      assert.ok(['Internal', 'InvalidInput'].includes(out.code), out.code);
      assert.equal(out.after, 0);
    });
  }

  test('shares one engine with the default entry', async () => {
    // The Node entry wraps compress with its shortcut for unchanged calls, so the functions differ;
    // the engine is the one the default entry loaded: init's compress works without init().
    const out = await run(`const initEntry = await import('cce-wasm/init');
      const main = await import('cce-wasm');
      const long = { id: 'a', role: 'user', content: 'a message long enough to be summarised. '.repeat(8) };
      const viaInit = initEntry.compress([long, { id: 'b', content: 'ok' }], { recencyWindow: 1 });
      const viaMain = main.compress([long, { id: 'b', content: 'ok' }], { recencyWindow: 1 });
      console.log(JSON.stringify({ same: JSON.stringify(viaInit) === JSON.stringify(viaMain),
        compressed: viaInit.compression.messages_compressed, works: initEntry.compress([]).messages.length }));`);
    assert.deepEqual(out, { same: true, compressed: 1, works: 0 });
  });
});

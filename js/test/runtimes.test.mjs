// SPDX-License-Identifier: MIT
// The package in real runtimes: Deno, Bun, Cloudflare workerd (miniflare), Chromium, Firefox and
// WebKit, for the compress entry and for the session entries (context manager, compaction).
// A missing runtime skips its test locally but fails it in CI (CI=true), so CI cannot pass by skipping.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { BROWSERS, browserMissing, launchBrowser, wrongEngine } from './support/browsers.mjs';
import { sharedUrl } from './support/shared-data.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const inCi = process.env.CI === 'true';

// One corpus case as the workload: its expected output is the reference's.
const corpusCase = JSON.parse(
  readFileSync(
    sharedUrl('conformance/public/cases/seed-18-unicode.json'),
    'utf8',
  ),
);
// The reference's mode, since the expected output is the reference's.
const INPUT = JSON.stringify({
  messages: corpusCase.input.messages,
  options: { ...corpusCase.input.options, compat: 'cce-1.0' },
});
const EXPECTED = JSON.stringify(corpusCase.expected.compress);

// The binary answer's two string decoders: the summary of the first message keeps a lone
// surrogate (the pool is then decoded unit by unit), and uncompress answers the store key
// "\ufeffa" as its pool's first string (a UTF-16 decoder must not drop it as a byte order mark).
const POOL_PROSE =
  'The pipeline retries each failed upload after a short pause \ud800 and records every attempt. ' +
  'Operators see what happened and when. ';
const POOL_MESSAGES = [
  { id: '\ufeffa', role: 'user', content: POOL_PROSE.repeat(5) },
  { id: 'b', role: 'assistant', content: 'ok thanks' },
];
// As source text for the runtimes that get code, not objects (JSON.stringify escapes both).
const POOL_MESSAGES_JS = JSON.stringify(POOL_MESSAGES);

// The session workload (cce-wasm/context, cce-wasm/compaction), the same in every runtime: a chat
// replayed into a context manager, compressing whenever due, and an OpenAI history compacted with
// the default profile. 'chars' counts ceil(length / 3.5), so each 350-code-unit message is 100
// tokens: available 1,000, threshold floor(0.75 × 1,000) = 750, first exceeded by the 8th message.
const CHAT = Array.from({ length: 10 }, (_, i) => ({
  role: i % 2 ? 'assistant' : 'user',
  content: `${i}: the deploy failed on host ${i}, café ☕ 😀 — `.padEnd(350, 'lorem ipsum '),
}));
const CONTEXT = { tokenEstimate: 'chars', contextWindow: 1000, keepLast: 2 };
/** Five turns: a request, a reasoning tool call, its result, an answer. */
const HISTORY = [0, 1, 2, 3, 4].flatMap((turn) => [
  { role: 'user', content: `task ${turn}: read f${turn}` },
  {
    role: 'assistant',
    content: null,
    reasoning_content: `thinking ${turn}`,
    tool_calls: [
      {
        id: `call_${turn}`,
        type: 'function',
        function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${turn}.ts` }) },
      },
    ],
  },
  { role: 'tool', tool_call_id: `call_${turn}`, content: `export const f${turn} = ${turn};` },
  { role: 'assistant', content: `f${turn} is ${turn}` },
]);
const SESSION_INPUT = JSON.stringify({ chat: CHAT, context: CONTEXT, history: HISTORY });
// The default profile keeps the last 3 of the 5 turns: turns 0-1 (messages 0-7) lose their
// reasoning, and both sides of each tool call become "[compacted]" (RFD 064); the rest is as sent.
const PROJECTED = HISTORY.map((m, i) => {
  if (i >= 8) return m;
  const { reasoning_content: _, ...rest } = m;
  if (m.role === 'tool') return { ...rest, content: '[compacted] read_file: success' };
  if (!m.tool_calls) return rest;
  const calls = m.tool_calls.map((c) => ({
    ...c,
    function: { ...c.function, arguments: JSON.stringify({ path: '[compacted]' }) },
  }));
  return { ...rest, tool_calls: calls };
});

/** The workload; also serialised into Deno (`${runSession}`), so it uses nothing from here. */
function runSession({ createContextManager, compact, fromOpenAI, project }, input) {
  const manager = createContextManager(input.context);
  const compressedAt = [];
  input.chat.forEach((message, index) => {
    manager.add(message);
    if (manager.compressIfNeeded().some((o) => o.compressed)) compressedAt.push(index);
  });
  const { conversation, compaction } = compact(fromOpenAI(input.history), { profile: 'default' });
  const { view, tokens } = project(conversation, { format: 'openai' });
  return {
    context: { compressedAt, checkpoints: manager.checkpoints, view: manager.view() },
    compaction: { compaction, messages: view.messages, tokens },
  };
}

/** Without the wall-clock `createdAt` of checkpoints. */
const timeless = (value) =>
  JSON.parse(JSON.stringify(value), (key, v) => (key === 'createdAt' ? undefined : v));

let nodeSession;
/** The same workload under Node (the package's node entries), for byte equality across runtimes. */
async function nodeReport() {
  nodeSession ??= Promise.all([import('cce-wasm/context'), import('cce-wasm/compaction')]).then(
    ([context, compaction]) =>
      timeless(runSession({ ...context, ...compaction }, JSON.parse(SESSION_INPUT))),
  );
  return nodeSession;
}

function checkContext(context) {
  assert.deepEqual(context.compressedAt, [7], '800 tokens after the 8th message exceed 750');
  assert.equal(context.checkpoints.length, 1);
  const [checkpoint] = context.checkpoints;
  assert.deepEqual(checkpoint.messageRange, { start: 0, end: 6 }, 'keepLast 2 of 8');
  assert.equal(checkpoint.originalTokens, 600);
  assert.equal(checkpoint.level, 'compact', 'under 2,000 tokens');
  assert.equal(checkpoint.summarizer, 'deterministic');
  // Budget: 10 % of 600 = 60, capped by 4 % of the 1,000 available.
  assert.ok(checkpoint.compressedTokens > 0 && checkpoint.compressedTokens <= 40);
  const { messages, usage, validation } = context.view;
  assert.equal(messages.length, 5, 'one summary message, then the last four as sent');
  assert.equal(messages[0].metadata.covered_until, 6);
  assert.ok(messages[0].content.includes(checkpoint.summary));
  assert.deepEqual(messages.slice(1), CHAT.slice(6));
  assert.equal(usage.recent, 400);
  assert.equal(usage.checkpoints + usage.recent, usage.conversation);
  assert.equal(usage.shouldCompress, false);
  assert.equal(validation.fits, true);
}

function checkCompaction(compaction) {
  assert.deepEqual(
    [compaction.compaction.fromTurn, compaction.compaction.toTurn],
    [0, 1],
    'the default profile keeps the last three turns',
  );
  assert.equal(compaction.compaction.reasoning, 'strip');
  assert.equal(compaction.compaction.toolCalls, 'strip');
  assert.deepEqual(compaction.messages, PROJECTED);
}

/** What every runtime must produce: the expected behaviour, and Node's output byte for byte. */
async function checkSession(report) {
  checkContext(report.context);
  checkCompaction(report.compaction);
  assert.equal(JSON.stringify(timeless(report)), JSON.stringify(await nodeReport()));
}

/** Skips locally when a runtime is missing; in CI that is a failure. */
function requireRuntime(t, name, available, hint) {
  if (available) return true;
  if (inCi) assert.fail(`${name} is missing in CI: ${hint}`);
  t.skip(`${name} not installed (${hint})`);
  return false;
}

async function importOptional(name) {
  try {
    return await import(name);
  } catch {
    return undefined;
  }
}

describe('Deno', () => {
  const deno = [join(root, 'node_modules/.bin/deno'), '/usr/local/bin/deno', '/usr/bin/deno'].find(
    existsSync,
  );
  const env = { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
  const run = (args) =>
    promisify(execFile)(deno, args, { cwd: root, env, timeout: 60_000, maxBuffer: 64 << 20 });

  test('runs examples/deno/main.ts (default entry, wasm fetched from a file: URL)', async (t) => {
    if (!requireRuntime(t, 'deno', deno, 'npm install (devDependency "deno")')) return;
    const dir = mkdtempSync(join(tmpdir(), 'cce-deno-'));
    try {
      writeFileSync(join(dir, 'input.json'), INPUT);
      const { stdout } = await run([
        'run',
        '--allow-read',
        'examples/deno/main.ts',
        join(dir, 'input.json'),
      ]);
      assert.equal(stdout.trim(), EXPECTED);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('loads the node entry and cce-wasm/init with bytes', async (t) => {
    if (!requireRuntime(t, 'deno', deno, 'npm install (devDependency "deno")')) return;
    const code = `const input = ${INPUT};
      const viaNode = await import('./dist/node.js');
      const viaInit = await import('./dist/init.js');
      await viaInit.init({ wasmBinary: await Deno.readFile('dist/cce.wasm') });
      console.log(JSON.stringify([viaNode.compress(input.messages, input.options), viaInit.compress(input.messages, input.options)]));`;
    const { stdout } = await run(['eval', '--ext=js', code]);
    assert.equal(stdout.trim(), `[${EXPECTED},${EXPECTED}]`);
  });

  test('answers keep a lone surrogate in a summary and a leading U+FEFF in a store key', async (t) => {
    if (!requireRuntime(t, 'deno', deno, 'npm install (devDependency "deno")')) return;
    const code = `const { compress, uncompress } = await import('./dist/index.js');
      const messages = ${POOL_MESSAGES_JS};
      const result = compress(messages, { recencyWindow: 1 });
      const restored = uncompress(result.messages, result.verbatim).messages;
      console.log(JSON.stringify([result.messages[0].content.includes('\\ud800'), restored[0] === messages[0]]));`;
    const { stdout } = await run(['eval', '--ext=js', code]);
    assert.equal(stdout.trim(), '[true,true]');
  });

  test('runs examples/deno/session.ts (session entries, wasm fetched from a file: URL)', async (t) => {
    if (!requireRuntime(t, 'deno', deno, 'npm install (devDependency "deno")')) return;
    const dir = mkdtempSync(join(tmpdir(), 'cce-deno-'));
    try {
      writeFileSync(join(dir, 'input.json'), SESSION_INPUT);
      const { stdout } = await run([
        'run',
        '--allow-read',
        'examples/deno/session.ts',
        join(dir, 'input.json'),
      ]);
      await checkSession(JSON.parse(stdout));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('runs the session workload via cce-wasm/session/init with bytes and via the node entries', async (t) => {
    if (!requireRuntime(t, 'deno', deno, 'npm install (devDependency "deno")')) return;
    // Separate processes: the entries share one loader, so the first load would serve both.
    const viaInit = `const api = await import('./dist/session-init.js');
      await api.init({ wasmBinary: await Deno.readFile('dist/cce-session.wasm') });
      console.log(JSON.stringify((${runSession})(api, ${SESSION_INPUT})));`;
    const viaNode = `const api = { ...(await import('./dist/context-node.js')),
        ...(await import('./dist/compaction-node.js')) };
      console.log(JSON.stringify((${runSession})(api, ${SESSION_INPUT})));`;
    const outputs = await Promise.all(
      [viaInit, viaNode].map((code) => run(['eval', '--ext=js', code])),
    );
    for (const { stdout } of outputs) await checkSession(JSON.parse(stdout));
  });
});

describe('Bun', () => {
  const bun = join(root, 'node_modules/.bin/bun');
  const hint = 'npm install (devDependency "bun")';
  /** Runs `code` (an .mjs or .cjs file by `name`) in a project that has the package installed
   * (a link to this checkout), so that Bun resolves it by its exports as it would from npm. */
  async function runInProject(name, code) {
    const dir = mkdtempSync(join(tmpdir(), 'cce-bun-'));
    try {
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(root, join(dir, 'node_modules/cce-wasm'), 'dir');
      writeFileSync(join(dir, name), code);
      const { stdout } = await promisify(execFile)(bun, [name], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1' },
        timeout: 60_000,
        maxBuffer: 64 << 20,
      });
      return stdout.trim();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test('imports cce-wasm (the node entry) and cce-wasm/init with bytes', async (t) => {
    if (!requireRuntime(t, 'bun', existsSync(bun), hint)) return;
    const stdout = await runInProject('main.mjs', `import { readFileSync } from 'node:fs';
      import { compress, uncompress } from 'cce-wasm';
      import { init, compress as compressViaInit } from 'cce-wasm/init';
      const input = ${INPUT};
      await init({ wasmBinary: readFileSync(new URL(import.meta.resolve('cce-wasm/cce.wasm'))) });
      const messages = ${POOL_MESSAGES_JS};
      const pooled = compress(messages, { recencyWindow: 1 });
      const restored = uncompress(pooled.messages, pooled.verbatim).messages;
      console.log(JSON.stringify([import.meta.resolve('cce-wasm').endsWith('/dist/node.js'),
        compress(input.messages, input.options), compressViaInit(input.messages, input.options),
        pooled.messages[0].content.includes('\\ud800'), restored[0].id === messages[0].id]));`);
    assert.equal(stdout, `[true,${EXPECTED},${EXPECTED},true,true]`);
  });

  test('require()s cce-wasm from CommonJS', async (t) => {
    if (!requireRuntime(t, 'bun', existsSync(bun), hint)) return;
    const stdout = await runInProject('main.cjs', `const { compress } = require('cce-wasm');
      const input = ${INPUT};
      console.log(JSON.stringify(compress(input.messages, input.options)));`);
    assert.equal(stdout, EXPECTED);
  });

  test('runs the session workload through cce-wasm/context and cce-wasm/compaction', async (t) => {
    if (!requireRuntime(t, 'bun', existsSync(bun), hint)) return;
    const stdout = await runInProject('session.mjs', `import * as context from 'cce-wasm/context';
      import * as compaction from 'cce-wasm/compaction';
      console.log(JSON.stringify((${runSession})({ ...context, ...compaction }, ${SESSION_INPUT})));`);
    await checkSession(JSON.parse(stdout));
  });
});

describe('Cloudflare workerd', () => {
  /** Starts examples/cloudflare-worker on 127.0.0.1; undefined (skipped) without miniflare. */
  async function startWorker(t) {
    const miniflare = await importOptional('miniflare');
    if (!requireRuntime(t, 'miniflare', miniflare, 'npm install (devDependency "miniflare")'))
      return undefined;
    // Workers resolve `cce-wasm/...` imports to modules of that name: lay the package out under it,
    // exactly as its exports map does (the wasm as a compiled module, never bytes).
    const dist = join(root, 'dist');
    const modules = [
      {
        type: 'ESModule',
        path: join(root, 'worker.mjs'),
        contents: readFileSync(join(root, 'examples/cloudflare-worker/src/worker.mjs'), 'utf8'),
      },
      {
        type: 'ESModule',
        path: join(root, 'cce-wasm/init'),
        contents: readFileSync(join(dist, 'init.js'), 'utf8'),
      },
      // One directory deeper: an alias of the file, as the exports map makes it.
      {
        type: 'ESModule',
        path: join(root, 'cce-wasm/session/init'),
        contents: "export * from '../session-init.js';\n",
      },
      ...['cce.wasm', 'cce-session.wasm'].map((f) => ({
        type: 'CompiledWasm',
        path: join(root, 'cce-wasm', f),
        contents: readFileSync(join(dist, f)),
      })),
      ...readdirSync(dist)
        .filter((f) => f.endsWith('.js') || f === 'cce.mjs' || f === 'cce-session.mjs')
        .map((f) => ({
          type: 'ESModule',
          path: join(root, 'cce-wasm', f),
          contents: readFileSync(join(dist, f), 'utf8'),
        })),
    ];
    const mf = new miniflare.Miniflare({
      host: '127.0.0.1',
      port: 0,
      modulesRoot: root,
      compatibilityDate: '2024-09-23',
      modules,
    });
    return mf;
  }

  test('examples/cloudflare-worker answers a POST on 127.0.0.1 with the compressed result', async (t) => {
    const mf = await startWorker(t);
    if (!mf) return;
    try {
      const url = await mf.ready;
      assert.equal(url.hostname, '127.0.0.1');
      const ok = await fetch(url, { method: 'POST', body: INPUT });
      assert.equal(ok.status, 200);
      assert.equal(await ok.text(), EXPECTED);
      const bad = await fetch(url, { method: 'POST', body: JSON.stringify({ messages: [null] }) });
      assert.equal(bad.status, 400);
      assert.deepEqual((await bad.json()).error, {
        code: 'InvalidInput',
        message: 'compress(): messages[0] must be an object',
        path: '/messages/0',
      });
      const lone = await fetch(url, {
        method: 'POST',
        body: JSON.stringify({ messages: [{ id: 'x', content: 'a\ud800b' }] }),
      });
      assert.equal((await lone.json()).messages[0].content, 'a\ud800b');
      const pooled = await fetch(url, {
        method: 'POST',
        body: JSON.stringify({ messages: POOL_MESSAGES, options: { recencyWindow: 1 } }),
      });
      const summary = (await pooled.json()).messages[0].content;
      assert.ok(summary.startsWith('[summary') && summary.includes('\ud800'), summary);
    } finally {
      await mf.dispose();
    }
  });

  test('examples/cloudflare-worker answers POST /context and /compact with cce-session.wasm as a module', async (t) => {
    const mf = await startWorker(t);
    if (!mf) return;
    const post = (url, body) => fetch(url, { method: 'POST', body: JSON.stringify(body) });
    try {
      const url = await mf.ready;
      assert.equal(url.hostname, '127.0.0.1');
      const bad = await post(new URL('/compact', url), { messages: [null] });
      assert.equal(bad.status, 400);
      assert.deepEqual((await bad.json()).error, {
        code: 'InvalidInput',
        message: 'a message must be an object',
        path: '/messages/0',
      });
      const badConfig = await post(new URL('/context', url), { config: { contextWindow: 'x' } });
      assert.equal(badConfig.status, 400);
      assert.equal((await badConfig.json()).error.path, '/config/contextWindow');
      // Both after the errors: they leave the engine usable.
      const compacted = await post(new URL('/compact', url), { messages: HISTORY });
      assert.equal(compacted.status, 200);
      const context = await post(new URL('/context', url), { config: CONTEXT, messages: CHAT });
      assert.equal(context.status, 200);
      await checkSession({ context: await context.json(), compaction: await compacted.json() });
      // The compress engine beside it still answers.
      const ok = await fetch(url, { method: 'POST', body: INPUT });
      assert.equal(await ok.text(), EXPECTED);
      assert.equal((await post(new URL('/nowhere', url), {})).status, 404);
    } finally {
      await mf.dispose();
    }
  });
});

// The same pages in the three browser engines (support/browsers.mjs).
for (const engine of BROWSERS) describe(engine.name, () => {
  const types = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.mjs': 'text/javascript; charset=utf-8',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
  };
  const pages = {
    '/': join(root, 'js/test/browser.html'),
    '/session': join(root, 'js/test/session-browser.html'),
    '/worker': join(root, 'js/test/worker.html'),
    '/worker.js': join(root, 'js/test/worker.js'),
    '/sw': join(root, 'js/test/sw.html'),
    '/sw.js': join(root, 'js/test/sw.js'),
    '/corpus-case.js': join(root, 'js/test/corpus-case.js'),
  };
  const inputs = { '/input.json': INPUT, '/session-input.json': SESSION_INPUT };

  /**
   * Serves the test pages and dist/ on 127.0.0.1 and opens the headless browser; `use` gets a
   * function loading a page and returning its window.__cce report and page errors.
   */
  async function withBrowser(t, use) {
    const missing = await browserMissing(engine);
    if (!requireRuntime(t, engine.name, !missing, missing)) return;
    const server = createServer((req, res) => {
      const path = new URL(req.url, 'http://x').pathname;
      if (inputs[path] !== undefined)
        return res.writeHead(200, { 'content-type': types['.json'] }).end(inputs[path]);
      let file = pages[path];
      if (path.startsWith('/dist/')) file = join(root, normalize(path));
      if (!file || !(pages[path] || file.startsWith(join(root, 'dist'))) || !existsSync(file))
        return res.writeHead(404).end();
      res
        .writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
        .end(readFileSync(file));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const browser = await launchBrowser(engine);
    try {
      await use(async (path) => {
        const page = await browser.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
        await page.waitForFunction(() => window.__cce !== undefined, { timeout: 30_000 });
        assert.equal(await wrongEngine(engine, page), undefined, 'the page runs in its engine');
        return { page, errors, report: await page.evaluate(() => window.__cce) };
      });
    } finally {
      await browser.close();
      server.close();
    }
  }

  for (const [name, query, build] of [
    ['imports the package and compresses', '', 'size'],
    ['compresses with the speed build loaded through init({ wasmUrl })', '?wasm=fast', 'speed'],
  ]) {
    test(`a page on 127.0.0.1 ${name}`, async (t) => {
      await withBrowser(t, async (open) => {
        const { page, errors, report } = await open(`/${query}`);
        if (process.env.CCE_SCREENSHOT && !query && engine.name === 'Chromium') {
          await page.screenshot({ path: process.env.CCE_SCREENSHOT });
        }
        assert.equal(report.failure, undefined);
        assert.deepEqual(errors, []);
        assert.equal(report.build, build);
        assert.equal(report.json, EXPECTED);
        assert.equal(report.identity, corpusCase.expected.compress.compression.messages_preserved);
        assert.equal(report.roundTrip, corpusCase.expected.roundtrip_ok);
        assert.equal(report.lone, true);
        assert.equal(report.pool, true, 'lone surrogates and a leading U+FEFF survive the answer');
        assert.equal(report.asyncIsPromise, true);
        assert.equal(
          report.asyncJson,
          EXPECTED,
          'a rejecting summarizer falls back to the sync output',
        );
        assert.deepEqual(report.error, [
          true,
          'InvalidInput',
          'compress(): messages[0] must be an object',
        ]);
        assert.equal(report.trap, 'Internal');
        assert.equal(report.afterTrap, true);
      });
    });
  }

  test('a dedicated Web Worker on 127.0.0.1 imports the package and compresses', async (t) => {
    await withBrowser(t, async (open) => {
      const { errors, report } = await open('/worker');
      assert.equal(report.failure, undefined);
      assert.deepEqual(errors, []);
      assert.equal(report.inWorker, true);
      assert.equal(report.build, 'size');
      assert.equal(report.json, EXPECTED);
      assert.equal(report.roundTrip, corpusCase.expected.roundtrip_ok);
    });
  });

  test('a module service worker (as a browser extension has) compresses through cce-wasm/init', async (t) => {
    await withBrowser(t, async (open) => {
      const { errors, report } = await open('/sw');
      assert.equal(report.failure, undefined);
      assert.deepEqual(errors, []);
      assert.equal(report.inServiceWorker, true);
      assert.equal(report.json, EXPECTED);
      assert.equal(report.roundTrip, corpusCase.expected.roundtrip_ok);
    });
  });

  for (const via of ['init', 'entries']) {
    const how =
      via === 'init'
        ? 'cce-wasm/session/init and init()'
        : 'cce-wasm/context and cce-wasm/compaction';
    test(`a page on 127.0.0.1 runs a context manager and a compaction through ${how}`, async (t) => {
      await withBrowser(t, async (open) => {
        const { errors, report } = await open(`/session?via=${via}`);
        assert.equal(report.failure, undefined);
        assert.deepEqual(errors, []);
        assert.equal(report.via, via);
        await checkSession(JSON.parse(report.json));
        assert.deepEqual(report.error, [true, 'InvalidInput', '/messages/0']);
        assert.equal(report.trap, 'Internal');
        assert.equal(report.afterTrap, true, 'the same results from the re-created instance');
      });
    });
  }
});

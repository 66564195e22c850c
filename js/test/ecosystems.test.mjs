// SPDX-License-Identifier: MIT
// Examples as tests: every block of README.md marked `<!-- example: NAME -->` runs as
// written — under Node with the real SDKs (ai + @ai-sdk/openai, @langchain/core + langchain,
// openai, @anthropic-ai/sdk) pointed at a fake provider on 127.0.0.1 by their base-URL variables,
// in workerd (miniflare), Deno and Chromium. No network.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';

import { validate } from 'cce-wasm/formats';

import { CHROMIUM_FLAGS } from './support/chromium.mjs';
import { answerFor, startFakeProvider } from './support/fake-provider.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const doc = readFileSync(join(root, 'README.md'), 'utf8');
const examples = Object.fromEntries(
  [...doc.matchAll(/<!-- example: (\S+) -->\n```\w+\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]]),
);
// Eight tool results of 60 log lines: what the examples' conversations carry uncompressed.
const LOGS = 8 * 60 * 'shard 0: GET /api/orders 200 12ms cache=miss region=eu-west-1\n'.length;

let upstream;
let received;
let dir;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cce-ecosystems-'));
  upstream = await startFakeProvider('Shard 3.');
  received = upstream.received;
});
after(() => {
  upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes an example inside the package (so `cce-wasm/...` resolves to it) and runs it with Node. */
async function runNode(name) {
  const at = join(root, 'build', 'ecosystems');
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, name), examples[name]);
  received.length = 0;
  const { stdout } = await exec(process.execPath, [join(at, name)], {
    cwd: root,
    timeout: 60_000,
    env: {
      ...process.env,
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      OPENAI_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: upstream.url,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    },
  });
  return stdout;
}

/** What the provider received: a valid conversation, the system prompt whole, well under the logs' size. */
function checkSent(sent, format, system) {
  assert.deepEqual(validate(sent.messages, format === 'anthropic' ? { format, system: sent.system } : { format }), []);
  if (format === 'anthropic') assert.equal(sent.system, system);
  else assert.deepEqual(sent.messages[0], { role: 'system', content: system });
  const size = JSON.stringify(sent.messages).length;
  assert.ok(size < LOGS / 2, `${size} chars sent, of ${LOGS} in the logs alone`);
}

test('README.md has the seven examples', () => {
  assert.deepEqual(Object.keys(examples).sort(), ['ai-sdk.mjs', 'anthropic.mjs', 'browser.mjs', 'deno.ts', 'langchain.mjs', 'openai.mjs', 'worker.mjs']);
});

describe('Node, with the real SDKs', () => {
  test('AI SDK: the OpenAI provider sends a compressed prompt', async () => {
    assert.equal((await runNode('ai-sdk.mjs')).trim(), 'Shard 3.');
    assert.equal(received.length, 1);
    assert.equal(received[0].path, '/v1/chat/completions');
    checkSent(received[0].body, 'openai-chat', 'You are an SRE assistant.');
  });

  test('LangChain: the chain and the agent answer', async () => {
    assert.equal((await runNode('langchain.mjs')).trim(), 'Shard 3.\nShard 3.');
  });

  test('OpenAI SDK: compressRequest body sent as is', async () => {
    assert.equal((await runNode('openai.mjs')).trim(), 'Shard 3.');
    assert.equal(received[0].path, '/v1/chat/completions');
    checkSent(received[0].body, 'openai-chat', 'You are an SRE assistant.');
    assert.equal(received[0].body.max_completion_tokens, 500);
  });

  test('Anthropic SDK: compressRequest body sent as is', async () => {
    assert.equal((await runNode('anthropic.mjs')).trim(), 'Shard 3.');
    assert.equal(received[0].path, '/v1/messages');
    checkSent(received[0].body, 'anthropic', 'You are an SRE assistant.');
  });
});

test('Workers: the worker forwards a compressed request (workerd)', async () => {
  const project = join(dir, 'worker');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(root, join(project, 'node_modules', 'cce-wasm'), 'dir');
  writeFileSync(join(project, 'worker.mjs'), examples['worker.mjs']);
  const out = join(project, 'out');
  await esbuild.build({
    entryPoints: [join(project, 'worker.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['*.wasm'],
    outdir: out,
    logLevel: 'silent',
  });
  copyFileSync(join(root, 'dist/cce.wasm'), join(out, 'cce.wasm'));
  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    compatibilityDate: '2024-09-23',
    modulesRoot: out,
    modules: [
      { type: 'ESModule', path: join(out, 'worker.js') },
      { type: 'CompiledWasm', path: join(out, 'cce.wasm') },
    ],
    bindings: { ANTHROPIC_BASE_URL: upstream.url },
  });
  try {
    const url = new URL(await mf.ready).origin;
    // The Anthropic example's conversation, with max_tokens leaving 1,000 tokens of the window.
    const messages = [];
    const log = (shard) => `shard ${shard}: GET /api/orders 200 12ms cache=miss region=eu-west-1\n`.repeat(60);
    for (let shard = 0; shard < 8; shard++) {
      messages.push({ role: 'user', content: `Read the logs of shard ${shard}.` });
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${shard}`, name: 'read_logs', input: { shard } }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${shard}`, content: log(shard) }] });
      messages.push({ role: 'assistant', content: `Shard ${shard} looks healthy.` });
    }
    messages.push({ role: 'user', content: 'Which shard was slowest?' });
    received.length = 0;
    const res = await fetch(`${url}/`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-ant-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 199_000, system: 'You are an SRE assistant.', messages }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), answerFor('/v1/messages', 'Shard 3.'));
    assert.equal(received[0].path, '/v1/messages');
    checkSent(received[0].body, 'anthropic', 'You are an SRE assistant.');
  } finally {
    await mf.dispose();
  }
});

test('Deno: npm:cce-wasm/formats (mapped to dist/)', async (t) => {
  const deno = [join(root, 'node_modules/.bin/deno'), '/usr/local/bin/deno', '/usr/bin/deno'].find(existsSync);
  if (!deno) return t.skip('deno not installed: npm install (devDependency "deno")');
  const at = join(root, 'build', 'ecosystems');
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'deno.ts'), examples['deno.ts']);
  writeFileSync(join(at, 'deno.json'), JSON.stringify({ imports: { 'npm:cce-wasm/formats': '../../dist/formats-web.js' } }));
  const { stdout } = await exec(deno, ['run', '--allow-read', '--config', join(at, 'deno.json'), join(at, 'deno.ts')], {
    cwd: root,
    timeout: 60_000,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  const { tokenCount, problems } = JSON.parse(stdout);
  assert.deepEqual(problems, []);
  assert.ok(tokenCount <= 200, String(tokenCount));
});

test('Browser: the bundled example compresses in Chromium', async (t) => {
  const chromium = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => p && existsSync(p));
  if (!chromium) return t.skip('chromium not installed (apt-get install -y chromium)');
  const { chromium: browser } = await import('playwright-core');
  const project = join(dir, 'browser');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(root, join(project, 'node_modules', 'cce-wasm'), 'dir');
  writeFileSync(join(project, 'main.mjs'), examples['browser.mjs']);
  const out = join(project, 'out');
  await esbuild.build({
    entryPoints: [join(project, 'main.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outdir: out,
    logLevel: 'silent',
  });
  copyFileSync(join(root, 'dist/cce.wasm'), join(out, 'cce.wasm'));
  const files = {
    '/': ['text/html', '<!doctype html><body></body><script type="module" src="/main.js"></script>'],
    '/main.js': ['text/javascript', readFileSync(join(out, 'main.js'))],
    '/cce.wasm': ['application/wasm', readFileSync(join(out, 'cce.wasm'))],
  };
  const server = createServer((req, res) => {
    const file = files[new URL(req.url, 'http://x').pathname];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const profile = mkdtempSync(join(tmpdir(), 'cce-chromium-'));
  const context = await browser.launchPersistentContext(profile, { executablePath: chromium, headless: true, args: CHROMIUM_FLAGS });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => document.body.textContent.includes('tokens'), null, { timeout: 30_000 });
    const text = await page.evaluate(() => document.body.textContent);
    assert.deepEqual(errors, []);
    const m = /^(\d+) tokens, fits: true$/.exec(text);
    assert.ok(m && Number(m[1]) <= 200, text);
  } finally {
    await context.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

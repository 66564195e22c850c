// SPDX-License-Identifier: MIT
// cce-wasm/request: provider request bodies compressed with every other field untouched, and
// examples/edge-proxy forwarding compressed OpenAI and Anthropic requests from workerd
// (miniflare) and Deno to a fake upstream on 127.0.0.1 that records what it receives. No network.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';

import { validate } from 'cce-wasm/formats';
import { compressRequest } from 'cce-wasm/request';

const root = fileURLToPath(new URL('../..', import.meta.url));
const REPORT =
  'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ' +
  'Stage logs are kept for thirty days in the artifacts bucket, and the retry policy is read from ci/retry.yaml. ';
const TOOLS_OPENAI = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];

function openaiChatBody(turns = 6) {
  const messages = [{ role: 'system', content: 'You are a build assistant.' }];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `Question ${t}: ${REPORT.repeat(3)}` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${t}`, type: 'function', function: { name: 'lookup', arguments: `{"stage":${t}}` } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${t}`, content: `Stage ${t} log:\n${REPORT.repeat(6)}` });
    messages.push({ role: 'assistant', content: `Stage ${t}: ${REPORT.repeat(2)}` });
  }
  messages.push({ role: 'user', content: 'Which file holds the retry policy?' });
  return { model: 'gpt-4.1', messages, tools: TOOLS_OPENAI, temperature: 0, max_tokens: 500, stream: false };
}

function anthropicBody(turns = 6) {
  const messages = [];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `Question ${t}: ${REPORT.repeat(3)}` });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking it up.' },
        { type: 'tool_use', id: `toolu_${t}`, name: 'lookup', input: { stage: t } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${t}`, content: `Stage ${t} log:\n${REPORT.repeat(6)}` }],
    });
    messages.push({ role: 'assistant', content: `Stage ${t}: ${REPORT.repeat(2)}` });
  }
  messages.push({ role: 'user', content: 'Which file holds the retry policy?' });
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 500,
    system: [{ type: 'text', text: 'You are a build assistant.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} } }],
    messages,
  };
}

function responsesBody(turns = 6) {
  const input = [];
  for (let t = 0; t < turns; t++) {
    input.push({ role: 'user', content: `Question ${t}: ${REPORT.repeat(3)}` });
    input.push({ type: 'function_call', call_id: `call_${t}`, name: 'lookup', arguments: `{"stage":${t}}` });
    input.push({ type: 'function_call_output', call_id: `call_${t}`, output: `Stage ${t} log:\n${REPORT.repeat(6)}` });
    input.push({ role: 'assistant', content: `Stage ${t}: ${REPORT.repeat(2)}` });
  }
  input.push({ role: 'user', content: 'Which file holds the retry policy?' });
  return { model: 'gpt-4.1', instructions: 'You are a build assistant.', input, tools: [{ type: 'function', name: 'lookup' }], store: false };
}

const size = (x) => JSON.stringify(x).length;

/** Everything but the conversation is the caller's own value; the conversation is valid and smaller. */
function checkBody(out, body, field, format) {
  assert.notEqual(out, body, 'a new body');
  for (const key of Object.keys(body)) if (key !== field) assert.equal(out[key], body[key], `${key} untouched`);
  assert.deepEqual(Object.keys(out), Object.keys(body), 'the same fields, in the same order');
  const options = format === 'anthropic' ? { format, system: body.system } : { format };
  assert.deepEqual(validate(out[field], options), [], 'a valid conversation');
  // The budgets here are about 40 % of the conversation's tokens and the engine spends what it is
  // given (the newest content comes back whole), so the JSON, ids and tool calls included, comes
  // to well under two thirds of the input's.
  assert.ok(size(out[field]) < (size(body[field]) * 2) / 3, `${size(out[field])} < 2/3 of ${size(body[field])}`);
}

describe('compressRequest', () => {
  test('OpenAI Chat: messages compressed, the system message and every other field kept', () => {
    const body = openaiChatBody();
    const frozen = JSON.stringify(body);
    const results = [];
    const out = compressRequest(body, { provider: 'openai-chat', tokenBudget: 1500, onCompress: (r) => results.push(r) });
    checkBody(out, body, 'messages', 'openai-chat');
    assert.equal(out.messages[0], body.messages[0], 'the system message is the caller’s own');
    assert.ok(results[0].fits);
    assert.equal(JSON.stringify(body), frozen, 'the body is untouched');
  });

  test('Anthropic: messages compressed, system counted against the budget and kept', () => {
    const body = anthropicBody();
    const results = [];
    const out = compressRequest(body, { provider: 'anthropic', tokenBudget: 1500, onCompress: (r) => results.push(r) });
    checkBody(out, body, 'messages', 'anthropic');
    assert.ok(results[0].fits && results[0].tokenCount <= 1500);
  });

  test('OpenAI Responses: input items compressed; a string input is left as it is', () => {
    const body = responsesBody();
    checkBody(compressRequest(body, { provider: 'openai-responses', tokenBudget: 1500 }), body, 'input', 'openai-responses');
    const plain = { model: 'gpt-4.1', input: REPORT.repeat(50) };
    assert.equal(compressRequest(plain, { provider: 'openai-responses', tokenBudget: 10 }), plain);
  });

  test('contextWindow keeps the body’s own max tokens free', () => {
    const results = [];
    const body = { ...anthropicBody(), max_tokens: 1000 };
    compressRequest(body, { provider: 'anthropic', contextWindow: 2500, onCompress: (r) => results.push(r) });
    assert.ok(results[0].fits && results[0].tokenCount <= 1500, String(results[0].tokenCount));
    const chat = { ...openaiChatBody(), max_tokens: undefined, max_completion_tokens: 1000 };
    compressRequest(chat, { provider: 'openai-chat', contextWindow: 2500, onCompress: (r) => results.push(r) });
    assert.ok(results[1].fits && results[1].tokenCount <= 1500, String(results[1].tokenCount));
  });

  test('bad options and bodies are CompressErrors; the module stays usable', () => {
    const bad = { name: 'CompressError', code: 'InvalidInput' };
    assert.throws(() => compressRequest(openaiChatBody(), { provider: 'gemini', tokenBudget: 10 }), bad);
    assert.throws(() => compressRequest(openaiChatBody(), { provider: 'toString', tokenBudget: 10 }), bad);
    assert.throws(() => compressRequest(openaiChatBody()), bad);
    assert.throws(() => compressRequest('{}', { provider: 'anthropic' }), bad);
    assert.throws(() => compressRequest(openaiChatBody(), { provider: 'openai-chat', contextWindow: 'big' }), bad);
    const empty = { model: 'x', messages: [] };
    assert.equal(compressRequest(empty, { provider: 'openai-chat', tokenBudget: 10 }), empty);
    checkBody(compressRequest(openaiChatBody(), { provider: 'openai-chat', tokenBudget: 1500 }), openaiChatBody(), 'messages', 'openai-chat');
  });
});

/** A fake provider: records each request and answers with a canned completion. */
async function fakeUpstream() {
  const received = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => {
      received.push({ path: req.url, headers: req.headers, body: JSON.parse(data) });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'answer', path: req.url }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { received, server, url: `http://127.0.0.1:${server.address().port}` };
}

/** Sends the three kinds of request through a running proxy; checks what the upstream got. */
async function exerciseProxy(proxyUrl, upstream) {
  const cases = [
    ['/v1/chat/completions', openaiChatBody(), 'messages', 'openai-chat', { authorization: 'Bearer sk-test' }],
    ['/v1/messages', anthropicBody(), 'messages', 'anthropic', { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }],
    ['/v1/responses', responsesBody(), 'input', 'openai-responses', { authorization: 'Bearer sk-test' }],
  ];
  for (const [path, body, field, format, headers] of cases) {
    upstream.received.length = 0;
    const res = await fetch(proxyUrl + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { id: 'answer', path }, 'the upstream answer comes back');
    assert.equal(upstream.received.length, 1);
    const got = upstream.received[0];
    assert.equal(got.path, path);
    for (const [k, v] of Object.entries(headers)) assert.equal(got.headers[k], v, `header ${k} forwarded`);
    for (const key of Object.keys(body)) if (key !== field) assert.deepEqual(got.body[key], body[key], `${path}: ${key} untouched`);
    const options = format === 'anthropic' ? { format, system: body.system } : { format };
    assert.deepEqual(validate(got.body[field], options), [], `${path}: a valid conversation`);
    assert.ok(size(got.body[field]) < (size(body[field]) * 2) / 3, `${path}: compressed`);
  }
  assert.equal((await fetch(proxyUrl + '/v1/models')).status, 404);
}

describe('examples/edge-proxy', () => {
  let upstream;
  let dir;
  before(async () => {
    upstream = await fakeUpstream();
    dir = mkdtempSync(join(tmpdir(), 'cce-proxy-'));
  });
  after(() => {
    upstream.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('worker.mjs in workerd (miniflare) forwards compressed OpenAI and Anthropic requests', async () => {
    // The example as a user's project: its files beside node_modules/cce-wasm, bundled as wrangler does.
    const project = join(dir, 'worker');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(root, join(project, 'node_modules', 'cce-wasm'), 'dir');
    for (const f of ['proxy.mjs', 'worker.mjs']) copyFileSync(join(root, 'examples/edge-proxy', f), join(project, f));
    const out = join(project, 'out');
    const { metafile } = await esbuild.build({
      entryPoints: [join(project, 'worker.mjs')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      external: ['*.wasm'],
      outdir: out,
      metafile: true,
      logLevel: 'silent',
    });
    const wasm = [...new Set(Object.values(metafile.outputs).flatMap((o) => o.imports).filter((i) => i.external).map((i) => i.path.replace(/^\.\//, '')))];
    assert.deepEqual(wasm, ['cce.wasm'], 'the size build, as a module import');
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
      bindings: { OPENAI_BASE_URL: upstream.url, ANTHROPIC_BASE_URL: upstream.url, CONTEXT_WINDOW: '1500' },
    });
    try {
      const url = new URL(await mf.ready).origin;
      await exerciseProxy(url, upstream);
    } finally {
      await mf.dispose();
    }
  });

  test('deno.ts under Deno forwards the same', async (t) => {
    const deno = [join(root, 'node_modules/.bin/deno'), '/usr/local/bin/deno', '/usr/bin/deno'].find(existsSync);
    if (!deno) return t.skip('deno not installed: npm install (devDependency "deno")');
    const child = spawn(
      deno,
      ['run', '--allow-net', '--allow-read', '--allow-env', '--config', 'examples/edge-proxy/deno.json', 'examples/edge-proxy/deno.ts'],
      {
        cwd: root,
        env: {
          ...process.env,
          DENO_NO_UPDATE_CHECK: '1',
          NO_COLOR: '1',
          PORT: '0',
          OPENAI_BASE_URL: upstream.url,
          ANTHROPIC_BASE_URL: upstream.url,
          CONTEXT_WINDOW: '1500',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const port = await new Promise((resolve, reject) => {
        let out = '';
        let err = '';
        const timer = setTimeout(() => reject(new Error(`deno did not start: ${err}`)), 60_000);
        child.stdout.on('data', (d) => {
          out += d;
          const m = /listening on (\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        });
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`deno exited (${code}): ${err}`));
        });
      });
      await exerciseProxy(`http://127.0.0.1:${port}`, upstream);
    } finally {
      child.kill();
    }
  });
});

// SPDX-License-Identifier: MIT
// cce-wasm/ai-sdk with the real `ai` 7 (installed as `ai-v7`; ai 7 needs Node 22, so `npm test`
// runs this directory under a Node 22 binary: scripts/setup.sh). A mock language model (ai/test's
// MockLanguageModelV4) wrapped by `compressionMiddleware` through generateText and streamText tool
// loops, `compressionStep` in `prepareStep`, and every part of ai 7's provider-level prompt: tagged
// file data (data, url, reference, text), custom and reasoning-file parts. The model must receive
// a compressed prompt that `validate` accepts, with the system prompt, every providerOptions and
// every non-text part the caller's own; an inline text document is counted as its text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ToolLoopAgent, generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai-v7';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai-v7/test';

import { compressionMiddleware, compressAiSdkMessages } from 'cce-wasm/ai-sdk';
import { compress, validate } from 'cce-wasm/formats';

import { startFakeProvider } from '../support/fake-provider.mjs';
import { REPORT, SYSTEM, checkReceived as checkScenario, history as scenarioHistory, middlewareTests, prepareStepRun, toolLoopAgentTests } from '../support/ai-sdk-scenario.mjs';

test('this file runs under Node 22 or later, as ai 7 requires', () => {
  assert.ok(Number(process.versions.node.split('.')[0]) >= 22, process.version);
});

/** The first 33 bytes of a PNG of w x h (signature and IHDR): enough for its pixel size. */
function pngHead(w, h) {
  const png = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
  png.writeUInt32BE(13, 8);
  png.write('IHDR', 12, 'ascii');
  png.writeUInt32BE(w, 16);
  png.writeUInt32BE(h, 20);
  return png;
}

// ai 7's tagged file data for the last question's image.
const IMAGE = { type: 'file', mediaType: 'image/png', data: { type: 'data', data: pngHead(64, 64).toString('base64') } };
const history = (turns) => scenarioHistory(turns, IMAGE);
const size = (x) => JSON.stringify(x).length;

/** The scenario's checks, and ai 7's file data still tagged. */
function checkReceived(calls, results, budget) {
  checkScenario(calls, results, budget);
  for (const { prompt } of calls) assert.equal(prompt.findLast((m) => m.role === 'user').content[1].data.type, 'data');
}

describe('ai 7: compressionMiddleware with wrapLanguageModel', () => middlewareTests({ generateText, streamText, stepCountIs, wrapLanguageModel, tool, jsonSchema }, { MockModel: MockLanguageModelV4, convertArrayToReadableStream }, IMAGE, checkReceived));

describe('ai 7: compressionStep for prepareStep', () => {
  test('each step of an agent loop sends compressed, valid ModelMessages', async () => {
    const { model } = await prepareStepRun({ generateText, stepCountIs, tool, jsonSchema }, { MockModel: MockLanguageModelV4, convertArrayToReadableStream }, IMAGE);
    // ai 7 carries a step's returned messages into the next step: the second step is the first
    // step's compressed prompt plus the new call and result, i.e. a byte-stable prefix.
    const [first, second] = model.doGenerateCalls.map((c) => c.prompt);
    assert.deepEqual(second.slice(0, first.length), first, 'the second step extends the first');
  });
});

describe('ai 7: ToolLoopAgent', () =>
  toolLoopAgentTests({ ToolLoopAgent, stepCountIs, wrapLanguageModel, tool, jsonSchema }, { MockModel: MockLanguageModelV4, convertArrayToReadableStream }, IMAGE));

describe('ai 7: every provider-level part type', () => {
  test('transformParams keeps each part (and its providerOptions) or rewrites only its text', async () => {
    const po = (n) => ({ test: { n } });
    const big = (t) => `${t}: ${REPORT.repeat(8)}`;
    const bytes = new Uint8Array(pngHead(32, 32));
    const url = new URL('https://example.com/chart.png');
    const prompt = [
      { role: 'system', content: SYSTEM, providerOptions: po('system') },
      {
        role: 'user',
        content: [
          { type: 'text', text: big('question'), providerOptions: po('u-text') },
          { type: 'file', mediaType: 'application/pdf', filename: 'a.pdf', data: { type: 'data', data: 'JVBERi0=' }, providerOptions: po('u-pdf') },
          { type: 'file', mediaType: 'image', data: { type: 'url', url } },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: bytes } },
          { type: 'file', mediaType: 'application/pdf', data: { type: 'reference', reference: { openai: 'file-abc' } } },
          { type: 'file', mediaType: 'text/plain', filename: 'notes.txt', data: { type: 'text', text: big('notes') } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking', providerOptions: po('a-reasoning') },
          { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: bytes }, providerOptions: po('a-rfile') },
          { type: 'custom', kind: 'openai.compaction', providerOptions: po('a-custom') },
          { type: 'text', text: big('answer'), providerOptions: po('a-text') },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { stage: 1 }, providerOptions: po('a-call') },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: { stage: 2 } },
          { type: 'tool-call', toolCallId: 'c3', toolName: 'lookup', input: { stage: 3 } },
          { type: 'tool-call', toolCallId: 's1', toolName: 'web_search', input: { q: 'x' }, providerExecuted: true },
          { type: 'tool-result', toolCallId: 's1', toolName: 'web_search', output: { type: 'json', value: { hits: 3 } } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: big('log 1') }, providerOptions: po('t-1') },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'lookup', output: { type: 'json', value: { log: big('log 2') } } },
          {
            type: 'tool-result',
            toolCallId: 'c3',
            toolName: 'lookup',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: big('log 3') },
                { type: 'file', mediaType: 'image/png', data: { type: 'data', data: bytes } },
              ],
            },
          },
          { type: 'tool-approval-response', approvalId: 'ap1', approved: false, reason: 'no', providerOptions: po('t-approval') },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: big('summary') }] },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }], providerOptions: po('last') },
    ];
    const results = [];
    const middleware = compressionMiddleware({ recencyWindow: 1, onCompress: (r) => results.push(r) });
    const params = { prompt, maxOutputTokens: 100, temperature: 0, providerOptions: po('call') };
    const out = await middleware.transformParams({ type: 'generate', params });
    assert.equal(out.temperature, 0);
    assert.deepEqual(out.providerOptions, po('call'));
    assert.ok(results[0].compression.messages_compressed > 0);
    assert.deepEqual(validate(out.prompt, { format: 'ai-sdk' }), []);
    assert.ok(size(out.prompt) < size(prompt), 'smaller');
    assert.equal(out.prompt[0], prompt[0], 'the system message is the caller’s own');
    assert.equal(out.prompt.at(-1), prompt.at(-1));
    assert.equal(out.prompt.length, prompt.length, 'no message dropped (no budget)');
    // Every non-text part is the caller's own object (the URL and the bytes included).
    const user = out.prompt[1];
    for (const j of [1, 2, 3, 4, 5]) assert.equal(user.content[j], prompt[1].content[j], `user part ${j}`);
    assert.equal(user.content[2].data.url, url);
    assert.equal(user.content[3].data.data, bytes);
    assert.notEqual(user.content[0].text, prompt[1].content[0].text, 'the long question was summarised');
    const assistant = out.prompt[2];
    assert.deepEqual(assistant.content.map((p) => p.type), prompt[2].content.map((p) => p.type), 'every assistant part, in order');
    for (const j of [0, 1, 2, 4, 7, 8]) assert.equal(assistant.content[j], prompt[2].content[j], `assistant part ${j}`);
    const toolMessage = out.prompt[3];
    assert.deepEqual(toolMessage.content.map((p) => p.toolCallId ?? p.approvalId), ['c1', 'c2', 'c3', 'ap1']);
    assert.equal(toolMessage.content[2].output.value[1], prompt[3].content[2].output.value[1], 'the file in a content output');
    assert.equal(toolMessage.content[3], prompt[3].content[3], 'the approval response');
    // providerOptions survive on every part that had them, rewritten or not.
    const options = new Set();
    const walk = (x) => {
      if (Array.isArray(x)) return x.forEach(walk);
      if (x && typeof x === 'object' && !(x instanceof Uint8Array) && !(x instanceof URL)) {
        if (x.providerOptions?.test) options.add(x.providerOptions.test.n);
        Object.values(x).forEach(walk);
      }
    };
    walk(out.prompt);
    assert.deepEqual([...options].sort(), ['a-call', 'a-custom', 'a-reasoning', 'a-rfile', 'a-text', 'last', 'system', 't-1', 't-approval', 'u-pdf', 'u-text']);
  });
});

describe('ai 7: honest counts of tagged file data', () => {
  const count = (messages) => compress(messages, { format: 'ai-sdk', tokenBudget: 1e9 }).tokenCount;
  const ask = (part) => [{ role: 'user', content: [{ type: 'text', text: 'Read this.' }, part] }];
  const bare = count([{ role: 'user', content: [{ type: 'text', text: 'Read this.' }] }]);

  test('an inline text document costs its text, growing with it', () => {
    const doc = (n) => ({ type: 'file', mediaType: 'text/plain', data: { type: 'text', text: REPORT.repeat(n) } });
    const small = count(ask(doc(1))) - bare;
    const large = count(ask(doc(100))) - bare;
    // 100 times the text costs about 100 times the tokens (a picture would cost the same).
    assert.ok(large > 60 * small && large < 110 * small, `1 report: ${small}, 100 reports: ${large}`);
    const one = compress([{ role: 'user', content: REPORT.repeat(100) }], { format: 'ai-sdk', tokenBudget: 1e9 }).tokenCount;
    assert.ok(Math.abs(large - one) < 0.05 * one, `the document ${large} against the same text ${one}`);
  });

  test('tagged image data is priced by its pixel size; a reasoning file like any image', () => {
    const head = pngHead(2048, 1024);
    const tagged = count(ask({ type: 'file', mediaType: 'image/png', data: { type: 'data', data: head.toString('base64') } })) - bare;
    const bytes = count(ask({ type: 'file', mediaType: 'image/png', data: { type: 'data', data: new Uint8Array(head) } })) - bare;
    // OpenAI high detail: 2048 x 1024 -> 1536 x 768, 3 x 2 tiles of 170, plus 85.
    assert.equal(tagged, 85 + 170 * 6);
    assert.equal(bytes, tagged);
    const reasoning = (...parts) => [
      { role: 'user', content: 'Draw it.' },
      { role: 'assistant', content: [...parts, { type: 'text', text: 'Done.' }] },
    ];
    const withFile = count(reasoning({ type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: head.toString('base64') } }));
    assert.equal(withFile - count(reasoning()), 85 + 170 * 6, 'not its base64 text');
  });

  test('clearReasoning takes reasoning files with the reasoning', () => {
    const messages = [
      { role: 'user', content: 'Draw it.' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Sketching first.' },
          { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: pngHead(8, 8).toString('base64') } },
          { type: 'text', text: 'Done.' },
        ],
      },
      { role: 'user', content: 'Again, larger.' },
    ];
    const out = compress(messages, { format: 'ai-sdk', clearReasoning: { keep: 0 } }).messages;
    assert.deepEqual(out[1].content.map((p) => p.type), ['text']);
    assert.deepEqual(validate(out, { format: 'ai-sdk' }), []);
  });

  test('compressAiSdkMessages fits a history with a long inline document to its budget', async () => {
    const messages = history(6);
    messages.at(-1).content.push({ type: 'file', mediaType: 'text/markdown', data: { type: 'text', text: 'x' } });
    messages[0].content.push({ type: 'file', mediaType: 'text/markdown', data: { type: 'text', text: REPORT.repeat(40) } });
    const result = await compressAiSdkMessages(messages, { tokenBudget: 2500 });
    assert.ok(result.fits && result.tokenCount <= 2500, `${result.tokenCount}`);
    assert.deepEqual(validate(result.messages, { format: 'ai-sdk' }), []);
  });
});

describe('ai 7 with the real provider packages: the request body a provider receives', () => {
  let provider;
  let base;
  let received;
  before(async () => {
    provider = await startFakeProvider('ci/retry.yaml, line 3.');
    base = provider.url;
    received = provider.received;
  });
  after(() => provider.close());

  /** The history with an inline text document and a PNG as tagged data in the first question. */
  function withFiles() {
    const messages = history(6);
    messages[0].content.push(
      { type: 'file', mediaType: 'text/plain', filename: 'retry.txt', data: { type: 'text', text: `retry: 2\n${REPORT.repeat(20)}` } },
      { type: 'file', mediaType: 'image/png', data: { type: 'data', data: pngHead(256, 256).toString('base64') } },
    );
    return messages;
  }

  async function send(model, budget) {
    const results = [];
    received.length = 0;
    const wrapped = wrapLanguageModel({ model, middleware: compressionMiddleware({ tokenBudget: budget, onCompress: (r) => results.push(r) }) });
    const out = await generateText({ model: wrapped, system: SYSTEM, messages: withFiles(), maxOutputTokens: 200 });
    assert.equal(out.text, 'ci/retry.yaml, line 3.');
    assert.equal(received.length, 1);
    assert.ok(results[0].fits && results[0].tokenCount <= budget, `${results[0].tokenCount} <= ${budget}`);
    return received[0];
  }

  test('@ai-sdk/anthropic 4: a valid Messages body, system prompt whole, well under the input', async () => {
    const { createAnthropic } = await import('ai-v7-anthropic');
    const anthropic = createAnthropic({ baseURL: `${base}/v1`, apiKey: 'sk-ant-test' });
    const { path, body } = await send(anthropic('claude-sonnet-4-5'), 2500);
    assert.equal(path, '/v1/messages');
    const system = Array.isArray(body.system) ? body.system.map((b) => b.text).join('\n') : body.system;
    assert.equal(system, SYSTEM);
    assert.deepEqual(validate(body.messages, { format: 'anthropic', system: body.system }), []);
    assert.ok(JSON.stringify(body.messages).length < JSON.stringify(withFiles()).length / 2);
  });

  test('@ai-sdk/openai 4: a valid Responses body and a valid Chat Completions body', async () => {
    const { createOpenAI } = await import('ai-v7-openai');
    const openai = createOpenAI({ baseURL: `${base}/v1`, apiKey: 'sk-test' });
    const responses = await send(openai('gpt-4.1'), 2500);
    assert.equal(responses.path, '/v1/responses');
    assert.deepEqual(validate(responses.body.input, { format: 'openai-responses' }), []);
    assert.ok(JSON.stringify(responses.body.input).length < JSON.stringify(withFiles()).length / 2);
    const chat = await send(openai.chat('gpt-4.1'), 2500);
    assert.equal(chat.path, '/v1/chat/completions');
    assert.deepEqual(validate(chat.body.messages, { format: 'openai-chat' }), []);
    assert.deepEqual(chat.body.messages[0], { role: 'system', content: SYSTEM });
  });
});

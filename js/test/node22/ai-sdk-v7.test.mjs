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

import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai-v7';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai-v7/test';

import { compressionMiddleware, compressionStep, compressAiSdkMessages } from 'cce-wasm/ai-sdk';
import { compress, validate } from 'cce-wasm/formats';

test('this file runs under Node 22 or later, as ai 7 requires', () => {
  assert.ok(Number(process.versions.node.split('.')[0]) >= 22, process.version);
});

const SYSTEM = 'You are a build assistant. Answer with the file and line.';
const REPORT =
  'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ' +
  'Stage logs are kept for thirty days in the artifacts bucket, and the retry policy is read from ci/retry.yaml. ';

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

/** A long agentic history as ai 7 ModelMessages: tool calls, long tool results, a reasoning part,
 * an image as tagged file data, providerOptions on a message and on a part. */
function history(turns) {
  const messages = [];
  for (let t = 0; t < turns; t++) {
    messages.push({
      role: 'user',
      content: [{ type: 'text', text: `Question ${t}: ${REPORT.repeat(3)}` }],
      ...(t === 0 ? { providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } } : {}),
    });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: `I should look up stage ${t}.` },
        { type: 'tool-call', toolCallId: `call_${t}`, toolName: 'lookup', input: { stage: t } },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call_${t}`,
          toolName: 'lookup',
          output: { type: 'text', value: `Stage ${t} log:\n${REPORT.repeat(6)}` },
        },
      ],
    });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Stage ${t}: ${REPORT.repeat(2)}` }] });
  }
  messages.push({
    role: 'user',
    content: [
      { type: 'text', text: 'Which file holds the retry policy?', providerOptions: { openai: { detail: 'high' } } },
      { type: 'file', mediaType: 'image/png', data: { type: 'data', data: pngHead(64, 64).toString('base64') } },
    ],
  });
  return messages;
}

const lookup = tool({
  description: 'Reads a stage log',
  inputSchema: jsonSchema({ type: 'object', properties: { stage: { type: 'number' } } }),
  execute: async ({ stage }) => `Stage ${stage} log:\n${REPORT.repeat(6)}`,
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that calls `lookup` once, then answers. */
function generatingModel() {
  let call = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      call++;
      const content =
        call === 1
          ? [{ type: 'tool-call', toolCallId: 'call_new', toolName: 'lookup', input: '{"stage":99}' }]
          : [{ type: 'text', text: 'ci/retry.yaml, line 3.' }];
      return {
        content,
        finishReason: { unified: call === 1 ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

function streamingModel() {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      call++;
      const parts =
        call === 1
          ? [{ type: 'tool-call', toolCallId: 'call_new', toolName: 'lookup', input: '{"stage":99}' }]
          : [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'ci/retry.yaml, line 3.' },
              { type: 'text-end', id: 't' },
            ];
      return {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          ...parts,
          { type: 'finish', finishReason: { unified: call === 1 ? 'tool-calls' : 'stop', raw: undefined }, usage },
        ]),
      };
    },
  });
}

const size = (x) => JSON.stringify(x).length;

/** What every prompt the model received must satisfy. */
function checkReceived(calls, results, budget) {
  assert.equal(calls.length, 2, 'two steps: the tool call and the answer');
  assert.equal(results.length, 2, 'the middleware ran on both steps');
  for (const [i, { prompt }] of calls.entries()) {
    assert.deepEqual(validate(prompt, { format: 'ai-sdk' }), [], `step ${i}: a valid prompt`);
    assert.deepEqual(prompt[0], { role: 'system', content: SYSTEM }, 'the system prompt as it was');
    assert.ok(results[i].fits, `step ${i} fits ${budget} tokens (${results[i].tokenCount})`);
    assert.ok(results[i].tokenCount <= budget, `step ${i}: ${results[i].tokenCount} <= ${budget}`);
    assert.ok(results[i].compression.messages_compressed > 0, `step ${i} compressed`);
    const question = prompt.findLast((m) => m.role === 'user');
    assert.deepEqual(question.content[0].providerOptions, { openai: { detail: 'high' } }, 'part providerOptions kept');
    assert.equal(question.content[1].type, 'file', 'the image is still there');
    assert.equal(question.content[1].data.type, 'data', 'as tagged file data');
    const first = prompt[1];
    assert.deepEqual(first.providerOptions, { anthropic: { cacheControl: { type: 'ephemeral' } } }, 'message providerOptions kept');
  }
  // The second step carries the model's new tool call and its result, uncompressed and paired.
  const last = calls[1].prompt;
  const newCall = last.findIndex((m) => m.role === 'assistant' && m.content.some((p) => p.toolCallId === 'call_new'));
  assert.ok(newCall > 0 && last[newCall + 1].content[0].toolCallId === 'call_new');
}

describe('ai 7: compressionMiddleware with wrapLanguageModel', () => {
  const budget = 2000;

  test('generateText with a tool loop: every step gets a compressed, valid prompt', async () => {
    const messages = history(6);
    const frozen = JSON.stringify(messages);
    const results = [];
    const mock = generatingModel();
    const model = wrapLanguageModel({
      model: mock,
      middleware: compressionMiddleware({ tokenBudget: budget, onCompress: (r) => results.push(r) }),
    });
    const out = await generateText({ model, system: SYSTEM, messages, tools: { lookup }, stopWhen: stepCountIs(3) });
    assert.equal(out.text, 'ci/retry.yaml, line 3.');
    checkReceived(mock.doGenerateCalls, results, budget);
    assert.ok(size(mock.doGenerateCalls[0].prompt) < size(messages) / 2, 'less than half the size');
    assert.equal(JSON.stringify(messages), frozen, 'the caller’s messages untouched');
  });

  test('streamText with a tool loop: the same', async () => {
    const results = [];
    const mock = streamingModel();
    const model = wrapLanguageModel({
      model: mock,
      middleware: compressionMiddleware({ tokenBudget: budget, onCompress: (r) => results.push(r) }),
    });
    const out = streamText({ model, system: SYSTEM, messages: history(6), tools: { lookup }, stopWhen: stepCountIs(3) });
    assert.equal(await out.text, 'ci/retry.yaml, line 3.');
    checkReceived(mock.doStreamCalls, results, budget);
  });

  test('a prompt under the budget reaches the model as it was', async () => {
    const mock = generatingModel();
    const model = wrapLanguageModel({ model: mock, middleware: compressionMiddleware({ tokenBudget: 100_000 }) });
    const messages = history(1);
    await generateText({ model, system: SYSTEM, messages, tools: { lookup }, stopWhen: stepCountIs(3) });
    const unwrapped = generatingModel();
    await generateText({ model: unwrapped, system: SYSTEM, messages, tools: { lookup }, stopWhen: stepCountIs(3) });
    assert.deepEqual(mock.doGenerateCalls[0].prompt, unwrapped.doGenerateCalls[0].prompt);
  });
});

describe('ai 7: compressionStep for prepareStep', () => {
  test('each step of an agent loop sends compressed, valid ModelMessages', async () => {
    const mock = generatingModel();
    const messages = history(6);
    const frozen = JSON.stringify(messages);
    const out = await generateText({
      model: mock,
      system: SYSTEM,
      messages,
      tools: { lookup },
      stopWhen: stepCountIs(3),
      prepareStep: compressionStep({ tokenBudget: 2000 }),
    });
    assert.equal(out.text, 'ci/retry.yaml, line 3.');
    assert.equal(mock.doGenerateCalls.length, 2);
    for (const { prompt } of mock.doGenerateCalls) {
      assert.deepEqual(validate(prompt, { format: 'ai-sdk' }), []);
      assert.equal(prompt[0].content, SYSTEM);
      assert.ok(size(prompt) < size(messages) / 2);
    }
    // ai 7 carries a step's returned messages into the next step: the second step is the first
    // step's compressed prompt plus the new call and result, i.e. a byte-stable prefix.
    const [first, second] = mock.doGenerateCalls.map((c) => c.prompt);
    assert.deepEqual(second.slice(0, first.length), first, 'the second step extends the first');
    assert.equal(JSON.stringify(messages), frozen, 'the caller’s messages untouched');
    assert.equal(out.response.messages.at(-1).content[0].text, 'ci/retry.yaml, line 3.');
  });
});

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
  let server;
  let base;
  const received = [];
  const ANTHROPIC_ANSWER = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'ci/retry.yaml, line 3.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  const CHAT_ANSWER = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4.1',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ci/retry.yaml, line 3.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
  const RESPONSES_ANSWER = {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'gpt-4.1',
    output: [
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'ci/retry.yaml, line 3.', annotations: [] }],
      },
    ],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };

  before(async () => {
    const { createServer } = await import('node:http');
    server = createServer((req, res) => {
      let data = '';
      req.on('data', (chunk) => (data += chunk));
      req.on('end', () => {
        received.push({ path: req.url, body: JSON.parse(data) });
        res.setHeader('content-type', 'application/json');
        const answer = req.url.endsWith('/messages') ? ANTHROPIC_ANSWER : req.url.endsWith('/responses') ? RESPONSES_ANSWER : CHAT_ANSWER;
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => server.close());

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

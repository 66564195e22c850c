// SPDX-License-Identifier: MIT
// cce-wasm/ai-sdk with the real `ai` package: a mock language model (ai/test) wrapped by
// `compressionMiddleware` through generateText and streamText with a tool loop, and the
// `prepareStep` helper. The model must receive a compressed prompt that `validate` accepts, with
// the system prompt and every providerOptions kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';

import { compressionMiddleware, compressionStep, compressAiSdkMessages } from 'cce-wasm/ai-sdk';
import { validate } from 'cce-wasm/formats';

const SYSTEM = 'You are a build assistant. Answer with the file and line.';
const REPORT =
  'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ' +
  'Stage logs are kept for thirty days in the artifacts bucket, and the retry policy is read from ci/retry.yaml. ';

/** A long agentic history as ModelMessages: tool calls, long tool results, a reasoning part, an
 * image, providerOptions on a message and on a part. */
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
      { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
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
  return new MockLanguageModelV3({
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
  return new MockLanguageModelV3({
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
    assert.ok(results[i].compression.messages_compressed > 0, `step ${i} compressed`);
    const question = prompt.findLast((m) => m.role === 'user');
    assert.deepEqual(question.content[0].providerOptions, { openai: { detail: 'high' } }, 'part providerOptions kept');
    assert.equal(question.content[1].type, 'file', 'the image is still there');
    const first = prompt[1];
    assert.deepEqual(first.providerOptions, { anthropic: { cacheControl: { type: 'ephemeral' } } }, 'message providerOptions kept');
  }
  // The second step carries the model's new tool call and its result, uncompressed and paired.
  const last = calls[1].prompt;
  const newCall = last.findIndex((m) => m.role === 'assistant' && m.content.some((p) => p.toolCallId === 'call_new'));
  assert.ok(newCall > 0 && last[newCall + 1].content[0].toolCallId === 'call_new');
}

describe('compressionMiddleware with wrapLanguageModel', () => {
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

  test('{ contextWindow } keeps the call’s maxOutputTokens free by default, or `reserve`', async () => {
    const results = [];
    const mock = generatingModel();
    const model = wrapLanguageModel({
      model: mock,
      middleware: compressionMiddleware({ contextWindow: 3000, onCompress: (r) => results.push(r) }),
    });
    await generateText({ model, system: SYSTEM, messages: history(6), tools: { lookup }, stopWhen: stepCountIs(3), maxOutputTokens: 1000 });
    for (const r of results) assert.ok(r.fits && r.tokenCount <= 2000, `${r.tokenCount} <= 3000 - 1000`);
    const reserved = [];
    await compressAiSdkMessages(history(6), { contextWindow: 3000, reserve: 1500, onCompress: (r) => reserved.push(r) }, 1000);
    assert.ok(reserved[0].fits && reserved[0].tokenCount <= 1500);
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

describe('compressionStep for prepareStep', () => {
  test('each step of an agent loop sends compressed ModelMessages', async () => {
    const mock = generatingModel();
    const messages = history(6);
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
    // The SDK's own history is whole: the response messages add to the caller's, uncompressed.
    assert.equal(out.response.messages.at(-1).content[0].text, 'ci/retry.yaml, line 3.');
  });
});

describe('every provider-level part type', () => {
  test('transformParams keeps each part (and its providerOptions) or rewrites only its text', async () => {
    const po = (n) => ({ test: { n } });
    const big = (t) => `${t}: ${REPORT.repeat(8)}`;
    const prompt = [
      { role: 'system', content: SYSTEM, providerOptions: po('system') },
      { role: 'user', content: [{ type: 'text', text: big('question'), providerOptions: po('u-text') }, { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'a.pdf', providerOptions: po('u-file') }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking', providerOptions: po('a-reasoning') },
          { type: 'text', text: big('answer'), providerOptions: po('a-text') },
          { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=', providerOptions: po('a-file') },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { stage: 1 }, providerOptions: po('a-call') },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: { stage: 2 } },
          { type: 'tool-call', toolCallId: 'c3', toolName: 'lookup', input: { stage: 3 } },
          { type: 'tool-call', toolCallId: 'c4', toolName: 'lookup', input: { stage: 4 } },
          { type: 'tool-call', toolCallId: 'c5', toolName: 'lookup', input: { stage: 5 } },
          { type: 'tool-call', toolCallId: 's1', toolName: 'web_search', input: { q: 'x' }, providerExecuted: true },
          { type: 'tool-result', toolCallId: 's1', toolName: 'web_search', output: { type: 'json', value: { hits: 3 } } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: big('log 1') }, providerOptions: po('t-1') },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'lookup', output: { type: 'json', value: { log: big('log 2') } } },
          { type: 'tool-result', toolCallId: 'c3', toolName: 'lookup', output: { type: 'error-text', value: big('error 3') } },
          { type: 'tool-result', toolCallId: 'c4', toolName: 'lookup', output: { type: 'execution-denied', reason: 'not allowed' } },
          {
            type: 'tool-result',
            toolCallId: 'c5',
            toolName: 'lookup',
            output: { type: 'content', value: [{ type: 'text', text: big('log 5') }, { type: 'file-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' }] },
          },
          { type: 'tool-approval-response', approvalId: 'ap1', approved: false, reason: 'no', providerOptions: po('t-approval') },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: big('summary') }] },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }], providerOptions: po('last') },
    ];
    const frozen = JSON.stringify(prompt);
    const results = [];
    const middleware = compressionMiddleware({ recencyWindow: 1, onCompress: (r) => results.push(r) });
    const params = { prompt, maxOutputTokens: 100, temperature: 0, providerOptions: po('call') };
    const out = await middleware.transformParams({ type: 'generate', params });
    assert.equal(JSON.stringify(prompt), frozen, 'the prompt untouched');
    assert.equal(out.temperature, 0);
    assert.deepEqual(out.providerOptions, po('call'));
    assert.ok(results[0].compression.messages_compressed > 0, JSON.stringify({ ...results[0], messages: undefined, verbatim: undefined }));
    assert.deepEqual(validate(out.prompt, { format: 'ai-sdk' }), []);
    assert.ok(size(out.prompt) < size(prompt), 'smaller');
    assert.equal(out.prompt[0], prompt[0], 'the system message is the caller’s own');
    assert.equal(out.prompt.at(-1), prompt.at(-1));
    // Every part that carried providerOptions still does, whatever happened to its text.
    const options = new Set();
    const walk = (x) => {
      if (Array.isArray(x)) return x.forEach(walk);
      if (x && typeof x === 'object') {
        if (x.providerOptions?.test) options.add(x.providerOptions.test.n);
        Object.values(x).forEach(walk);
      }
    };
    walk(out.prompt);
    // Rewritten or not, every part keeps its providerOptions.
    assert.deepEqual([...options].sort(), ['a-call', 'a-file', 'a-reasoning', 'a-text', 'last', 'system', 't-1', 't-approval', 'u-file', 'u-text']);
    assert.equal(out.prompt.length, prompt.length, 'no message dropped (no budget)');
    const tool = out.prompt[3];
    assert.deepEqual(tool.content.map((p) => p.toolCallId ?? p.approvalId), ['c1', 'c2', 'c3', 'c4', 'c5', 'ap1'], 'every tool part, in order');
    assert.deepEqual(tool.content[3], prompt[3].content[3], 'execution-denied as it was');
    assert.deepEqual(tool.content[5], prompt[3].content[5], 'the approval response as it was');
    assert.equal(tool.content[4].output.value[1], prompt[3].content[4].output.value[1], 'the file in a content output is the caller’s own');
    const assistant = out.prompt[2];
    assert.deepEqual(assistant.content.map((p) => p.type), prompt[2].content.map((p) => p.type), 'every assistant part, in order');
    for (const j of [0, 2, 3, 8, 9]) assert.equal(assistant.content[j], prompt[2].content[j], `assistant part ${j} is the caller’s own`);
    assert.notEqual(out.prompt[1].content[0].text, prompt[1].content[0].text, 'the long question was summarised');
    assert.equal(out.prompt[1].content[1], prompt[1].content[1], 'its file part is the caller’s own');
  });
});

// SPDX-License-Identifier: MIT
// cce-wasm/ai-sdk with the real `ai` package: a mock language model (ai/test) wrapped by
// `compressionMiddleware` through generateText and streamText with a tool loop, and the
// `prepareStep` helper. The model must receive a compressed prompt that `validate` accepts, with
// the system prompt and every providerOptions kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ToolLoopAgent, generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';

import { compressionMiddleware } from 'cce-wasm/ai-sdk';
import { validate } from 'cce-wasm/formats';

import { REPORT, SYSTEM, middlewareTests, prepareStepRun, toolLoopAgentTests } from './support/ai-sdk-scenario.mjs';

const IMAGE = { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' };
const size = (x) => JSON.stringify(x).length;

describe('compressionMiddleware with wrapLanguageModel', () => middlewareTests({ generateText, streamText, stepCountIs, wrapLanguageModel, tool, jsonSchema }, { MockModel: MockLanguageModelV3, convertArrayToReadableStream }, IMAGE));

describe('compressionStep for prepareStep', () => {
  test('each step of an agent loop sends compressed ModelMessages', async () => {
    await prepareStepRun({ generateText, stepCountIs, tool, jsonSchema }, { MockModel: MockLanguageModelV3, convertArrayToReadableStream }, IMAGE);
  });
});

describe('ToolLoopAgent', () =>
  toolLoopAgentTests({ ToolLoopAgent, stepCountIs, wrapLanguageModel, tool, jsonSchema }, { MockModel: MockLanguageModelV3, convertArrayToReadableStream }, IMAGE));

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

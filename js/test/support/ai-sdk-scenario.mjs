// SPDX-License-Identifier: MIT
// The AI SDK scenario that ai-sdk.test.mjs (ai 6) and node22/ai-sdk-v7.test.mjs (ai 7) both run:
// a long agentic history, a `lookup` tool, mock models that call it once and then answer, and
// what every prompt a model received must satisfy. Each major passes its own `ai` exports (tool,
// jsonSchema, its MockLanguageModel class, convertArrayToReadableStream).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { compressAiSdkMessages, compressionMiddleware, compressionStep } from 'cce-wasm/ai-sdk';
import { validate } from 'cce-wasm/formats';

export const SYSTEM = 'You are a build assistant. Answer with the file and line.';
export const REPORT =
  'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ' +
  'Stage logs are kept for thirty days in the artifacts bucket, and the retry policy is read from ci/retry.yaml. ';

/** A long agentic history as ModelMessages: tool calls, long tool results, a reasoning part,
 * `image` (a file part) in the last question, providerOptions on a message and on a part. */
export function history(turns, image) {
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
    content: [{ type: 'text', text: 'Which file holds the retry policy?', providerOptions: { openai: { detail: 'high' } } }, image],
  });
  return messages;
}

/** The `lookup` tool, made with one major's `tool` and `jsonSchema`. */
export function lookupTool({ tool, jsonSchema }) {
  return tool({
    description: 'Reads a stage log',
    inputSchema: jsonSchema({ type: 'object', properties: { stage: { type: 'number' } } }),
    execute: async ({ stage }) => `Stage ${stage} log:\n${REPORT.repeat(6)}`,
  });
}

// A model's usage and finish reason: structured from the V3 specification (ai 6, 7) on, plain in
// V2 (ai 5).
const usageOf = (v2) =>
  v2
    ? { inputTokens: 10, outputTokens: 5, totalTokens: 15 }
    : {
        inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 5, text: 5, reasoning: undefined },
      };
const ANSWER = 'ci/retry.yaml, line 3.';
const finishOf = (v2) => (call) => {
  const reason = call === 1 ? 'tool-calls' : 'stop';
  return v2 ? reason : { unified: reason, raw: undefined };
};
const newCall = { type: 'tool-call', toolCallId: 'call_new', toolName: 'lookup', input: '{"stage":99}' };

/** Mock models of one major (its MockLanguageModel class; `v2` for ai 5's MockLanguageModelV2):
 * each calls `lookup` once, then answers. */
export function mockModels(MockModel, convertArrayToReadableStream, v2 = false) {
  const usage = usageOf(v2);
  const finish = finishOf(v2);
  return {
    generating() {
      let call = 0;
      return new MockModel({
        doGenerate: async () => {
          call++;
          const content = call === 1 ? [newCall] : [{ type: 'text', text: ANSWER }];
          return { content, finishReason: finish(call), usage, warnings: [] };
        },
      });
    },
    streaming() {
      let call = 0;
      return new MockModel({
        doStream: async () => {
          call++;
          const parts =
            call === 1
              ? [newCall]
              : [
                  { type: 'text-start', id: 't' },
                  { type: 'text-delta', id: 't', delta: ANSWER },
                  { type: 'text-end', id: 't' },
                ];
          return {
            stream: convertArrayToReadableStream([
              { type: 'stream-start', warnings: [] },
              ...parts,
              { type: 'finish', finishReason: finish(call), usage },
            ]),
          };
        },
      });
    },
  };
}

/** What every prompt the model received must satisfy (two steps: the tool call and the answer). */
export function checkReceived(calls, results, budget) {
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
    const first = prompt[1];
    assert.deepEqual(first.providerOptions, { anthropic: { cacheControl: { type: 'ephemeral' } } }, 'message providerOptions kept');
  }
  // The second step carries the model's new tool call and its result, uncompressed and paired.
  const last = calls[1].prompt;
  const at = last.findIndex((m) => m.role === 'assistant' && m.content.some((p) => p.toolCallId === 'call_new'));
  assert.ok(at > 0 && last[at + 1].content[0].toolCallId === 'call_new');
}

/**
 * The middleware's tests, run with one major's `ai` exports (`ai`: generateText, streamText,
 * stepCountIs, wrapLanguageModel, tool, jsonSchema; `mock`: its MockLanguageModel class,
 * convertArrayToReadableStream and `v2` for ai 5), `image` in the last question and `check` for
 * each call's prompts.
 */
export function middlewareTests(ai, mock, image, check = checkReceived) {
  const { generateText, streamText, stepCountIs, wrapLanguageModel } = ai;
  const { generating, streaming } = mockModels(mock.MockModel, mock.convertArrayToReadableStream, mock.v2);
  const lookup = lookupTool(ai);
  const size = (x) => JSON.stringify(x).length;
  const budget = 2000;
  const wrap = (model, options) => wrapLanguageModel({ model, middleware: compressionMiddleware(options) });

  test('generateText with a tool loop: every step gets a compressed, valid prompt', async () => {
    const messages = history(6, image);
    const frozen = JSON.stringify(messages);
    const results = [];
    const model = generating();
    const out = await generateText({
      model: wrap(model, { tokenBudget: budget, onCompress: (r) => results.push(r) }),
      system: SYSTEM,
      messages,
      tools: { lookup },
      stopWhen: stepCountIs(3),
    });
    assert.equal(out.text, ANSWER);
    check(model.doGenerateCalls, results, budget);
    assert.ok(size(model.doGenerateCalls[0].prompt) < size(messages) / 2, 'less than half the size');
    assert.equal(JSON.stringify(messages), frozen, 'the caller’s messages untouched');
  });

  test('streamText with a tool loop: the same', async () => {
    const results = [];
    const model = streaming();
    const out = streamText({
      model: wrap(model, { tokenBudget: budget, onCompress: (r) => results.push(r) }),
      system: SYSTEM,
      messages: history(6, image),
      tools: { lookup },
      stopWhen: stepCountIs(3),
    });
    assert.equal(await out.text, ANSWER);
    check(model.doStreamCalls, results, budget);
  });

  test('{ contextWindow } keeps the call’s maxOutputTokens free by default, or `reserve`', async () => {
    const results = [];
    const model = wrap(generating(), { contextWindow: 3000, onCompress: (r) => results.push(r) });
    await generateText({ model, system: SYSTEM, messages: history(6, image), tools: { lookup }, stopWhen: stepCountIs(3), maxOutputTokens: 1000 });
    for (const r of results) assert.ok(r.fits && r.tokenCount <= 2000, `${r.tokenCount} <= 3000 - 1000`);
    const reserved = [];
    await compressAiSdkMessages(history(6, image), { contextWindow: 3000, reserve: 1500, onCompress: (r) => reserved.push(r) }, 1000);
    assert.ok(reserved[0].fits && reserved[0].tokenCount <= 1500);
  });

  test('a prompt under the budget reaches the model as it was', async () => {
    const wrapped = generating();
    const messages = history(1, image);
    await generateText({ model: wrap(wrapped, { tokenBudget: 100_000 }), system: SYSTEM, messages, tools: { lookup }, stopWhen: stepCountIs(3) });
    const unwrapped = generating();
    await generateText({ model: unwrapped, system: SYSTEM, messages, tools: { lookup }, stopWhen: stepCountIs(3) });
    assert.deepEqual(wrapped.doGenerateCalls[0].prompt, unwrapped.doGenerateCalls[0].prompt);
  });
}

/**
 * An agent loop of one major (`ai` and `mock` as for {@link middlewareTests}) with
 * `prepareStep: compressionStep({ tokenBudget: 2000 })`: two steps (the tool call and the answer),
 * each sent compressed, valid ModelMessages with the system prompt first; the caller's messages
 * untouched and the SDK's response whole. Returns the model, for the checks that differ between
 * majors.
 */
export async function prepareStepRun(ai, mock, image) {
  const model = mockModels(mock.MockModel, mock.convertArrayToReadableStream, mock.v2).generating();
  const messages = history(6, image);
  const frozen = JSON.stringify(messages);
  const out = await ai.generateText({
    model,
    system: SYSTEM,
    messages,
    tools: { lookup: lookupTool(ai) },
    stopWhen: ai.stepCountIs(3),
    prepareStep: compressionStep({ tokenBudget: 2000 }),
  });
  const size = (x) => JSON.stringify(x).length;
  assert.equal(out.text, ANSWER);
  assert.equal(model.doGenerateCalls.length, 2);
  for (const { prompt } of model.doGenerateCalls) {
    assert.deepEqual(validate(prompt, { format: 'ai-sdk' }), []);
    assert.equal(prompt[0].content, SYSTEM);
    assert.ok(size(prompt) < size(messages) / 2);
  }
  assert.equal(JSON.stringify(messages), frozen, 'the caller’s messages untouched');
  // The SDK's own history is whole: the response messages add to the caller's, uncompressed.
  assert.equal(out.response.messages.at(-1).content[0].text, ANSWER);
  return { model };
}

/**
 * `ToolLoopAgent` (ai 6 and 7; `ai` also gives ToolLoopAgent and wrapLanguageModel) with
 * `prepareStep: compressionStep(...)`, and with its model wrapped by the middleware: each of the
 * two model calls gets the agent's instructions first and a compressed, valid prompt.
 */
export function toolLoopAgentTests(ai, mock, image) {
  const { ToolLoopAgent, stepCountIs, wrapLanguageModel } = ai;
  const size = (x) => JSON.stringify(x).length;
  const models = () => mockModels(mock.MockModel, mock.convertArrayToReadableStream, mock.v2);
  const run = async (settings) => {
    const model = models().generating();
    const messages = history(6, image);
    const agent = new ToolLoopAgent({
      instructions: SYSTEM,
      tools: { lookup: lookupTool(ai) },
      stopWhen: stepCountIs(3),
      ...settings(model),
    });
    const out = await agent.generate({ messages });
    assert.equal(out.text, ANSWER);
    assert.equal(model.doGenerateCalls.length, 2);
    for (const { prompt } of model.doGenerateCalls) {
      assert.deepEqual(validate(prompt, { format: 'ai-sdk' }), []);
      assert.equal(prompt[0].role, 'system');
      assert.equal(prompt[0].content, SYSTEM);
      assert.ok(size(prompt) < size(messages) / 2, `${size(prompt)} < half of ${size(messages)}`);
    }
  };
  test('ToolLoopAgent with prepareStep: compressionStep', () =>
    run((model) => ({ model, prepareStep: compressionStep({ tokenBudget: 2000 }) })));
  test('ToolLoopAgent with its model wrapped by compressionMiddleware', () =>
    run((model) => ({ model: wrapLanguageModel({ model, middleware: compressionMiddleware({ tokenBudget: 2000 }) }) })));
}

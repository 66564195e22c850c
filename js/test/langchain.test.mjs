// SPDX-License-Identifier: MIT
// cce-wasm/langchain with the real @langchain/core (and langchain v1's agents): compressed
// BaseMessage[] keep their classes, tool_call_ids and SystemMessage; the same as a chain step
// (`.pipe()`, RunnableLambda) and as an agent middleware (createMiddleware + createAgent with
// langchain's FakeToolCallingModel), where the model must receive a compressed, valid history;
// and the bodies ChatAnthropic and ChatOpenAI send a provider (on 127.0.0.1) are valid requests.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { RunnableLambda } from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ChatOpenAI } from '@langchain/openai';
import { FakeToolCallingModel, createAgent, createMiddleware, tool } from 'langchain';
import { z } from 'zod';

import { validate } from 'cce-wasm/formats';
import { compressMessages, compressionMiddleware, compressionRunnable } from 'cce-wasm/langchain';

import { startFakeProvider } from './support/fake-provider.mjs';
import { REPORT, SYSTEM, chars, chainStepRun, checkMessages as checkScenario, compressMessagesRun, history as scenarioHistory } from './support/langchain-scenario.mjs';

const lc = { AIMessage, HumanMessage, SystemMessage, ToolMessage };
const history = (turns, options) => scenarioHistory(lc, turns, options);
const checkMessages = (out, input) => checkScenario(lc, out, input);
const CLASSES = { system: SystemMessage, human: HumanMessage, ai: AIMessage, tool: ToolMessage };

describe('compressMessages', () => {
  test('keeps classes, tool_call_ids and the SystemMessage; the input is untouched', () => {
    compressMessagesRun(lc);
  });

  test('a bad budget is a CompressError', () => {
    assert.throws(() => compressMessages(history(1), { tokenBudget: -1 }), { name: 'CompressError', code: 'InvalidInput' });
  });
});

describe('as a chain step', () => {
  test('prompt.pipe(compressionRunnable).pipe(model): the model receives the compressed history', async () => {
    await chainStepRun({ ChatPromptTemplate, MessagesPlaceholder, FakeListChatModel }, lc);
  });

  test('RunnableLambda.from(compressionRunnable(...)) takes messages', async () => {
    const step = RunnableLambda.from(compressionRunnable({ tokenBudget: 1500 }));
    const input = history(6);
    const out = await step.invoke(input);
    checkMessages(out, input);
  });
});

describe('as a langchain v1 agent middleware', () => {
  test('createAgent with a tool loop: every model call receives a compressed, valid history', async () => {
    const lookup = tool(async ({ stage }) => `Stage ${stage} log:\n${REPORT.repeat(6)}`, {
      name: 'lookup',
      description: 'Reads a stage log',
      schema: z.object({ stage: z.number() }),
    });
    const model = new FakeToolCallingModel({
      toolCalls: [[{ id: 'call_new', name: 'lookup', args: { stage: 99 } }], []],
    });
    const results = [];
    const received = [];
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: SYSTEM,
      middleware: [createMiddleware(compressionMiddleware({ tokenBudget: 1500, onCompress: (r) => results.push(r) }))],
    });
    const input = history(6, { system: false });
    const state = await agent.invoke(
      { messages: input },
      { callbacks: [{ handleChatModelStart: (_llm, batches) => received.push(...batches) }] },
    );
    assert.equal(received.length, 2, 'two model calls: the tool call and the answer');
    assert.equal(results.length, 2);
    for (const [i, sent] of received.entries()) {
      assert.ok(results[i].fits, `call ${i} fits (${results[i].tokenCount})`);
      assert.ok(sent[0] instanceof SystemMessage && sent[0].text === SYSTEM, "the system prompt first, whole");
      // Call i saw the input plus the agent's own call and result of the steps before it.
      checkMessages(sent, [new SystemMessage(SYSTEM), ...state.messages.slice(0, input.length + 2 * i)]);
    }
    const last = received[1];
    assert.ok(last.some((m) => m instanceof ToolMessage && m.tool_call_id === 'call_new'), 'the new result is sent');
    // The agent's state keeps the whole history.
    assert.ok(state.messages.length >= input.length + 3);
    assert.equal(state.messages[3].content, input[3].content);
  });
});

describe('as a beforeModel hook (the agent state rewritten)', () => {
  test('the state holds the compressed history, with its classes, and the model receives it', async () => {
    const lookup = tool(async ({ stage }) => `Stage ${stage} log:\n${REPORT.repeat(6)}`, {
      name: 'lookup',
      description: 'Reads a stage log',
      schema: z.object({ stage: z.number() }),
    });
    const model = new FakeToolCallingModel({ toolCalls: [[{ id: 'call_new', name: 'lookup', args: { stage: 99 } }], []] });
    const received = [];
    const results = [];
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: SYSTEM,
      middleware: [
        createMiddleware(compressionMiddleware({ tokenBudget: 1500, hook: 'beforeModel', onCompress: (r) => results.push(r) })),
      ],
    });
    const input = history(6, { system: false });
    const state = await agent.invoke(
      { messages: input },
      { callbacks: [{ handleChatModelStart: (_llm, batches) => received.push(...batches) }] },
    );
    assert.equal(received.length, 2);
    assert.equal(results.length, 2);
    for (const [i, sent] of received.entries()) {
      assert.ok(sent[0] instanceof SystemMessage && sent[0].text === SYSTEM);
      assert.deepEqual(validate(sent, { format: 'langchain' }), []);
      assert.ok(results[i].fits, `call ${i} fits (${results[i].tokenCount})`);
    }
    assert.ok(chars(received[0]) < chars(input) / 2, `${chars(received[0])} < half of ${chars(input)}`);
    // The state is the compressed history plus the last step's messages, all real instances.
    // (FakeToolCallingModel's answer echoes its whole input, so the last step is long.)
    const compressedPart = state.messages.slice(0, -3);
    assert.ok(chars(compressedPart) < chars(input) / 2, `${chars(compressedPart)} < half of ${chars(input)}`);
    assert.deepEqual(validate(state.messages, { format: 'langchain' }), []);
    for (const m of state.messages) assert.ok(m instanceof CLASSES[m._getType()], m._getType());
    assert.ok(state.messages.some((m) => m instanceof ToolMessage && m.tool_call_id === 'call_new'));
  });

  test('an unknown hook is a CompressError', () => {
    assert.throws(() => compressionMiddleware({ hook: 'afterModel' }), { name: 'CompressError', code: 'InvalidInput' });
  });
});

describe('the request bodies of the real chat model packages', () => {
  let provider;
  before(async () => (provider = await startFakeProvider('ci/retry.yaml, line 3.')));
  after(() => provider.close());

  // A first question with an image cannot carry the stub of omitted messages: the compressed
  // history must still open with a human message, which Anthropic requires.
  const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  function withImage() {
    const messages = history(6);
    messages[1] = new HumanMessage({ content: [{ type: 'text', text: messages[1].content }, { type: 'image_url', image_url: { url: PNG } }] });
    return messages;
  }

  test('@langchain/anthropic: ChatAnthropic sends a valid Messages body at every budget', async () => {
    const model = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', anthropicApiUrl: provider.url, maxRetries: 0 });
    let stubbed = 0;
    for (const budget of [400, 600, 1000, 2500]) {
      const kept = compressMessages(withImage(), { tokenBudget: budget });
      if (JSON.stringify(kept[1].content).includes('[cce:omitted')) stubbed++;
      provider.received.length = 0;
      const answer = await model.invoke(kept);
      assert.equal(answer.content, 'ci/retry.yaml, line 3.');
      const { path, body } = provider.received[0];
      assert.equal(path, '/v1/messages');
      assert.deepEqual(validate(body.messages, { format: 'anthropic', system: body.system }), [], `budget ${budget}`);
      assert.equal(body.messages[0].role, 'user');
    }
    assert.ok(stubbed > 0, 'a budget stubbed the opening');
  });

  test('@langchain/openai: ChatOpenAI sends a valid Chat Completions body', async () => {
    const model = new ChatOpenAI({ model: 'gpt-4.1', apiKey: 'sk-test', configuration: { baseURL: `${provider.url}/v1` }, maxRetries: 0 });
    for (const budget of [400, 1500]) {
      provider.received.length = 0;
      const answer = await model.invoke(compressMessages(withImage(), { tokenBudget: budget }));
      assert.equal(answer.content, 'ci/retry.yaml, line 3.');
      const { path, body } = provider.received[0];
      assert.equal(path, '/v1/chat/completions');
      assert.deepEqual(validate(body.messages, { format: 'openai-chat' }), [], `budget ${budget}`);
      assert.deepEqual(body.messages[0], { role: 'system', content: SYSTEM });
    }
  });
});

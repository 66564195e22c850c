// SPDX-License-Identifier: MIT
// The LangChain scenario that langchain.test.mjs (@langchain/core 1) and langchain-v03.test.mjs
// (@langchain/core 0.3) both run: a long agentic history made with one version's message classes,
// and what a compressed form of it must satisfy.
import assert from 'node:assert/strict';

import { validate } from 'cce-wasm/formats';
import { compressMessages, compressionRunnable } from 'cce-wasm/langchain';

export const SYSTEM = 'You are a build assistant. Answer with the file and line.';
export const REPORT =
  'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ' +
  'Stage logs are kept for thirty days in the artifacts bucket, and the retry policy is read from ci/retry.yaml. ';

/** A long agentic history: questions, tool calls, long tool results, answers, made with the
 * message classes `lc` of one @langchain/core version. */
export function history(lc, turns, { system = true } = {}) {
  const { AIMessage, HumanMessage, SystemMessage, ToolMessage } = lc;
  const messages = system ? [new SystemMessage(SYSTEM)] : [];
  for (let t = 0; t < turns; t++) {
    messages.push(new HumanMessage(`Question ${t}: ${REPORT.repeat(3)}`));
    messages.push(
      new AIMessage({ content: '', tool_calls: [{ id: `call_${t}`, name: 'lookup', args: { stage: t }, type: 'tool_call' }] }),
    );
    messages.push(new ToolMessage({ content: `Stage ${t} log:\n${REPORT.repeat(6)}`, tool_call_id: `call_${t}`, name: 'lookup' }));
    messages.push(new AIMessage(`Stage ${t}: ${REPORT.repeat(2)}`));
  }
  messages.push(new HumanMessage('Which file holds the retry policy?'));
  return messages;
}

/** The characters of the messages' contents. */
export const chars = (messages) => messages.reduce((n, m) => n + JSON.stringify(m.content).length, 0);

/** Classes (those of `lc`), pairing and validity of a compressed history. */
export function checkMessages(lc, out, input) {
  const CLASSES = { system: lc.SystemMessage, human: lc.HumanMessage, ai: lc.AIMessage, tool: lc.ToolMessage };
  assert.deepEqual(validate(out, { format: 'langchain' }), [], 'a valid history');
  for (const m of out) {
    const type = m._getType();
    assert.ok(m instanceof CLASSES[type], `a ${type} message is still a ${CLASSES[type].name}`);
  }
  const ids = (list) => list.filter((m) => m._getType() === 'tool').map((m) => m.tool_call_id);
  for (const id of ids(out)) assert.ok(ids(input).includes(id), `tool_call_id ${id} kept`);
  assert.ok(chars(out) < chars(input) / 2, `${chars(out)} < half of ${chars(input)}`);
}

/**
 * `prompt.pipe(compressionRunnable({ tokenBudget: 1500 })).pipe(model)` with one @langchain/core
 * version's classes (`core`: ChatPromptTemplate, MessagesPlaceholder, FakeListChatModel; `lc`: its
 * message classes): the model receives the system prompt whole, then the compressed history.
 */
export async function chainStepRun(core, lc) {
  const { ChatPromptTemplate, MessagesPlaceholder, FakeListChatModel } = core;
  const received = [];
  const model = new FakeListChatModel({ responses: ['ci/retry.yaml, line 3.'] });
  const prompt = ChatPromptTemplate.fromMessages([['system', SYSTEM], new MessagesPlaceholder('history')]);
  const chain = prompt.pipe(compressionRunnable({ tokenBudget: 1500 })).pipe(model);
  const input = history(lc, 6, { system: false });
  const answer = await chain.invoke(
    { history: input },
    { callbacks: [{ handleChatModelStart: (_llm, batches) => received.push(...batches) }] },
  );
  assert.equal(answer.content, 'ci/retry.yaml, line 3.');
  assert.equal(received.length, 1);
  const sent = received[0];
  assert.ok(sent[0] instanceof lc.SystemMessage && sent[0].content === SYSTEM, 'the system prompt first, whole');
  checkMessages(lc, sent, [new lc.SystemMessage(SYSTEM), ...input]);
}

/** compressMessages on a history of `lc`'s classes: their classes, tool_call_ids and the
 * SystemMessage kept, the caller's objects where unchanged, some ToolMessage rewritten as one. */
export function compressMessagesRun(lc) {
  const input = history(lc, 6);
  const frozen = JSON.stringify(input);
  const results = [];
  const out = compressMessages(input, { tokenBudget: 1500, onCompress: (r) => results.push(r) });
  checkMessages(lc, out, input);
  assert.equal(out[0], input[0], 'the SystemMessage is the caller’s own');
  assert.equal(out.at(-1), input.at(-1), 'the last question is the caller’s own');
  assert.ok(results[0].fits && results[0].tokenCount <= 1500, `fits 1500 tokens (${results[0].tokenCount})`);
  assert.ok(
    out.some((m) => m instanceof lc.ToolMessage && m !== input.find((x) => x.tool_call_id === m.tool_call_id)),
    'some ToolMessage was rewritten, as a ToolMessage',
  );
  assert.equal(JSON.stringify(input), frozen);
}

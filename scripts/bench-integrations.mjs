#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The integrations on the agentic conversations of data/real (those with tool calls), at 30 %
// of each conversation's own token count: through the AI SDK (generateText with a mock model
// wrapped by compressionMiddleware: what the model received), LangChain (compressMessages) and
// an OpenAI Chat request body (compressRequest). Per integration: how many fit (the engine's
// count, checked with o200k_base: every text, tool name and argument, 3 tokens per message) and
// how many are valid requests (no problem `validate` did not already find in the input).
// fitsO200k is a rough check (every string but ids and types counted); bench:formats counts as billed.
//   node scripts/bench-integrations.mjs [--without FILE-PART] [--force]     (npm run build first)
import { readdirSync, readFileSync } from 'node:fs';

import * as lc from '@langchain/core/messages';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

import { compressAiSdkMessages, compressionMiddleware } from '../dist/ai-sdk-node.js';
import { validate } from '../dist/formats-node.js';
import { compressMessages } from '../dist/langchain-node.js';
import { compressRequest } from '../dist/request-node.js';
import { toAiSdk, toLangChain, toOpenAIChat } from '../js/test/support/convert-formats.mjs';
import { sharedPath } from '../js/test/support/shared-data.mjs';

const dir = sharedPath('data/real/');
// Agentic: assistant tool calls answered by tool results with their call ids (aider's logs have
// `tool` messages without calls, which no provider accepts). --without NAME leaves a file out.
const withoutAt = process.argv.indexOf('--without');
const without = withoutAt > 0 ? process.argv[withoutAt + 1] : undefined;
// --force: forceConverge (truncate the longest messages when summaries alone do not fit).
const extra = process.argv.includes('--force') ? { forceConverge: true } : {};
const agentic = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && (without === undefined || !f.includes(without)))
  .sort()
  .flatMap((f) => JSON.parse(readFileSync(dir + f, 'utf8')))
  .filter((c) => Array.isArray(c) && c.some((m) => m.tool_calls?.length > 0));

const SKIP = new Set(['type', 'role', 'toolCallId', 'tool_call_id', 'id', 'providerOptions', 'lc_serializable',
  'lc_kwargs', 'lc_namespace', 'additional_kwargs', 'response_metadata', 'usage_metadata', 'invalid_tool_calls']);
function billed(value) {
  if (typeof value === 'string') return countTokens(value);
  if (Array.isArray(value)) return value.reduce((n, v) => n + billed(v), 0);
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  for (const [key, v] of Object.entries(value)) {
    if (SKIP.has(key)) continue;
    n += (key === 'input' || key === 'args') && typeof v === 'object' ? countTokens(JSON.stringify(v)) : billed(v);
  }
  return n;
}
const o200k = (messages) => messages.reduce((n, m) => n + 3 + billed(m), 0);
const problems = (messages, format) => new Set(validate(messages, { format }).map((p) => `${p.code}:${p.callId ?? ''}`));
const addsNone = (before, after) => [...after].every((p) => before.has(p));

const answer = async () => ({
  content: [{ type: 'text', text: 'ok' }],
  finishReason: { unified: 'stop', raw: undefined },
  usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
  warnings: [],
});

const rows = [];
// The conversations the AI SDK itself accepts (it rejects tool calls without results before any
// middleware runs); every integration is also counted on these alone.
const sdkAccepted = new Set();
async function measure(name, format, cases) {
  const row = { integration: name, conversations: cases.length, inputRejected: 0, fits: 0, fitsO200k: 0, valid: 0, ratio: [], fitsOfSdkAccepted: 0 };
  for (const [i, make] of cases.entries()) {
    const made = await make(i);
    if (!made) {
      row.inputRejected++;
      continue;
    }
    const { before, run } = made;
    const { full, sent, fits } = await run();
    if (fits) row.fits++;
    if (fits && sdkAccepted.has(i)) row.fitsOfSdkAccepted++;
    if (fits && o200k(sent.messages) <= sent.budget * 1.0) row.fitsO200k++;
    if (addsNone(problems(before, format), problems(sent.messages, format))) row.valid++;
    row.ratio.push(o200k(sent.messages) / o200k(before));
  }
  row.ratio = (row.ratio.reduce((a, b) => a + b, 0) / row.ratio.length).toFixed(3);
  rows.push(row);
}

// AI SDK: the prompt the SDK builds, then the same call through the middleware.
await measure('ai-sdk (middleware)', 'ai-sdk', agentic.map((c) => async (i) => {
  const messages = toAiSdk(c);
  const plain = new MockLanguageModelV3({ doGenerate: answer });
  try {
      await generateText({ model: plain, messages, allowSystemInMessages: true });
  } catch {
    return undefined; // the SDK itself rejects the conversation (a tool call without its result)
  }
  sdkAccepted.add(i);
  const prompt = plain.doGenerateCalls[0].prompt;
  return {
    before: prompt,
    run: async () => {
      const full = (await compressAiSdkMessages(prompt, { tokenBudget: 1e12 })).tokenCount;
      const budget = Math.max(1, Math.floor(full * 0.3));
      let fits = false;
      const mock = new MockLanguageModelV3({ doGenerate: answer });
      const model = wrapLanguageModel({ model: mock, middleware: compressionMiddleware({ ...extra, tokenBudget: budget, onCompress: (r) => (fits = r.fits) }) });
      await generateText({ model, messages, allowSystemInMessages: true });
      return { full, fits, sent: { messages: mock.doGenerateCalls[0].prompt, budget } };
    },
  };
}));

await measure('langchain (compressMessages)', 'langchain', agentic.map((c) => async () => {
  const messages = toLangChain(c, lc);
  return {
    before: messages,
    run: async () => {
      let full = 0;
      compressMessages(messages, { tokenBudget: 1e12, onCompress: (r) => (full = r.tokenCount) });
      const budget = Math.max(1, Math.floor(full * 0.3));
      let fits = false;
      const out = compressMessages(messages, { ...extra, tokenBudget: budget, onCompress: (r) => (fits = r.fits) });
      return { full, fits, sent: { messages: out, budget } };
    },
  };
}));

await measure('request (openai-chat body)', 'openai-chat', agentic.map((c) => async () => {
  const body = { model: 'gpt-4.1', messages: toOpenAIChat(c) };
  return {
    before: body.messages,
    run: async () => {
      let full = 0;
      compressRequest(body, { provider: 'openai-chat', tokenBudget: 1e12, onCompress: (r) => (full = r.tokenCount) });
      const budget = Math.max(1, Math.floor(full * 0.3));
      let fits = false;
      const out = compressRequest(body, { ...extra, provider: 'openai-chat', tokenBudget: budget, onCompress: (r) => (fits = r.fits) });
      return { full, fits, sent: { messages: out.messages, budget } };
    },
  };
}));

console.table(rows);
console.log(`fitsOfSdkAccepted: of the ${sdkAccepted.size} conversations the AI SDK accepts`);

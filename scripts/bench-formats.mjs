#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Provider-native conversations, measured (issue 17): per format, how many budget results say
// `fits: true` and how many of those really fit, counting what would be sent with the o200k_base
// tokenizer (gpt-tokenizer): every billed string (text, thinking, tool names and arguments, tool
// results, reasoning summaries) plus 3 tokens per message (OpenAI's documented per-message
// overhead) plus images by the provider's formula. Also: valid outputs and exact round trips.
// The main entry's row runs `compress` of cce-wasm itself on the engine dialect, for comparison.
//   node scripts/bench-formats.mjs [--limit N] [--over]
// --over also lists every `fits: true` result above 1.10 x its budget by o200k (which
// conversation, which budget), to find what the estimate undercounts.
// Uses dist/ (npm run build first; cce-wasm/formats) and the data sets beside the repository.
import { readdirSync, readFileSync } from 'node:fs';

import * as lc from '@langchain/core/messages';
import { convertToModelMessages } from 'ai';

import { compress, uncompress, validate } from '../dist/formats-node.js';
import { compress as mainCompress } from '../dist/node.js';
import { toAiSdk, toAiSdkUi, toLangChain, toOpenAIChat, toResponses, toolResultChars } from '../js/test/support/convert-formats.mjs';
import { sharedPath } from '../js/test/support/shared-data.mjs';
import { sentTokens } from '../js/test/support/billed-tokens.mjs';

const limitAt = process.argv.indexOf('--limit');
const limit = limitAt > 0 ? Number(process.argv[limitAt + 1]) : Infinity;
const listOver = process.argv.includes('--over');

// Where each conversation came from (file and index), for --over.
const sources = new WeakMap();
function load(rel) {
  const dir = sharedPath(rel);
  const out = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    JSON.parse(readFileSync(dir + file, 'utf8')).forEach((c, i) => {
      if (typeof c === 'object' && c !== null) sources.set(c, `${rel}${file}#${i}`);
      out.push(c);
    });
  }
  return out;
}
const withSource = (from, to) => {
  if (sources.has(from)) sources.set(to, sources.get(from));
  return to;
};

// data/native in both shapes, and the agentic conversations of data/real (those with tool calls).
const native = load('data/native/anthropic/').slice(0, limit);
const twins = load('data/native/openai/').slice(0, limit);
const agentic = load('data/real/')
  .filter((c) => Array.isArray(c) && c.some((m) => m.role === 'tool'))
  .slice(0, limit);
const chatShaped = [...twins, ...agentic];

const formatsCompress = compress;
const problemKey = (p) => `${p.code}:${p.callId ?? ''}`;

// UIMessages are sent as convertToModelMessages makes them: their validity and what they bill are
// those of that AI SDK prompt (the UI validator's problems count too).
const uiSent = async (messages) => convertToModelMessages(messages);

async function run(label, cases, dialect = false, compress = formatsCompress) {
  const format = dialect ? 'openai-chat' : label;
  const row = { format: label, conversations: cases.length, runs: 0, valid: 0, exact: 0, fits: 0, honest: 0, worst: 0, ratios: [], over: [], results: 0, resultsKept: 0 };
  for (const item of cases) {
    const { messages, system } = item;
    const options = dialect ? {} : system === undefined ? { format } : { format, system };
    const before = new Set(validate(messages, { ...options, format }).map(problemKey));
    // What the input's own AI SDK prompt already has (a call still waiting for its result).
    if (format === 'ai-sdk-ui') for (const p of validate(await uiSent(messages), { format: 'ai-sdk' })) before.add(problemKey(p));
    const full = compress(messages, { ...options, tokenBudget: 1e12 });
    for (const share of [0, 0.5, 0.3, 0.15]) {
      const budget = share ? Math.max(1, Math.floor(full.tokenCount * share)) : undefined;
      const result = compress(messages, budget ? { ...options, tokenBudget: budget } : options);
      row.runs++;
      if (!budget) {
        row.results += toolResultChars(messages, format);
        row.resultsKept += toolResultChars(result.messages, format);
      }
      let valid = validate(result.messages, { ...options, format }).every((p) => before.has(problemKey(p)));
      const sent = format === 'ai-sdk-ui' ? await uiSent(result.messages) : result.messages;
      if (format === 'ai-sdk-ui') valid &&= validate(sent, { format: 'ai-sdk' }).every((p) => before.has(problemKey(p)));
      if (valid) row.valid++;
      const restored = uncompress(result.messages, result.verbatim, dialect ? {} : { format }).messages;
      const same = dialect
        ? JSON.stringify(restored) === JSON.stringify(messages)
        : restored.length === messages.length && restored.every((m, i) => m === messages[i]);
      if (same) row.exact++;
      if (!budget || !result.fits) continue;
      row.fits++;
      const ratio = sentTokens(sent, system, format === 'ai-sdk-ui' ? 'ai-sdk' : format) / budget;
      row.ratios.push(ratio);
      if (ratio <= 1.1) row.honest++;
      else row.over.push(`${sources.get(item) ?? '?'} at ${share * 100} %: ${ratio.toFixed(3)} x budget ${budget}`);
      row.worst = Math.max(row.worst, ratio);
    }
  }
  return row;
}

const rows = [
  await run('anthropic', native.map((b) => withSource(b, { messages: b.messages, system: b.system }))),
  await run('openai-chat', chatShaped.map((c) => withSource(c, { messages: toOpenAIChat(c) }))),
  await run('openai-chat with ids (engine dialect)', chatShaped.map((c) => withSource(c, { messages: c })), true),
  // The main entry (import { compress } from 'cce-wasm') on the same messages: its default
  // estimate, computed in the engine (no counter called back).
  await run('main entry, default estimate', chatShaped.map((c) => withSource(c, { messages: c })), true, mainCompress),
  await run('ai-sdk', chatShaped.map((c) => withSource(c, { messages: toAiSdk(c) }))),
  await run('ai-sdk-ui', chatShaped.map((c) => withSource(c, { messages: toAiSdkUi(c) }))),
  await run('openai-responses', chatShaped.map((c) => withSource(c, { messages: toResponses(c) }))),
  await run('langchain', chatShaped.map((c) => withSource(c, { messages: toLangChain(c, lc) }))),
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
console.log('| format | conversations | runs | valid outputs | exact round trips | tool-result text kept (defaults) | fits: true | honest (o200k <= 1.10 x budget) | median o200k / budget | worst |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.format} | ${r.conversations} | ${r.runs} | ${r.valid} | ${r.exact} | ` +
      `${((100 * r.resultsKept) / r.results).toFixed(1)} % | ${r.fits} | ${r.honest} | ` +
      `${median(r.ratios).toFixed(3)} | ${r.worst.toFixed(3)} |`,
  );
}
if (listOver) {
  for (const r of rows) {
    if (r.over.length === 0) continue;
    console.log(`\n${r.format}: fits: true above 1.10 x budget`);
    for (const line of r.over) console.log(`  ${line}`);
  }
}

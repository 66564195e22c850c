#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// What compression costs under a provider's prompt cache (issue 20, item 4). The three Claude Code
// data sets of data/real are replayed call by call: every assistant message is a model call whose
// input is the history before it (6,295 calls), sent through a policy under a context window, and
// billed by js/src/cache-cost.ts (o200k tokens of each message's text and tool-call arguments):
//   Anthropic  a breakpoint at the end of each request (plus, for the cache-aware policies, the
//              ones placeCacheBreakpoints adds); cached prefix 0.1x, written 1.25x
//   OpenAI     automatic prefix caching from 1,024 tokens in 128-token steps, cached at 0.5x
// Costs are relative to sending everything under the same pricing. Per policy: calls over the
// window (failures), the two costs, prefix changes (calls whose request does not extend the
// previous one, the first call of a conversation included) and next-call recall: of the facts
// the next assistant message uses (paths, identifiers, numbers, error lines, quoted strings: the
// rules of scripts/bench-quality.mjs) that occur earlier in the history, the share present in the
// request that produced it.
//
//   npm run bench:cost [-- --limit 5] [-- --only mclaude] [-- --windows 32000:24000,100000:80000]
//                      [-- --precise]  (costs to three places, recall to two)
//                      [-- --policies everything,compress,manager]
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { compress, compressStable, createCacheBiller, placeCacheBreakpoints } from '../dist/cache-node.js';
import { createContextManager } from '../dist/context-node.js';
import { requestCompressor } from '../dist/request-node.js';
import { facts, loadTokenizer } from './bench-facts.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const only = option('--only', '');
const target = Number(option('--target', '0.5'));
const stableShare = Number(option('--stable-share', '1'));
const limit = Number(option('--limit', '0'));
const precise = args.includes('--precise');
const windows = option('--windows', '32000:24000,100000:80000')
  .split(',')
  .map((w) => w.split(':').map(Number));
const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = path.join(root, 'build/testdata/data/real');

const { countTokens } = loadTokenizer(root, option('--tokenizer-dir', '/tmp/tok'));

// ---- counts and facts ------------------------------------------------------------------------------

/** A message's text as the model reads it: content text and tool-call names and arguments. */
const textCache = new WeakMap();
function textOf(m) {
  let t = textCache.get(m);
  if (t !== undefined) return t;
  const parts = [];
  if (typeof m.content === 'string') parts.push(m.content);
  else if (Array.isArray(m.content)) {
    for (const p of m.content) if (p && typeof p.text === 'string') parts.push(p.text);
  }
  for (const c of m.tool_calls ?? []) {
    if (c?.function) parts.push(`${c.function.name ?? ''} ${c.function.arguments ?? ''}`);
  }
  t = parts.join('\n');
  textCache.set(m, t);
  return t;
}
const counts = new Map();
const o200k = (text) => {
  let n = counts.get(text);
  if (n === undefined) {
    n = countTokens(text);
    if (counts.size > 300000) counts.clear();
    counts.set(text, n);
  }
  return n;
};
const tokenCounter = (m) => o200k(textOf(m));
const total = (messages) => messages.reduce((sum, m) => sum + tokenCounter(m), 0);


// ---- policies --------------------------------------------------------------------------------------
// Each policy is a factory per conversation: (window, budget) => { call(history) => request }.

function dropOldest(messages, budget) {
  const system = messages.filter((m) => m.role === 'system');
  let used = total(system);
  const kept = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'system') continue;
    const t = tokenCounter(m);
    if (used + t > budget) break;
    used += t;
    kept.unshift(m);
  }
  while (kept.length && kept[0].tool_call_id !== undefined) kept.shift();
  return [...system, ...kept];
}

const sharedCompressors = new Map();
const POLICIES = {
  everything: {
    label: 'send everything',
    start: () => ({ call: (history) => history.slice() }),
  },
  'drop-oldest': {
    label: 'drop oldest to the budget each call',
    start: (window, budget) => ({ call: (history) => dropOldest(history, budget) }),
  },
  compress: {
    label: '`compress` to the budget on every call',
    start: (window, budget) => ({
      call: (history) => compress(history, { tokenBudget: budget, tokenCounter }).messages,
    }),
  },
  stable: {
    label: `\`compressStable\` (budget × ${option('--stable-share', '1')}, target ${option('--target', '0.5')})`,
    breakpoints: !args.includes('--no-breakpoints'),
    start: (window, budget) => {
      let last = null;
      return {
        call(history) {
          last = compressStable(history, {
            tokenBudget: Math.floor(budget * stableShare),
            tokenCounter,
            previous: last,
            target,
          });
          return last.messages;
        },
      };
    },
  },
  'stable-anthropic': {
    label: '`compressStable`, `cacheCost: Anthropic`',
    breakpoints: true,
    start: (window, budget) => {
      let last = null;
      return {
        call(history) {
          last = compressStable(history, {
            tokenBudget: budget,
            tokenCounter,
            previous: last,
            cacheCost: { provider: 'anthropic' },
          });
          return last.messages;
        },
      };
    },
  },
  request: {
    label: '`requestCompressor` (the middlewares\' cache-stable mode), one for every conversation',
    breakpoints: true,
    start: (window, budget) => {
      // One compressor serves every conversation, as a proxy or a middleware does.
      const key = `${window}/${budget}`;
      let forward = sharedCompressors.get(key);
      if (!forward) {
        forward = requestCompressor({ provider: 'openai-chat', tokenBudget: budget, tokenCounter });
        sharedCompressors.set(key, forward);
      }
      return { call: (history) => forward({ messages: history }).messages };
    },
  },
  manager: {
    label: 'the context manager (defaults)',
    start: (window, budget) => managerPolicy({ contextWindow: window, promptBudget: window - budget }),
  },
  'manager-anthropic': {
    label: 'the context manager, `cacheCost: Anthropic`',
    breakpoints: true,
    start: (window, budget) =>
      managerPolicy({
        contextWindow: window,
        promptBudget: window - budget,
        cacheCost: { provider: 'anthropic' },
      }),
  },
  'manager-openai': {
    label: 'the context manager, `cacheCost: OpenAI`',
    breakpoints: true,
    start: (window, budget) =>
      managerPolicy({
        contextWindow: window,
        promptBudget: window - budget,
        cacheCost: { provider: 'openai', cachedPrice: 0.5 },
      }),
  },
};

// --manager 'threshold=0.5,keepLast=10;cacheCost=anthropic,minFill=0.7': more manager
// configurations to compare.
option('--manager', '')
  .split(';')
  .filter(Boolean)
  .forEach((spec, i) => {
    // cacheCost=anthropic|openai and minFill=0.7 make the cacheCost field; the rest are numbers.
    const config = Object.fromEntries(spec.split(',').map((kv) => [kv.split('=')[0], kv.split('=')[1]]));
    const { cacheCost, minFill, ...numbers } = config;
    for (const key of Object.keys(numbers)) numbers[key] = Number(numbers[key]);
    if (cacheCost !== undefined) {
      numbers.cacheCost = { provider: cacheCost, ...(cacheCost === 'openai' ? { cachedPrice: 0.5 } : {}) };
      if (minFill !== undefined) numbers.cacheCost.minFill = Number(minFill);
    }
    POLICIES[`manager-${i}`] = {
      label: `the context manager (${spec})`,
      breakpoints: true,
      start: (window, budget) =>
        managerPolicy({ contextWindow: window, promptBudget: window - budget, ...numbers }),
    };
  });

function managerPolicy(config) {
  const chat = createContextManager({ ...config, tokenCounter });
  let added = 0;
  return {
    call(history) {
      if (history.length > added) {
        chat.addMany(history.slice(added));
        added = history.length;
      }
      chat.compressIfNeeded();
      return chat.view().messages;
    },
  };
}

// ---- replay ----------------------------------------------------------------------------------------

const PROVIDERS = [
  ['anthropic', { provider: 'anthropic' }],
  ['openai', { provider: 'openai', cachedPrice: 0.5 }],
];

const files = readdirSync(dataDir)
  .filter((f) => f.startsWith('claude_code_') && f.endsWith('.json') && f.includes(only))
  .sort();
const conversations = [];
for (const file of files) {
  let list = JSON.parse(readFileSync(path.join(dataDir, file), 'utf8'));
  if (limit > 0) list = list.slice(0, limit);
  conversations.push(...list);
}
const chosen = option('--policies', 'everything,drop-oldest,compress,stable,manager').split(',');

/** Whether `request` starts with every message of `before` (equal JSON). */
const jsonOf = (m) => JSON.stringify(m);
function extendsRequest(request, before) {
  if (!before || before.length > request.length) return false;
  for (let i = 0; i < before.length; i++) {
    if (request[i] !== before[i] && jsonOf(request[i]) !== jsonOf(before[i])) return false;
  }
  return true;
}

const calls = conversations.reduce(
  (n, c) => n + c.filter((m, i) => i > 0 && m.role === 'assistant').length,
  0,
);
console.log(
  `${files.join(', ')}: ${conversations.length} conversations, ${calls} calls; o200k tokens`,
);

for (const [window, budget] of windows) {
  const rows = [];
  for (const name of chosen) {
    const policy = POLICIES[name];
    if (!policy) throw new Error(`unknown policy ${name}`);
    const t0 = performance.now();
    const row = { name, label: policy.label, over: 0, changes: 0, found: 0, of: 0, cost: {}, calls: 0 };
    for (const [provider] of PROVIDERS) row.cost[provider] = 0;
    for (const conversation of conversations) {
      const run = policy.start(window, budget);
      const billers = PROVIDERS.map(([p, model]) => [p, createCacheBiller(model, tokenCounter)]);
      let previous = null;
      let historyText = '';
      for (let i = 0; i < conversation.length; i++) {
        const next = conversation[i];
        if (i > 0 && next.role === 'assistant') {
          const history = conversation.slice(0, i);
          const request = run.call(history);
          row.calls++;
          if (total(request) > window) row.over++;
          if (!extendsRequest(request, previous)) row.changes++;
          for (const [p, biller] of billers) {
            const sent =
              p === 'anthropic' && policy.breakpoints
                ? { messages: request, breakpoints: breakpointsOf(request, previous) }
                : request;
            const billed = biller.bill(sent);
            row.cost[p] += billed.cost;
            if (p === 'anthropic') {
              row.tokens = (row.tokens ?? 0) + billed.tokens;
              row.cached = (row.cached ?? 0) + billed.cached;
              row.written = (row.written ?? 0) + billed.written;
            }
          }
          previous = request;
          const requestText = request.map(textOf).join('\n');
          for (const f of facts(textOf(next))) {
            if (!historyText.includes(f)) continue;
            row.of++;
            if (requestText.includes(f)) row.found++;
          }
        }
        historyText += `\n${textOf(next)}`;
      }
    }
    row.seconds = (performance.now() - t0) / 1000;
    rows.push(row);
    console.error(
      `  ${window}/${budget} ${name}: ${row.seconds.toFixed(1)} s; Anthropic tokens ${row.tokens}, ` +
        `cached ${row.cached}, written ${row.written}`,
    );
  }
  const base = rows.find((r) => r.name === 'everything');
  console.log(`\nwindow ${window}, budget ${budget}; cost relative to sending everything`);
  console.log('| policy | calls over the window | Anthropic | OpenAI | prefix changes | next-call recall |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    const rel = (p) => (base ? (r.cost[p] / base.cost[p]).toFixed(precise ? 3 : 2) : r.cost[p].toFixed(0));
    console.log(
      `| ${r.label} | ${r.over.toLocaleString('en')} | ${rel('anthropic')} | ${rel('openai')} ` +
        `| ${r.changes.toLocaleString('en')} | ${((100 * r.found) / Math.max(1, r.of)).toFixed(precise ? 2 : 1)} % |`,
    );
  }
}

/** The breakpoints placeCacheBreakpoints sets on a request (indices of marked messages). */
function breakpointsOf(request, previous) {
  const marked = placeCacheBreakpoints(request, {
    previousLength: previous && extendsRequest(request, previous) ? previous.length : undefined,
  });
  const out = [];
  marked.forEach((m, i) => {
    if (m !== request[i]) out.push(i);
  });
  return out;
}

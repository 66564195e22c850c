#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// What a token budget keeps (issue 18): over every real conversation in data/real, at budgets of
// 50 / 30 / 15 % of its o200k tokens, three contenders, all counted with o200k (gpt-tokenizer):
//   default      compress(messages, { tokenBudget, tokenCounter })
//   compat       the same with compat 'cce-1.0' and forceConverge (the reference's best effort)
//   drop-oldest  system messages plus the newest messages that fit, never starting on a tool result
//                (LangChain's trimMessages strategy "last")
// Per data set: feasible conversations (system messages + newest user message fit), the share of
// those that fit, output tokens / budget (mean over the feasible ones), and the retention of what
// the conversation reuses: facts (paths, identifiers, versions, numbers with units, URLs, error
// lines, quoted strings) that appear in an early message (before both the newest four messages and
// the newest user turn) and again in a later one, plus the user's early requests (the first
// sentence of each early user message, kept when 60 % of its content words are in one output
// message). A fact or request counts as kept when some output message contains it (as the issue
// measures it: the later mention counts too, which is what drop-oldest keeps). Also checks, for
// the default mode: monotone (15 % <= 30 % <= 50 % in tokens), never larger than the input, no
// message longer than its source, no orphaned or unanswered tool call.
//
//   npm run bench:quality [-- --only aider] [-- --limit 50] [-- --contenders default,drop-oldest]
//
// gpt-tokenizer is a devDependency; without it in node_modules, install it elsewhere and point
// --tokenizer-dir at it (npm install --no-save --prefix /tmp/tok gpt-tokenizer).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { compress } from '../dist/node.js';
import { facts, loadTokenizer } from './bench-facts.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const only = option('--only', '');
const limit = Number(option('--limit', '0'));
const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = path.join(root, 'build/testdata/data/real');

const { countTokens } = loadTokenizer(root, option('--tokenizer-dir', '/tmp/tok'));

const textOf = (m) => {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) {
    return m.content.filter((p) => p && typeof p.text === 'string').map((p) => p.text).join('\n');
  }
  return '';
};
const cache = new Map();
const o200k = (text) => {
  let n = cache.get(text);
  if (n === undefined) {
    n = countTokens(text);
    if (cache.size > 200000) cache.clear();
    cache.set(text, n);
  }
  return n;
};
const tokenCounter = (m) => o200k(textOf(m));
const total = (messages) => messages.reduce((sum, m) => sum + tokenCounter(m), 0);

// ---- what the conversation reuses ----------------------------------------------------------------


const STOP = new Set(('the and for you your with that this from have are was were but not can ' +
  'could would should will what when where which who how why please about into just like some ' +
  'them they then than there here also all any our out its it\'s let\'s lets make sure use using')
  .split(' '));
const words = (text) =>
  (text.toLowerCase().match(/[a-z0-9_]{3,}/g) || []).filter((w) => !STOP.has(w));
const firstSentence = (text) => {
  const t = text.trim();
  const end = t.search(/[.!?](\s|$)|\n/);
  return end >= 0 ? t.slice(0, end + 1) : t;
};

function newestUserIndex(messages) {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i;
  return messages.length;
}

/** The facts and requests to keep. */
function reuseTargets(messages) {
  const early = Math.min(messages.length - 4, newestUserIndex(messages));
  const targets = [];
  if (early <= 0) return { facts: [], requests: [] };
  const seenAt = new Map();  // fact -> index of first early mention
  for (let i = 0; i < early; i++) {
    for (const f of facts(textOf(messages[i]))) if (!seenAt.has(f)) seenAt.set(f, i);
  }
  const reused = new Set();
  for (let i = 1; i < messages.length; i++) {
    const text = textOf(messages[i]);
    for (const [f, at] of seenAt) if (at < i && !reused.has(f) && text.includes(f)) reused.add(f);
  }
  const requests = [];
  for (let i = 0; i < early; i++) {
    if (messages[i].role !== 'user') continue;
    const w = [...new Set(words(firstSentence(textOf(messages[i]))))];
    if (w.length >= 2) requests.push(w);
  }
  targets.push(...reused);
  return { facts: targets, requests };
}

function retention(targets, output) {
  const texts = output.map(textOf);
  let facts = 0;
  for (const f of targets.facts) if (texts.some((t) => t.includes(f))) facts++;
  let requests = 0;
  const sets = texts.map((t) => new Set(words(t)));
  for (const w of targets.requests) {
    if (sets.some((s) => w.filter((x) => s.has(x)).length >= 0.6 * w.length)) requests++;
  }
  return { kept: facts + requests, of: targets.facts.length + targets.requests.length };
}

// ---- contenders ------------------------------------------------------------------------------------

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
  // Never start on a tool result whose call was dropped.
  while (kept.length && (kept[0].role === 'tool' || kept[0].tool_call_id !== undefined)) kept.shift();
  return [...system, ...kept];
}

const allContenders = {
  default: (messages, budget) => compress(messages, { tokenBudget: budget, tokenCounter }).messages,
  compat: (messages, budget) =>
    compress(messages, { tokenBudget: budget, tokenCounter, compat: 'cce-1.0', forceConverge: true })
      .messages,
  'drop-oldest': dropOldest,
};
// --contenders default,drop-oldest skips the slow compat runs (its forceConverge is quadratic).
const chosen = option('--contenders', Object.keys(allContenders).join(',')).split(',');
const contenders = Object.fromEntries(
  Object.entries(allContenders).filter(([name]) => chosen.includes(name)),
);

// ---- checks ----------------------------------------------------------------------------------------

function orphans(messages) {
  const calls = new Set();
  const answered = new Set();
  let bad = 0;
  for (const m of messages) {
    for (const c of m.tool_calls || []) calls.add(c.id);
    if (m.tool_call_id !== undefined) {
      if (!calls.has(m.tool_call_id)) bad++;
      answered.add(m.tool_call_id);
    }
  }
  for (const id of calls) if (!answered.has(id)) bad++;
  return bad;
}

// Output messages that cost more than the input messages they stand for (_cce_original.ids, else
// their own id).
function longerMessages(input, output) {
  const byId = new Map(input.map((m) => [m.id, m]));
  let n = 0;
  for (const m of output) {
    const ids = m.metadata?._cce_original?.ids ?? [m.id];
    let sources = 0;
    for (const id of ids) sources += byId.has(id) ? tokenCounter(byId.get(id)) : Infinity;
    if (tokenCounter(m) > sources) n++;
  }
  return n;
}

// ---- run -------------------------------------------------------------------------------------------

const SHARES = [0.5, 0.3, 0.15];
const files = readdirSync(dataDir).filter((f) => f.endsWith('.json') && f.includes(only)).sort();
const rows = [];
const checks = { monotone: 0, monotoneFeasible: 0, larger: 0, longer: 0, orphans: 0, conversations: 0 };
for (const file of files) {
  let conversations = JSON.parse(readFileSync(path.join(dataDir, file), 'utf8'));
  if (limit > 0) conversations = conversations.slice(0, limit);
  const stats = {};
  for (const name of Object.keys(contenders)) {
    for (const share of SHARES) {
      stats[`${name}@${share}`] = { feasible: 0, fits: 0, ratio: 0, kept: 0, of: 0 };
    }
  }
  const orphansBefore = conversations.map(orphans);
  conversations.forEach((messages, c) => {
    const inputTokens = total(messages);
    const targets = reuseTargets(messages);
    const newest = newestUserIndex(messages);
    const required = total(messages.filter((m, i) => m.role === 'system' || i === newest));
    const defaultTokens = [];
    const feasibleAt = [];
    for (const share of SHARES) {
      const budget = Math.floor(inputTokens * share);
      for (const [name, run] of Object.entries(contenders)) {
        const output = run(messages, budget);
        const tokens = total(output);
        if (name === 'default') {
          defaultTokens.push(tokens);
          feasibleAt.push(required <= budget);
          if (tokens > inputTokens) checks.larger++;
          checks.longer += longerMessages(messages, output);
          checks.orphans += Math.max(0, orphans(output) - orphansBefore[c]);
        }
        if (required > budget) continue;
        const s = stats[`${name}@${share}`];
        s.feasible++;
        if (tokens <= budget) s.fits++;
        s.ratio += tokens / budget;
        const r = retention(targets, output);
        s.kept += r.kept;
        s.of += r.of;
      }
    }
    checks.conversations++;
    const worse = (i) => defaultTokens[i] > defaultTokens[i - 1];
    if (worse(1) || worse(2)) checks.monotone++;
    if ((worse(1) && feasibleAt[1]) || (worse(2) && feasibleAt[2])) checks.monotoneFeasible++;
  });
  rows.push({ file: file.replace(/\.json$/, ''), n: conversations.length, stats });
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(0)} %` : '—');
const all = {};
console.log('| data set | budget | contender | fits / feasible | tokens / budget | reused kept |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) {
  for (const share of SHARES) {
    for (const name of Object.keys(contenders)) {
      const s = row.stats[`${name}@${share}`];
      const a = (all[`${name}@${share}`] ??= { feasible: 0, fits: 0, ratio: 0, kept: 0, of: 0 });
      for (const k of Object.keys(a)) a[k] += s[k];
      console.log(`| ${row.file} (${row.n}) | ${share * 100} % | ${name} | ${s.fits}/${s.feasible} ` +
        `| ${s.feasible ? (s.ratio / s.feasible).toFixed(2) : '—'} | ${pct(s.kept, s.of)} |`);
    }
  }
}
for (const share of SHARES) {
  for (const name of Object.keys(contenders)) {
    const s = all[`${name}@${share}`];
    console.log(`| **all** | ${share * 100} % | ${name} | ${s.fits}/${s.feasible} (${pct(s.fits, s.feasible)}) ` +
      `| ${s.feasible ? (s.ratio / s.feasible).toFixed(2) : '—'} | ${pct(s.kept, s.of)} |`);
  }
}
console.log(`\ndefault mode over ${checks.conversations} conversations x ${SHARES.length} budgets: ` +
  `not monotone ${checks.monotone} (${checks.monotoneFeasible} where the smaller budget is feasible), ` +
  `larger than the input ${checks.larger}, ` +
  `messages longer than their source ${checks.longer}, new orphaned/unanswered tool calls ${checks.orphans}`);

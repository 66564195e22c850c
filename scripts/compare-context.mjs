#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Whether two builds of the context manager (cce-wasm/context) give the same answers: the real
// transcripts (data/real) replayed turn by turn under five configurations (host token counter,
// keepFirst, summaryInputTokens, merges and aging), with views, compressions, toJSON / fromJSON
// round trips, undo, checkConversation and recoverProgress; each session again with an async
// summarizer that answers, fails, throws or answers too long; stored states broken in fourteen
// ways (summaryTokens with non-ASCII, lone-surrogate and integer-like keys among them); bad
// configurations and inputs; and views whose reasons are rare (headTooLarge, summariesTooLarge).
// Every answer or error is compared as JSON text (by its SHA-256). A change made for size or
// speed must print "0 differ".
//
//   cp -r dist /tmp/dist-before     # before the change; rebuild; then
//   node scripts/compare-context.mjs /tmp/dist-before dist
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { sharedPath } from '../js/test/support/shared-data.mjs';

const [dirA, dirB] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error('usage: node scripts/compare-context.mjs DIST_A DIST_B');
  process.exit(2);
}

// Long conversations whole (their first 700 messages), short ones joined into sessions of about
// 300 messages; at most three sessions per file.
function sessionsOf(dir) {
  const sessions = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const count = () => sessions.filter((s) => s.name.startsWith(file)).length;
    let joined = [];
    for (const conversation of JSON.parse(readFileSync(dir + file, 'utf8'))) {
      const messages = conversation.map(({ index, ...m }) => m);
      if (messages.length >= 60) {
        sessions.push({ name: file, messages: messages.slice(0, 700) });
      } else {
        joined.push(...messages);
        if (joined.length >= 300) {
          sessions.push({ name: `${file}+`, messages: joined });
          joined = [];
        }
      }
      if (count() >= 3) break;
    }
    if (joined.length) sessions.push({ name: `${file}+`, messages: joined });
  }
  return sessions;
}

const counter = (m) => Math.ceil(JSON.stringify(m).length / 4);
// Answers, fails (null), throws, or answers with the whole text (too long: the deterministic
// summary stands in), by the text's length.
const summarizer = (text, request) => {
  const k = text.length % 5;
  if (k === 0) return null;
  if (k === 1) throw new Error('no');
  if (k === 2) return text;
  return `S${request.level}:${request.messageRange.start}-${request.messageRange.end} ${text.slice(0, 80)}`;
};
const CONFIGS = [
  { contextWindow: 6000, keepLast: 4 },
  { contextWindow: 9000, promptBudget: 500, safetyMargin: 300, keepLast: 6, keepFirst: 2,
    maxCheckpoints: 2, ageAfter: 1 },
  { contextWindow: 5000, tokenEstimate: 'chars', summaryInputTokens: 1500, maxCheckpoints: 3,
    threshold: 0.6 },
  { contextWindow: 7000, tokenCounter: counter, maxCheckpoints: 2, ageAfter: 1 },
  { contextWindow: 30000, systemPromptTokens: 800, keepLast: 3, threshold: 0.5 },
];
const BROKEN = [
  (x) => { x.tokens.pop(); },
  (x) => { if (x.checkpoints[0]) x.checkpoints[0].messageRange.start += 1; },
  (x) => { if (x.checkpoints[1]) x.checkpoints[1].id = x.checkpoints[0].id; },
  (x) => { x.config.threshold = 2; },
  (x) => { x.config.contextWindow = -1; },
  (x) => { x.tokens[0] = -3; },
  (x) => { x.format = 'x'; },
  (x) => { if (x.checkpoints[0]) x.checkpoints[0].originalMessageIds.pop(); },
  (x) => { if (x.checkpoints[0]) x.checkpoints[0].level = 'huge'; },
  (x) => { x.summaryTokens = { a: 'b' }; },
  (x) => { x.messages[0] = 5; },
  (x) => { x.events = 3; },
  (x) => {
    x.summaryTokens = { z: 1, a: 2, é: 3, '\ud800': 4, '\udbff': 44, 10: 5, 9: 6, c00: 'x', '': 7,
      ÿ: 8, '\u{1F600}': 9, '\uffff': 10 };
  },
  (x) => { x.summaryTokens = Object.fromEntries(Object.entries(x.summaryTokens).reverse()); },
];
const words = (n, seed) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 97}`).join(' ');

/** Runs the workload on one build; `record(name, answer)` gets every answer in order. */
async function workload(dir, sessions, record) {
  const api = await import(pathToFileURL(resolve(dir, 'context-node.js')).href);
  const { createContextManager, ContextManager, recoverProgress, checkConversation } = api;
  const call = (name, fn) => {
    let answer;
    try {
      answer = fn();
    } catch (e) {
      answer = { error: e.name, code: e.code, message: e.message, path: e.path };
    }
    record(name, answer);
    return answer;
  };
  const callAsync = async (name, fn) => {
    let answer;
    try {
      answer = await fn();
    } catch (e) {
      answer = { error: e.name, code: e.code, message: e.message, path: e.path };
    }
    record(name, answer);
  };
  let tick = 0;
  const clock = () => `2026-11-27T00:00:${String(tick++ % 60).padStart(2, '0')}Z`;

  for (const s of sessions) {
    for (let ci = 0; ci < CONFIGS.length; ci++) {
      const tag = `${s.name}/${ci}`;
      const callbacks = ci === 3 ? { tokenCounter: counter, clock } : { clock };
      let manager;
      call(`create ${tag}`, () => {
        manager = createContextManager({ ...CONFIGS[ci], clock });
        return manager.usage();
      });
      if (!manager) continue;
      const step = ci === 4 ? 3 : 1;
      for (let i = 0; i < s.messages.length; i += step) {
        const batch = s.messages.slice(i, i + step);
        call(`add ${tag} ${i}`, () => (step === 1 ? manager.add(batch[0]) : manager.addMany(batch)));
        if (call(`shouldCompress ${tag} ${i}`, () => manager.shouldCompress())) {
          call(`compress ${tag} ${i}`, () => manager.compress());
        }
        if (i % 7 === 0) call(`view ${tag} ${i}`, () => manager.view());
        if (i % 50 === 49) {
          const state = call(`toJSON ${tag} ${i}`, () => manager.toJSON());
          call(`fromJSON ${tag} ${i}`, () => {
            const back = ContextManager.fromJSON(JSON.stringify(state), callbacks);
            return { view: back.view(), usage: back.usage(), state: back.toJSON() };
          });
        }
      }
      const view = call(`view ${tag}`, () => manager.view());
      call(`checkConversation ${tag}`, () => checkConversation(view.messages));
      call(`checkConversation history ${tag}`, () => checkConversation(manager.history));
      call(`recoverProgress ${tag}`, () => recoverProgress(view.messages, 3));
      call(`recoverProgress 5 ${tag}`, () => recoverProgress(view.messages));
      call(`compress again ${tag}`, () => manager.compress());
      const checkpoints = call(`checkpoints ${tag}`, () => manager.checkpoints);
      call(`archive ${tag}`, () => manager.archive);
      if (checkpoints.length) {
        call(`undo ${tag}`, () => manager.undo(checkpoints[0].id));
        call(`undo again ${tag}`, () => manager.undo(checkpoints[0].id));
        call(`compress after undo ${tag}`, () => manager.compress());
        call(`view after undo ${tag}`, () => manager.view());
      }
      call(`undo unknown ${tag}`, () => manager.undo('cp-999'));
      const state = call(`toJSON end ${tag}`, () => manager.toJSON());
      BROKEN.forEach((breakIt, k) => {
        call(`broken ${k} ${tag}`, () => {
          const copy = JSON.parse(JSON.stringify(state));
          breakIt(copy);
          const back = ContextManager.fromJSON(copy, callbacks);
          const v = back.view();
          const first = back.checkpoints[0];
          const undone = first ? back.undo(first.id) : null;
          return { view: v, undone, compressed: back.compress(), state: back.toJSON() };
        });
      });
    }
    const manager = createContextManager({
      contextWindow: 6000, keepLast: 4, maxCheckpoints: 2, ageAfter: 1, summarizer, clock,
    });
    for (let i = 0; i < Math.min(s.messages.length, 300); i++) {
      call(`summarizer add ${s.name} ${i}`, () => manager.add(s.messages[i]));
      if (manager.shouldCompress()) {
        await callAsync(`summarizer compress ${s.name} ${i}`, () => manager.compress());
      }
    }
    call(`summarizer view ${s.name}`, () => manager.view());
    call(`summarizer toJSON ${s.name}`, () => manager.toJSON());
  }

  // Views whose reasons the sessions above rarely give.
  {
    const manager = createContextManager({ contextWindow: 2000, keepFirst: 4, keepLast: 1, clock });
    for (let i = 0; i < 12; i++) {
      call(`head ${i}`, () => manager.add({ role: i % 2 ? 'assistant' : 'user', content: words(300, i) }));
    }
    call('head compress', () => manager.compress());
    call('head view', () => manager.view());
  }
  {
    const manager = createContextManager({
      contextWindow: 4000, keepLast: 1, maxCheckpoints: 50, ageAfter: 50, clock,
    });
    for (let i = 0; i < 80; i++) {
      call(`summaries ${i}`, () => manager.add({ role: i % 2 ? 'assistant' : 'user', content: words(200, i) }));
      if (manager.shouldCompress()) call(`summaries compress ${i}`, () => manager.compress());
    }
    const state = manager.toJSON();
    state.config.contextWindow = 300;
    call('summaries too large', () => {
      const back = ContextManager.fromJSON(state, { clock });
      return [back.view(), back.compress()];
    });
  }

  const bad = [
    () => createContextManager({}),
    () => createContextManager({ contextWindow: 100, promptBudget: 200 }),
    () => createContextManager({ contextWindow: 100, threshold: 0 }),
    () => createContextManager({ contextWindow: 100, keepLast: -1 }),
    () => createContextManager({ contextWindow: 100, maxCheckpoints: 0 }),
    () => createContextManager({ contextWindow: 100, ageAfter: 0 }),
    () => createContextManager({ contextWindow: 100, summaryInputTokens: 0 }),
    () => createContextManager({ contextWindow: 100, tokenEstimate: 'x' }),
    () => createContextManager({ contextWindow: 100 }).add(5),
    () => createContextManager({ contextWindow: 100 }).add({ content: 'x' }),
    () => createContextManager({ contextWindow: 100 }).addMany([{ role: 'user', content: 'a' }, null]),
    () => ContextManager.fromJSON('{'),
    () => ContextManager.fromJSON('{}'),
    () => ContextManager.fromJSON({ format: 'cce-context/1' }),
    () => checkConversation(5),
    () => checkConversation([{ role: 'tool', content: 'x', tool_call_id: 'a' }, { role: 'user' }, { role: 'user' }]),
    () => recoverProgress([{ role: 'system', content: 's', metadata: { covered_until: 12 } },
      { role: 'user', content: 'u' }], 1),
    () => recoverProgress([{ role: 'system', content: 's', metadata: { covered_until: -1 } }]),
    () => recoverProgress('x'),
  ];
  bad.forEach((fn, k) => call(`bad input ${k}`, fn));
}

const sessions = sessionsOf(sharedPath('data/real/'));
const digest = (answer) => createHash('sha256').update(JSON.stringify(answer) ?? 'undefined').digest('hex');
const first = [];
await workload(dirA, sessions, (name, answer) => first.push([name, digest(answer)]));
let calls = 0;
const differ = [];
await workload(dirB, sessions, (name, answer) => {
  const [nameA, digestA] = first[calls++] ?? [];
  if (name !== nameA || digest(answer) !== digestA) differ.push(name);
});
if (calls !== first.length) differ.push(`call count: ${first.length} against ${calls}`);
console.log(`${calls} calls, ${sessions.length} sessions: ${differ.length} differ`);
for (const name of differ.slice(0, 20)) console.log(`  differs: ${name}`);
process.exit(differ.length ? 1 : 0);

// SPDX-License-Identifier: MIT
// The context manager in every provider format (issue 20 item 1): real conversations of
// data/native replayed through add / view / compress in each format, each view checked with the
// formats entry's validate (no problem the input did not have), unchanged messages returned as
// the caller's own objects, summaries as native messages, toJSON / fromJSON exact.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';

import * as lc from '@langchain/core/messages';

import { CompressError, ContextManager, createContextManager } from 'cce-wasm/context';
import { validate } from 'cce-wasm/formats';
import { nativeCases } from './support/convert-formats.mjs';
import { loadConversations } from './support/shared-data.mjs';

const load = (rel) => loadConversations(rel).map((c) => c.conversation);

// Conversations long enough to compress, with tool calls: the first few of each data set.
const LIMIT = 8;
const anthropic = load('data/native/anthropic/')
  .filter((c) => c.messages.length >= 8)
  .slice(0, LIMIT);
const twins = load('data/native/openai/')
  .filter((c) => c.length >= 8 && c.some((m) => m.role === 'tool'))
  .slice(0, LIMIT);

const cases = nativeCases(anthropic, twins, lc);

const key = (p) => `${p.code}:${p.callId ?? ''}`;
const snapshot = (messages) => JSON.stringify(messages);

/** Replays a conversation, compressing whenever due; checks every view on the way. */
function replay(format, { messages, system }) {
  const options = system === undefined ? { format } : { format, system };
  const given = new Set(messages);
  const before = snapshot(messages);
  // A window of half the conversation: compression is due about half way through.
  const probe = createContextManager({ contextWindow: 1e9, ...options });
  probe.addMany(messages);
  const contextWindow = Math.max(400, Math.floor(probe.usage().total * 0.5));
  const chat = createContextManager({ contextWindow, keepLast: 3, ...options });
  let compressions = 0;
  let summaries = 0;
  let added = 0;
  const check = () => {
    const view = chat.view();
    // What the conversation so far has (a call whose result is not added yet, say) is no new problem.
    const known = new Set(validate(messages.slice(0, added), options).map(key));
    const problems = validate(view.messages, options).filter((p) => !known.has(key(p)));
    assert.deepEqual(problems, [], `${format}: a view has new problems`);
    for (const m of view.messages) if (!given.has(m)) summaries++;
    if (system !== undefined) assert.deepEqual(view.system, system);
    return view;
  };
  for (const message of messages) {
    chat.add(message);
    added++;
    if (chat.shouldCompress()) {
      const outcome = chat.compress();
      if (outcome.compressed) compressions++;
    }
    check();
  }
  // The last view: the messages it did not change are the caller's own objects, in order.
  const last = check().messages.filter((m) => given.has(m));
  const positions = last.map((m) => messages.indexOf(m));
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b), 'kept messages stay in order');
  assert.equal(snapshot(messages), before, 'the input is not mutated');
  return { chat, compressions, summaries };
}

describe('the context manager in every format', () => {
  for (const [format, conversations] of cases) {
    test(`${format}: ${conversations.length} conversations replayed, views valid, state exact`, () => {
      assert.ok(conversations.length > 0);
      let compressions = 0;
      let made = 0;
      for (const conversation of conversations) {
        const { chat, compressions: n, summaries } = replay(format, conversation);
        compressions += n;
        made += summaries;
        // toJSON / fromJSON: the same state again, the same view.
        const state = chat.toJSON();
        assert.equal(state.native.format, format);
        const again = ContextManager.fromJSON(JSON.stringify(state));
        assert.deepEqual(again.toJSON(), state);
        assert.equal(again.view().messages.length, chat.view().messages.length);
        if (format !== 'langchain') {
          // (A restored LangChain history holds the instances' JSON form: LangChain's own
          // serialisation, which only LangChain's loader turns back into instances.)
          assert.deepEqual(JSON.parse(JSON.stringify(again.view().messages)), JSON.parse(JSON.stringify(chat.view().messages)));
          // The history is the messages as given (LangChain's are stored in their JSON form).
          assert.deepEqual(chat.history, JSON.parse(JSON.stringify(conversation.messages)));
        }
      }
      assert.ok(compressions > 0, `${format}: some replay compressed`);
      assert.ok(made > 0, `${format}: some view held a summary or rebuilt message`);
    });
  }

  test('summaries are native text messages of the format', () => {
    const long = (i) => `Step ${i}: the importer commits after every row, which is slow; batching 500 rows at a time fixes it. `.repeat(8).trim();
    const build = {
      anthropic: (i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: long(i) }] }),
      'ai-sdk': (i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: long(i) }] }),
      'openai-responses': (i) => ({ type: 'message', role: i % 2 ? 'assistant' : 'user', content: [{ type: i % 2 ? 'output_text' : 'input_text', text: long(i) }] }),
    };
    for (const [format, make] of Object.entries(build)) {
      const chat = createContextManager({ contextWindow: 1200, keepLast: 2, format });
      const messages = Array.from({ length: 10 }, (_, i) => make(i));
      chat.addMany(messages);
      assert.equal(chat.compress().compressed, true, format);
      const view = chat.view().messages;
      const summary = view.find((m) => !messages.includes(m));
      assert.ok(summary, `${format}: a summary message`);
      // A text part, or (AI SDK system messages) a string.
      const text = typeof summary.content === 'string' ? summary.content : summary.content.find((p) => /text/.test(p.type)).text;
      assert.match(text, /Summary|summary|messages/);
      assert.deepEqual(validate(view, { format }), [], format);
      assert.equal(view[view.length - 1], messages[messages.length - 1], 'the tail is the caller\'s own');
    }
  });

  test('summary headers count the caller\'s messages, not the views', () => {
    // An Anthropic history whose tool_result messages each carry text: two views per message.
    const long = (i) => `Step ${i}: the importer commits after every row, which is slow; batching 500 rows at a time fixes it. `.repeat(8).trim();
    const messages = [{ role: 'user', content: 'Speed up the importer.' }];
    for (let i = 0; i < 6; i++) {
      messages.push(
        { role: 'assistant', content: [{ type: 'text', text: long(i) }, { type: 'tool_use', id: `t${i}`, name: 'run', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: long(i) }, { type: 'text', text: 'Go on.' }] },
      );
    }
    const chat = createContextManager({ contextWindow: 1500, keepLast: 2, format: 'anthropic', system: 'Be brief.' });
    chat.addMany(messages);
    assert.equal(chat.compress().compressed, true);
    const view = chat.view().messages;
    const header = /^\[Summary of messages (\d+)-(\d+)\]/.exec(view[0].content[0].text);
    assert.ok(header, 'a summary header');
    // The first message after the summary is the caller's message k (0-based): the summary covers
    // messages 1..k (1-based), however many views each of them was.
    const next = messages.indexOf(view[1]);
    assert.ok(next > 0);
    assert.deepEqual([Number(header[1]), Number(header[2])], [1, next]);
    assert.ok(chat.checkpoints[0].messageRange.end > next + 1, 'the engine counts more views than messages');
  });

  test('the format is detected from the first message only one format has', () => {
    const chat = createContextManager({ contextWindow: 4000 });
    const hello = { role: 'user', content: 'Find the config loader.' };
    const step = { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 't1', name: 'grep', input: { q: 'config' } }] };
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'src/config.ts' }] };
    chat.add(hello);
    chat.add(step);
    chat.add(result);
    assert.equal(chat.toJSON().native.format, 'anthropic');
    const view = chat.view().messages;
    assert.equal(view[1], step);
    assert.equal(view[2], result);
    // A manager of OpenAI Chat messages stays as it was (no native state).
    const plain = createContextManager({ contextWindow: 4000 });
    plain.add({ role: 'user', content: 'hi' });
    plain.add({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] });
    assert.equal(plain.toJSON().native, undefined);
  });

  test('an unknown format, or system outside Anthropic, is a typed error', () => {
    assert.throws(
      () => createContextManager({ contextWindow: 4000, format: 'gemini' }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/config/format',
    );
    assert.throws(
      () => createContextManager({ contextWindow: 4000, format: 'ai-sdk', system: 'Be brief.' }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/config/system',
    );
    assert.throws(
      () => createContextManager({ contextWindow: 4000, format: 'anthropic', system: { text: 'Be brief.' } }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/config/system',
    );
  });
});

describe('add cost in every format', () => {
  // Every message of the history is wrapped in a Proxy that counts the reads of its members while
  // a later message is added: an add that reads (or rescans) the history grows with its length.
  function readsPerAdd(format, messages, n) {
    const state = { adding: -1, reads: 0 };
    const wrap = (message, index) =>
      format === 'langchain'
        ? message // (LangChain instances keep private fields a Proxy cannot reach; read by class)
        : new Proxy(message, {
            get(target, key, receiver) {
              if (index < state.adding) state.reads++;
              return Reflect.get(target, key, receiver);
            },
          });
    const chat = createContextManager({ contextWindow: 1e9, format });
    const history = [];
    for (let i = 0; history.length < n; i++) history.push(...messages[i % messages.length]);
    history.length = n;
    const wrapped = history.map(wrap);
    for (let i = 0; i < n - 20; i++) chat.add(wrapped[i]);
    // The last 20 adds: reads of earlier messages.
    for (let i = n - 20; i < n; i++) {
      state.adding = i;
      chat.add(wrapped[i]);
    }
    return state.reads;
  }

  for (const [format, conversations] of cases) {
    if (format === 'langchain') continue;
    test(`${format}: an add reads no earlier message, however long the history`, () => {
      const messages = conversations.map((c) => c.messages);
      const short = readsPerAdd(format, messages, 100);
      const long = readsPerAdd(format, messages, 400);
      // No history scan at all (a copy of the list, rescanned, read every earlier item per add).
      assert.ok(long <= short + 20, `${format}: ${short} reads at 100 messages, ${long} at 400`);
      assert.ok(long < 200, `${format}: ${long} reads of earlier messages in 20 adds`);
    });
  }
});

describe('the session entries carry the adapters, not the compress engine', () => {
  // The static imports an unbundled browser follows from each entry (what it downloads).
  function graph(entry) {
    const dir = new URL('.', import.meta.resolve(entry));
    const seen = new Set();
    const visit = (file) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(fileURLToPath(new URL(file, dir)), 'utf8');
      for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]\.\/([^'"]+)['"]/g)) visit(m[1]);
    };
    visit(new URL(import.meta.resolve(entry)).pathname.split('/').pop());
    return seen;
  }
  for (const entry of ['cce-wasm/context', 'cce-wasm/compaction']) {
    test(`${entry}: every adapter, no engine.js, no compress glue`, () => {
      const files = graph(entry);
      for (const adapter of ['format-anthropic.js', 'format-ai-sdk.js', 'format-openai-responses.js', 'format-langchain.js', 'format-openai-chat.js']) {
        assert.ok(files.has(adapter), `${entry} has ${adapter}`);
      }
      for (const heavy of ['engine.js', 'format-core.js', 'transport.js', 'load.js', 'cce.mjs']) {
        assert.ok(!files.has(heavy), `${entry} imports ${heavy}`);
      }
    });
  }
});

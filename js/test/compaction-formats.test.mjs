// SPDX-License-Identifier: MIT
// cce-wasm/compaction in every provider format (issue 20 item 1): real conversations of
// data/native read with fromMessages, compacted with each profile and a token budget, projected
// back with format 'messages'. Every projection has no validate() problem the input did not have,
// messages a compaction left alone are the caller's own objects in order, summaries and stripped
// tool results are native messages, toMessages() / undo() restore the input exactly, and the input
// is never mutated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as lc from '@langchain/core/messages';

import { compact, CompressError, dryRun, fromMessages, fromOpenAI, project, toMessages, undo } from 'cce-wasm/compaction';
import { validate } from 'cce-wasm/formats';
import { nativeCases } from './support/convert-formats.mjs';
import { loadConversations } from './support/shared-data.mjs';

const load = (rel) => loadConversations(rel).map((c) => c.conversation);

// Conversations of at least three turns (user texts) with tool calls: compaction works by turn.
const LIMIT = 8;
const turns = (messages) =>
  messages.filter((m) => m.role === 'user' && (typeof m.content === 'string' || m.content.some((b) => b.type === 'text'))).length;
const anthropic = load('data/native/anthropic/')
  .filter((c) => turns(c.messages) >= 3 && c.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use')))
  .slice(0, LIMIT);
const twins = load('data/native/openai/')
  .filter((c) => turns(c) >= 3 && c.some((m) => m.role === 'tool'))
  .slice(0, LIMIT);

const cases = nativeCases(anthropic, twins, lc);

const key = (p) => `${p.code}:${p.callId ?? ''}`;
const snapshot = (messages) => JSON.stringify(messages);

/** Checks one projection against the input; returns how many of its messages are new. */
function checkView(format, view, { messages, system }, known, label) {
  assert.equal(view.format, format);
  if (system !== undefined) assert.equal(view.system, system, `${label}: the system as given`);
  const problems = validate(view.messages, system === undefined ? { format } : { format, system }).filter(
    (p) => !known.has(key(p)),
  );
  assert.deepEqual(problems, [], `${label}: the projection has new problems`);
  const given = new Set(messages);
  const kept = view.messages.filter((m) => given.has(m));
  const positions = kept.map((m) => messages.indexOf(m));
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b), `${label}: kept messages stay in order`);
  assert.equal(new Set(positions).size, positions.length, `${label}: no message twice`);
  return view.messages.length - kept.length;
}

describe('compaction in every format', () => {
  for (const [format, conversations] of cases) {
    test(`${format}: ${conversations.length} conversations compacted, projections valid, restores exact`, () => {
      assert.ok(conversations.length > 0);
      const made = { default: 0, light: 0, heavy: 0, last: 0, budget: 0 };
      let shrunk = 0;
      for (const conversation of conversations) {
        const { messages, system } = conversation;
        const options = system === undefined ? { format } : { format, system };
        const before = snapshot(messages);
        const known = new Set(validate(messages, options).map(key));
        const c = fromMessages(messages, options);
        assert.equal(c.native.format, format);
        // Nothing compacted yet: the projection is the input, object for object.
        const plain = project(c, { format: 'messages' }).view;
        assert.equal(plain.messages.length, messages.length);
        plain.messages.forEach((m, i) => assert.equal(m, messages[i], `${format}: message ${i} is the caller's`));
        const raw = project(c).tokens;
        for (const profile of ['default', 'light', 'heavy', 'last', 'budget']) {
          const request =
            profile === 'budget'
              ? { tokenBudget: Math.floor(raw * 0.4) }
              : profile === 'last'
                ? { profile: 'heavy', keepLast: 1 }
                : { profile };
          const { conversation: compacted, compaction } = compact(c, request);
          const view = project(compacted, { format: 'messages' }).view;
          made[profile] += checkView(format, view, conversation, known, `${format} ${profile}`);
          if (compaction !== null && project(compacted).tokens < raw) shrunk++;
          // The dry run answers the same projection.
          const dry = dryRun(c, { ...request, format: 'messages' });
          assert.deepEqual(dry.view.messages, view.messages);
          // The archive is the input: toMessages() and undo() give it back exactly.
          const restored = toMessages(compacted);
          assert.equal(restored.messages.length, messages.length);
          restored.messages.forEach((m, i) => assert.equal(m, messages[i]));
          if (system !== undefined) assert.equal(restored.system, system);
          const undone = compaction === null ? compacted : undo(compacted).conversation;
          const back = project(undone, { format: 'messages' }).view.messages;
          back.forEach((m, i) => assert.equal(m, messages[i]));
          assert.equal(back.length, messages.length);
          if (format !== 'langchain') {
            // Stored as JSON and read again: the same messages, the same projection.
            const stored = JSON.parse(JSON.stringify(compacted));
            assert.deepEqual(toMessages(stored).messages, JSON.parse(before));
            assert.equal(snapshot(project(stored, { format: 'messages' }).view.messages), snapshot(view.messages));
          }
        }
        assert.equal(snapshot(messages), before, `${format}: the input is not mutated`);
        // Detected when the format is not named (OpenAI Chat is the default reading).
        const detected = fromMessages(messages, system === undefined ? {} : { system });
        assert.equal(detected.native.format, format);
      }
      assert.ok(shrunk > 0, `${format}: some compaction made the projection smaller`);
      assert.ok(made.last > 0, `${format}: heavy projections hold native summaries`);
      assert.ok(made.default > 0, `${format}: default projections strip tool results`);
    });
  }

  test('summaries and stripped tool results are native messages of the format', () => {
    const messages = [{ role: 'user', content: 'Find the slow query.' }];
    for (let i = 0; i < 5; i++) {
      messages.push(
        { role: 'assistant', content: [{ type: 'text', text: `Looking ${i}.` }, { type: 'tool_use', id: `t${i}`, name: 'grep', input: { q: `q${i}` } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `result ${i} `.repeat(40) }] },
        { role: 'assistant', content: [{ type: 'text', text: `Found ${i}.` }] },
        { role: 'user', content: `Next ${i}.` },
      );
    }
    const c = fromMessages(messages, { system: [{ type: 'text', text: 'You are terse.' }] });
    assert.equal(c.native.format, 'anthropic');
    const heavy = project(compact(c, { profile: 'heavy' }).conversation, { format: 'messages' }).view;
    assert.deepEqual(heavy.system, [{ type: 'text', text: 'You are terse.' }]);
    const [stub, summary] = heavy.messages;
    assert.deepEqual(stub, { role: 'user', content: [{ type: 'text', text: '[Summary of previous conversation]' }] });
    assert.equal(summary.role, 'assistant');
    assert.match(summary.content[0].text, /Found 0/);
    assert.deepEqual(validate(heavy.messages, { format: 'anthropic', system: heavy.system }), []);
    const stripped = project(compact(c, { profile: 'default' }).conversation, { format: 'messages' }).view.messages;
    const result = stripped[2];
    assert.notEqual(result, messages[2]);
    assert.deepEqual(result, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't0', content: '[compacted] grep: success' }] });
    // The call keeps its (now stripped) result and its id; its input is stripped as Anthropic's
    // clear_tool_inputs does.
    assert.deepEqual(stripped[1], { role: 'assistant', content: [{ type: 'text', text: 'Looking 0.' }, { type: 'tool_use', id: 't0', name: 'grep', input: {} }] });
    assert.equal(stripped[3], messages[3], 'a message compaction did not touch is the caller\'s');
    assert.equal(stripped.at(-1), messages.at(-1));
    assert.deepEqual(validate(stripped, { format: 'anthropic' }), []);
  });

  test('reasoning is stripped natively; omit is refused for provider formats', () => {
    const thinking = { type: 'thinking', thinking: 'The index is missing on orders.user_id. '.repeat(20), signature: 'sig' };
    const messages = [];
    for (let i = 0; i < 5; i++) {
      messages.push(
        { role: 'user', content: `Question ${i}?` },
        { role: 'assistant', content: [thinking, { type: 'text', text: `Answer ${i}.` }] },
      );
    }
    const c = fromMessages(messages, { format: 'anthropic' });
    const light = compact(c, { profile: 'light', keepLast: 2 });
    const view = project(light.conversation, { format: 'messages' });
    assert.deepEqual(view.view.messages[1], { role: 'assistant', content: [{ type: 'text', text: 'Answer 0.' }] });
    assert.equal(view.view.messages[9], messages[9], 'the kept turns keep their thinking');
    assert.ok(view.tokens < project(c).tokens, 'the stripped thinking is counted out');
    assert.deepEqual(validate(view.view.messages, { format: 'anthropic' }), []);
    for (const toolCalls of ['omit', { policy: 'omit' }]) {
      assert.throws(
        () => compact(c, { toolCalls, to: 2 }),
        (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/toolCalls',
      );
    }
  });

  test('Responses: call items keep their names and arguments; reasoning items go whole', () => {
    const items = [];
    for (let i = 0; i < 5; i++) {
      items.push(
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Question ${i}?` }] },
        { type: 'reasoning', id: `r${i}`, summary: [{ type: 'summary_text', text: `Thinking ${i}.` }], encrypted_content: 'opaque' },
        { type: 'function_call', call_id: `c${i}`, name: 'ls', arguments: '{"dir":"src"}' },
        { type: 'function_call_output', call_id: `c${i}`, output: 'file '.repeat(60) },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Answer ${i}.`, annotations: [] }] },
      );
    }
    const c = fromMessages(items);
    assert.equal(c.native.format, 'openai-responses');
    const view = project(compact(c, { profile: 'default' }).conversation, { format: 'messages' }).view.messages;
    // The first turn: reasoning stripped (the item goes), the input and the output stripped.
    assert.deepEqual(view.slice(0, 4), [
      items[0],
      { type: 'function_call', call_id: 'c0', name: 'ls', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c0', output: '[compacted] ls: success' },
      items[4],
    ]);
    assert.deepEqual(view.slice(-5), items.slice(-5), 'the kept turns are the caller\'s items');
    assert.deepEqual(validate(view, { format: 'openai-responses' }), []);
    const summary = project(compact(c, { profile: 'heavy' }).conversation).view.turns[0].events[1].content;
    assert.match(summary, /ls/);
  });

  test('an unknown format, a misplaced system or a conversation without messages is a typed error', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    assert.throws(
      () => fromMessages(messages, { format: 'gemini' }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/options/format',
    );
    assert.throws(
      () => fromMessages(messages, { format: 'ai-sdk', system: 'Be brief.' }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/options/system',
    );
    assert.throws(
      () => fromMessages(messages, { format: 'anthropic', system: 42 }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/options/system',
    );
    assert.throws(() => fromMessages('hi'), (e) => e instanceof CompressError && e.code === 'InvalidInput');
    assert.throws(() => fromMessages([null]), (e) => e instanceof CompressError && e.code === 'InvalidInput');
    const openai = fromOpenAI(messages);
    assert.throws(
      () => project(openai, { format: 'messages' }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/conversation/native',
    );
    assert.throws(() => toMessages(openai), (e) => e instanceof CompressError && e.code === 'InvalidInput');
    // Still usable.
    assert.equal(project(fromMessages(messages), { format: 'messages' }).view.messages[0], messages[0]);
  });
});

// SPDX-License-Identifier: MIT
// cce-wasm/compaction's provider conversions (fromOpenAI, fromAnthropic, toOpenAI, toAnthropic and
// the "openai" / "anthropic" view formats), done by the JS layer (js/src/compaction-providers.ts)
// since issue 20 item 5. These are the assertions the native suite made when the engine converted
// (tests/compaction_test.cpp), byte for byte, plus what moving them to JS could break: the input
// untouched, answers that share nothing with it, JSON semantics and typed errors.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  compact,
  CompressError,
  dryRun,
  fromAnthropic,
  fromOpenAI,
  project,
  toAnthropic,
  toOpenAI,
} from 'cce-wasm/compaction';
import { sessionTraffic } from '../../dist/session-load.js';
import { deepFreeze, golden, json, loadReal } from './support/compaction-fixtures.mjs';

const withLog = (conversation, compactions) => ({ ...conversation, compactions });
const invalidAt = (path, message) => (e) =>
  e instanceof CompressError && e.code === 'InvalidInput' && e.path === path &&
  e.message.startsWith(message);

describe('provider round trips', () => {
  test('OpenAI and Anthropic message arrays round-trip exactly, also through stored JSON and a projection', () => {
    const openai = golden('openai_history.json');
    // Through JSON text again, as a host would store it.
    const stored = JSON.parse(json(fromOpenAI(openai)));
    assert.equal(json(toOpenAI(stored)), json(openai));
    assert.equal(json(project(stored, { format: 'openai' }).view.messages), json(openai));

    const anthropic = golden('anthropic_history.json');
    const aconv = JSON.parse(json(fromAnthropic(anthropic.messages, anthropic.system)));
    const back = toAnthropic(aconv);
    assert.equal(json(back.messages), json(anthropic.messages));
    assert.equal(json(back.system), json(anthropic.system));
    assert.equal(json(project(aconv, { format: 'anthropic' }).view.messages), json(anthropic.messages));
  });

  for (const file of ['oasst1_en100_best_path.json', 'swe_agent_trajectories.json', 'claude_code_ccviewer.json']) {
    test(`the real transcripts of ${file} round-trip exactly`, { skip: !loadReal(file) }, () => {
      const conversations = loadReal(file);
      assert.ok(conversations.length > 0);
      for (const messages of conversations) {
        assert.equal(json(toOpenAI(fromOpenAI(messages))), json(messages));
      }
    });
  }

  test('splits provider histories into turns at user requests, not tool results', () => {
    const conv = fromAnthropic(golden('anthropic_history.json').messages, 'sys');
    const shapes = conv.turns.map((turn) => turn.events.map((e) => e.type).join(' '));
    assert.deepEqual(shapes, [
      'system user reasoning assistant toolRequest toolResponse reasoning toolRequest toolResponse toolRequest toolResponse',
      'user assistant',
      'other user other',
      'user assistant toolRequest toolResponse assistant',
    ]);
  });
});

describe('projections in a provider format', () => {
  test('an OpenAI history projects back into OpenAI messages: stripped, omitted, summarized', () => {
    const openai = golden('openai_history.json');
    const conv = fromOpenAI(openai);
    const stripped = project(withLog(conv, [{ fromTurn: 0, toTurn: 0, reasoning: 'strip', toolCalls: 'strip' }]), {
      format: 'openai',
    }).view.messages;
    assert.equal(stripped.length, openai.length);
    assert.equal(
      json(stripped[3]),
      '{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",' +
        '"function":{"name":"read_file","arguments":"{\\"path\\":\\"[compacted]\\"}"}},{"id":' +
        '"call_2","type":"function","function":{"name":"run_tests","arguments":"{}"}}]}',
    );
    assert.equal(json(stripped[4]), '{"role":"tool","tool_call_id":"call_1","content":"[compacted] read_file: success"}');
    assert.equal(json(stripped[5]), '{"role":"tool","tool_call_id":"call_2","content":"[compacted] run_tests: success"}');
    for (const i of [0, 1, 2, 8, 9, 10, 11, 12, 13, 14, 15, 16]) {
      assert.equal(json(stripped[i]), json(openai[i]), `message ${i} untouched`);
    }

    // Omitting tool calls drops the tool messages and empty tool_calls keys.
    const omitted = project(withLog(conv, [{ fromTurn: 0, toTurn: 0, toolCalls: 'omit' }]), { format: 'openai' })
      .view.messages;
    assert.equal(
      json(omitted[3]),
      '{"role":"assistant","content":null,"reasoning_content":"The test fails on a null check."}',
    );
    assert.equal(json(omitted[4]), '{"role":"assistant","content":"The function dereferences null.","refusal":null}');
    assert.equal(omitted.length, openai.length - 3, 'the three tool messages');

    // A summary keeps the system messages and alternates roles.
    const summarized = project(withLog(conv, [{ fromTurn: 0, toTurn: 1, summary: { summary: 'Fixed f.' } }]), {
      format: 'openai',
    }).view.messages;
    assert.deepEqual(summarized.slice(0, 5).map(json), [
      json(openai[0]),
      json(openai[1]),
      '{"role":"user","content":"[Summary of previous conversation]"}',
      '{"role":"assistant","content":"Fixed f."}',
      json(openai[11]),
    ]);
  });

  test('an Anthropic history projects back into Anthropic messages, compacted', () => {
    const anthropic = golden('anthropic_history.json');
    const original = anthropic.messages;
    const conv = fromAnthropic(original, anthropic.system);
    const { view } = project(withLog(conv, [{ fromTurn: 0, toTurn: 0, reasoning: 'strip', toolCalls: 'strip' }]), {
      format: 'anthropic',
    });
    assert.equal(view.messages.length, original.length);
    assert.equal(json(view.system), json(anthropic.system));
    const expected = [
      undefined,
      '{"role":"assistant","content":[{"type":"text","text":"Let me look."},' +
        '{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"[compacted]"}}]}',
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1",' +
        '"content":"[compacted] read_file: success"}]}',
      '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"run_tests",' +
        '"input":{}}]}',
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2",' +
        '"is_error":true,"content":"[compacted] run_tests: error"}]}',
      '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_3","name":"write_file",' +
        '"input":{"path":"[compacted]","content":"[compacted]"}}]}',
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3",' +
        '"content":"[compacted] write_file: success","cache_control":{"type":"ephemeral"}},' +
        '{"type":"text","text":"Great, now explain the fix."}]}',
    ];
    for (const [i, message] of original.entries()) {
      assert.equal(json(view.messages[i]), expected[i] ?? json(message), `message ${i}`);
    }
  });

  test('a dry run answers its view in the format asked for', () => {
    const openai = golden('openai_history.json');
    const conv = fromOpenAI(openai);
    const options = { from: 0, to: 0, reasoning: 'strip', toolCalls: 'strip' };
    const events = dryRun(conv, options);
    const inOpenAI = dryRun(conv, { ...options, format: 'openai' });
    assert.deepEqual(Object.keys(inOpenAI), Object.keys(events), 'the same members, in the same order');
    assert.equal(json(inOpenAI.tokens), json(events.tokens));
    const projected = project(compact(conv, options).conversation, { format: 'openai' }).view;
    assert.equal(json(inOpenAI.view), json(projected));
    assert.equal(json(dryRun(conv, { ...options, format: 'anthropic' }).view), json(toAnthropic(events.view)));
  });
});

describe('conversions between formats', () => {
  test('Anthropic events render as standard OpenAI messages', () => {
    const conv = fromAnthropic(golden('anthropic_history.json').messages, 'sys');
    assert.deepEqual(toOpenAI(conv).slice(0, 6).map(json), [
      '{"role":"system","content":"sys"}',
      '{"role":"user","content":"Fix the failing test in src/app.ts."}',
      '{"role":"assistant","content":"Let me look.","reasoning_content":"The test fails on a null check.",' +
        '"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"read_file",' +
        '"arguments":"{\\"path\\":\\"src/app.ts\\"}"}}]}',
      '{"role":"tool","tool_call_id":"toolu_1","content":"export function f(x) { return x.y; }"}',
      '{"role":"assistant","content":null,"tool_calls":[{"id":"toolu_2","type":"function",' +
        '"function":{"name":"run_tests","arguments":"{}"}}]}',
      '{"role":"tool","tool_call_id":"toolu_2","content":"1 failed: f(null) throws"}',
    ]);
  });

  test('native events render as standard Anthropic blocks; unsigned reasoning is dropped', () => {
    const native = {
      turns: [
        {
          events: [
            { type: 'system', content: 'sys' },
            { type: 'user', content: 'hi' },
            { type: 'reasoning', content: 'hmm' },
            { type: 'reasoning', content: 'signed', signature: 's' },
            { type: 'toolRequest', id: 't1', name: 'ls', arguments: '{"dir":"."}' },
            { type: 'toolResponse', id: 't1', ok: false, content: 'denied' },
            { type: 'assistant', content: 'Sorry.' },
          ],
        },
      ],
    };
    assert.equal(
      json(toAnthropic(native)),
      '{"system":"sys","messages":[{"role":"user","content":"hi"},' +
        '{"role":"assistant","content":[{"type":"thinking","thinking":"signed","signature":"s"},' +
        '{"type":"tool_use","id":"t1","name":"ls","input":{"dir":"."}}]},' +
        '{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"denied",' +
        '"is_error":true}]},' +
        '{"role":"assistant","content":"Sorry."}]}',
    );
    // To OpenAI: an assistant message holds reasoning, then content, then calls; a second
    // reasoning event opens another.
    assert.equal(
      json(toOpenAI(native)),
      '[{"role":"system","content":"sys"},{"role":"user","content":"hi"},' +
        '{"role":"assistant","content":null,"reasoning_content":"hmm"},' +
        '{"role":"assistant","content":null,"reasoning_content":"signed","tool_calls":[{"id":"t1",' +
        '"type":"function","function":{"name":"ls","arguments":"{\\"dir\\":\\".\\"}"}}]},' +
        '{"role":"tool","tool_call_id":"t1","content":"denied"},{"role":"assistant","content":"Sorry."}]',
    );
  });
});

describe('the input and the answers', () => {
  test('the input is never mutated and the answers share nothing with it', () => {
    const openai = deepFreeze(golden('openai_history.json'));
    const conv = fromOpenAI(openai);
    const text = json(conv);
    const messages = toOpenAI(deepFreeze(JSON.parse(text)));
    messages[3].tool_calls[0].function.arguments = 'changed';
    messages[0].content = 'changed';
    assert.equal(json(toOpenAI(fromOpenAI(openai))), json(openai));
    const anthropic = deepFreeze(golden('anthropic_history.json'));
    const aconv = fromAnthropic(anthropic.messages, anthropic.system);
    aconv.turns[0].events[0].content[0].text = 'changed';
    assert.equal(json(toAnthropic(fromAnthropic(anthropic.messages, anthropic.system)).messages), json(anthropic.messages));
  });

  test('values are read as JSON: undefined members go, toJSON applies, a "__proto__" key is data', () => {
    const messages = [
      { role: 'user', content: 'hi', note: undefined, at: new Date(0) },
      JSON.parse('{"role":"assistant","content":"yes","__proto__":{"polluted":true}}'),
    ];
    const back = toOpenAI(fromOpenAI(messages));
    assert.equal(json(back), '[{"role":"user","content":"hi","at":"1970-01-01T00:00:00.000Z"},' +
      '{"role":"assistant","content":"yes","__proto__":{"polluted":true}}]');
    assert.equal({}.polluted, undefined);
  });

  test('malformed input is a CompressError with a JSON pointer, and the module stays usable', () => {
    assert.throws(() => fromOpenAI([1]), invalidAt('/messages/0', 'a message must be an object'));
    assert.throws(() => fromOpenAI(undefined), invalidAt('/messages', 'messages is required'));
    assert.throws(() => fromAnthropic({}), invalidAt('/messages', 'messages must be an array'));
    assert.throws(() => fromAnthropic([], 5), invalidAt('/system', 'system must be a string or an array'));
    assert.throws(() => fromOpenAI([{ role: 'user', content: 'x', n: 1n }]),
      invalidAt(undefined, 'fromOpenAI(): the input is not JSON-serialisable'));
    assert.throws(() => project({ turns: [] }, { format: 'gemini' }), invalidAt('/format', 'format must be'));
    assert.throws(() => dryRun({ turns: [] }, { format: 'gemini' }), invalidAt('/format', 'format must be'));
    // toOpenAI / toAnthropic read the conversation as project does (the engine checks it).
    assert.throws(() => toOpenAI({ turns: {} }), invalidAt('/conversation/turns', 'conversation.turns must be an array'));
    assert.throws(
      () => toAnthropic({ turns: [{ events: [{ type: 'toolRequest' }] }] }),
      invalidAt('/conversation/turns/0/events/0/name', 'a toolRequest event needs a string name'),
    );
    assert.throws(
      () => toOpenAI({ turns: [{ events: [] }], compactions: [{ fromTurn: 0, toTurn: 1 }] }),
      invalidAt('/conversation/compactions/0', 'the compaction covers turns 0..1'),
    );
    assert.equal(json(toOpenAI(fromOpenAI([{ role: 'user', content: 'ok' }]))), '[{"role":"user","content":"ok"}]');
  });

  test('a format is read as JSON and refused where the engine refused it', async () => {
    const conversation = fromOpenAI(golden('openai_history.json'));
    // As the request's JSON carries it: a function is left out (events), toJSON applies.
    assert.ok(Array.isArray(project(conversation, { format: () => 'openai' }).view.turns));
    assert.ok(Array.isArray(project(conversation, { format: { toJSON: () => 'openai' } }).view.messages));
    // With a summarizer the call is asynchronous: the refusal is a rejection, not a throw.
    const pending = dryRun(conversation, { profile: 'heavy', summarizer: async () => 'S.', format: 'gemini' });
    assert.ok(pending instanceof Promise);
    await assert.rejects(pending, invalidAt('/format', 'format must be'));
    // A bad option the JS layer reads comes first, as before.
    assert.throws(() => dryRun(conversation, { tokenBudget: -1, format: 'gemini' }), invalidAt('/tokenBudget', ''));
  });
});

describe("the engine's numbers", () => {
  test('every double in an event comes back as JSON.stringify writes it', () => {
    // The session modules format numbers by exact digit generation alone (CCE_NO_GRISU3): the
    // doubles Grisu3 handles and the ones it hands over must both match V8's Number→String.
    let seed = 12345;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    const values = [0.1, 0.2 + 0.1, 1 / 3, 5e-324, 1.7976931348623157e308, 1e21, 1e-7, 123456789012345680000, 2 ** -1074 * 3];
    const view = new DataView(new ArrayBuffer(8));
    while (values.length < 3000) {
      view.setUint32(0, random());
      view.setUint32(4, random());
      const x = view.getFloat64(0);
      if (Number.isFinite(x)) values.push(x);
      values.push(random() / 1000, (random() % 100000) / 7);
    }
    const events = values.map((x, i) => ({ type: 'toolRequest', id: `c${i}`, name: 'n', arguments: { x, y: -x } }));
    const conversation = { turns: [{ events: [{ type: 'user', content: 'u' }, ...events] }] };
    const received = sessionTraffic.received;
    const output = project(conversation);
    assert.equal(json(output.view.turns[0].events), json(conversation.turns[0].events));
    // The answer's text is JSON.stringify's to the character: no longer digit strings.
    assert.equal(sessionTraffic.received - received, json({ ok: true, output }).length);
  });
});

// SPDX-License-Identifier: MIT
// The session modules read their requests from value bytes (src/value_bytes.h) and tool calls'
// JSON-text arguments through the host's JSON.parse (wasm/host_json.cpp), so neither carries a
// JSON reader. What a caller can see of that: arguments are read as JSON.parse reads them
// (JavaScript's key order, lone surrogates kept), text that is not JSON stays text, nesting past
// 512 levels is refused as the engine's reader refused it, and requests of every shape JSON
// allows arrive whole.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { compact, fromOpenAI, project } from 'cce-wasm/compaction';
import { CompressError, checkConversation, createContextManager } from 'cce-wasm/context';

const nested = (depth) => '['.repeat(depth) + ']'.repeat(depth);

// An agent turn: a user request, a call with `args` as its arguments text, its result, a reply.
function turn(i, args) {
  return [
    { role: 'user', content: `step ${i}: ${'please look at the module and report back '.repeat(8)}` },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: args } }],
    },
    { role: 'tool', tool_call_id: `call_${i}`, content: `contents of file ${i}: ${'line of code\n'.repeat(40)}` },
    { role: 'assistant', content: `done with step ${i}. ${'notes about it '.repeat(10)}` },
  ];
}

describe('compaction reads tool arguments as JSON.parse does', () => {
  function compactedArguments(args) {
    const messages = [0, 1, 2, 3].flatMap((i) => turn(i, args));
    const { conversation } = compact(fromOpenAI(messages), { profile: 'default', keepLast: 1 });
    const { view } = project(conversation, { format: 'openai' });
    return view.messages.find((m) => m.tool_calls)?.tool_calls[0].function.arguments;
  }

  test('a JSON object keeps its names, in JavaScript order, with every value compacted', () => {
    assert.equal(
      compactedArguments('{"path":"src/a.ts","2":{"deep":[1,2]},"path\\ud800":"lone"}'),
      '{"2":"[compacted]","path":"[compacted]","path\\ud800":"[compacted]"}',
    );
  });

  test('text that is not a JSON object, or nests past 512 levels, becomes the marker', () => {
    for (const args of ['{"path": "src/a.ts"', 'not json', '1e999', '["a"]', `{"a":${nested(600)}}`]) {
      assert.equal(compactedArguments(args), '[compacted]', args.slice(0, 40));
    }
    assert.equal(compactedArguments(`{"a":${nested(500)}}`), '{"a":"[compacted]"}');
  });
});

describe('the context manager reads tool arguments as JSON.parse does', () => {
  function summaryOf(args) {
    const chat = createContextManager({ contextWindow: 2400, keepLast: 2 });
    chat.addMany([0, 1, 2, 3, 4, 5].flatMap((i) => turn(i, args)));
    const outcome = chat.compress();
    assert.ok(outcome.compressed, 'compressed');
    return outcome.checkpoint.summary;
  }

  test("the stats line names the arguments' keys", () => {
    assert.match(summaryOf('{"file_path":"src/app/main.ts","2":1}'), /read_file \{"2", "file_path"\}/);
  });

  test('a path among the arguments is kept whole; arguments that are not JSON are read as text', () => {
    assert.match(summaryOf('{"file_path":"src/app/main.ts"}'), /"src\/app\/main\.ts"/);
    const text = summaryOf('open src/app/other_module.ts please');
    assert.match(text, /src\/app\/other_module\.ts/);
    assert.doesNotMatch(text, /read_file \{/);
  });
});

describe('requests arrive whole', () => {
  test('strings with lone surrogates, every kind of value, undefined members left out', () => {
    const odd = 'a\ud800b\udc00c 😀';
    const messages = [
      { role: 'user', content: odd, id: 1, extra: { flag: true, none: null, skip: undefined, list: [1, 'x', false] } },
      { role: 'assistant', content: [{ type: 'text', text: odd }, { type: 'data', values: [0, -0, 1.5] }] },
    ];
    const chat = createContextManager({ contextWindow: 1e6 });
    chat.addMany(messages);
    const [first, second] = chat.view().messages;
    assert.equal(first.content, odd);
    assert.deepEqual(first.extra, { flag: true, none: null, list: [1, 'x', false] });
    assert.equal(second.content[0].text, odd);
    assert.deepEqual(checkConversation(messages), []);
  });

  test('a message nested past 512 levels is InputTooLarge, and the manager stays usable', () => {
    const chat = createContextManager({ contextWindow: 1e6 });
    const deep = { role: 'user', content: [{ type: 'data', value: JSON.parse(nested(600)) }] };
    assert.throws(
      () => chat.add(deep),
      (e) => e instanceof CompressError && e.code === 'InputTooLarge' && /512 levels/.test(e.message),
    );
    assert.throws(() => checkConversation([deep]), (e) => e.code === 'InputTooLarge');
    chat.add({ role: 'user', content: 'still here' });
    assert.equal(chat.view().messages.length, 1);
  });
});

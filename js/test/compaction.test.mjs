// SPDX-License-Identifier: MIT
// cce-wasm/compaction (issue 8) through the built package: RFD 064 projections, stacking, extension,
// bounds, dry run, undo and provider round trips.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  compact,
  CompressError,
  dryRun,
  fromAnthropic,
  fromOpenAI,
  PROFILES,
  project,
  toAnthropic,
  toOpenAI,
  undo,
} from 'cce-wasm/compaction';
import { checkConversation } from 'cce-wasm/context';
import { deepFreeze, golden, json, loadReal } from './support/compaction-fixtures.mjs';


// The RFD's hints: keep the path of a file read, strip the bodies of file writes.
const RFD_HINTS = {
  fs_read_file: { request: 'keep' },
  fs_create_file: { request: 'strip' },
  fs_modify_file: { request: 'strip' },
};

/** Turn i: user u{i}, reasoning r{i}, a `write` call c{i} and its result, assistant a{i}. */
function synthetic(turns, compactions = []) {
  return {
    turns: Array.from({ length: turns }, (_, i) => ({
      timestamp: Date.UTC(2025, 0, 1, i),
      events: [
        { type: 'user', content: `u${i}` },
        { type: 'reasoning', content: `r${i}` },
        { type: 'toolRequest', id: `c${i}`, name: 'write', arguments: { path: `p${i}` } },
        { type: 'toolResponse', id: `c${i}`, ok: true, content: `out${i}` },
        { type: 'assistant', content: `a${i}` },
      ],
    })),
    compactions,
  };
}

const viewTurn = (view, turn) => view.turns.find((t) => t.turn === turn);
const texts = (events) =>
  events.map((e) => `${e.type} ${typeof e.content === 'string' ? e.content : json(e.arguments)}`);

describe('RFD 064 example', () => {
  const rfd = deepFreeze(golden('rfd_example.json'));

  test('default profile: reasoning gone, tool bodies compacted, last three turns untouched', () => {
    const { conversation, compaction, index } = compact(rfd, { profile: 'default', tools: RFD_HINTS });
    assert.equal(index, 0);
    assert.deepEqual([compaction.fromTurn, compaction.toTurn], [0, 2]);
    assert.equal(rfd.compactions.length, 0, 'the input is not modified');
    assert.equal(conversation.turns, rfd.turns, 'turns are shared, never rewritten');
    const { view } = project(conversation);
    for (let t = 0; t <= 2; t++) {
      const events = viewTurn(view, t).events;
      assert.ok(!events.some((e) => e.type === 'reasoning'), `turn ${t} has no reasoning`);
      for (const e of events.filter((x) => x.type === 'toolResponse')) {
        const name = rfd.turns[t].events.find((r) => r.id === e.id && r.type === 'toolRequest').name;
        assert.equal(e.content, `[compacted] ${name}: success`);
        assert.equal(e.compactedBy, 0);
      }
    }
    const requests = view.turns.flatMap((t) => t.events).filter((e) => e.type === 'toolRequest');
    assert.deepEqual(
      requests.slice(0, 4).map((e) => [e.name, json(e.arguments)]),
      [
        ['fs_create_file', '{"path":"[compacted]","content":"[compacted]"}'],
        ['fs_read_file', '{"path":"src/main.rs"}'],
        ['fs_modify_file', '{"path":"[compacted]","patch":"[compacted]"}'],
        ['fs_modify_file', '{"path":"[compacted]","patch":"[compacted]"}'],
      ],
    );
    for (let t = 3; t <= 5; t++) assert.equal(json(viewTurn(view, t).events), json(rfd.turns[t].events));
  });

  test('an error result is compacted as "[compacted] {tool}: error"', () => {
    const { conversation } = compact(rfd, { profile: 'default', keepLast: 2 });
    const turn3 = viewTurn(project(conversation).view, 3).events;
    const response = turn3.find((e) => e.type === 'toolResponse');
    assert.equal(response.content, '[compacted] cargo_test: error');
    assert.equal(response.ok, false);
  });

  test('heavy profile: one summary pair from an async summarizer over the raw events', async () => {
    const asked = [];
    const result = compact(rfd, {
      profile: 'heavy',
      summarizer: async (text, { budget }) => {
        asked.push({ text, budget });
        await sleep(1);
        return 'Set up a Rust project with error handling and logging.';
      },
    });
    assert.ok(result instanceof Promise);
    const { conversation, compaction } = await result;
    assert.equal(asked.length, 1);
    assert.ok(asked[0].text.startsWith('User: set up the project'));
    assert.ok(asked[0].text.includes('Reasoning: <500 tokens of thinking>'));
    assert.ok(!asked[0].text.includes('run the tests'), 'the kept turns are not summarised');
    assert.equal(asked[0].budget, asked[0].text.length < 600 ? 200 : 400);
    assert.deepEqual(compaction.summary, {
      summary: 'Set up a Rust project with error handling and logging.',
    });
    const { view } = project(conversation);
    assert.deepEqual(view.turns[0].summaryOf, { fromTurn: 0, toTurn: 2 });
    assert.deepEqual(texts(view.turns[0].events), [
      'user [Summary of previous conversation]',
      'assistant Set up a Rust project with error handling and logging.',
    ]);
    assert.deepEqual(view.turns.map((t) => t.turn), [0, 3, 4, 5]);
    const openai = project(conversation, { format: 'openai' }).view.messages;
    assert.deepEqual(checkConversation(openai), [], 'roles alternate, no orphaned tool result');
  });

  test('the deterministic summary stands in when no summarizer is given', () => {
    const { compaction } = compact(rfd, { profile: 'heavy' });
    assert.equal(typeof compaction.summary.summary, 'string');
    assert.ok(compaction.summary.summary.length > 0);
  });

  test('PROFILES documents what each profile does', () => {
    for (const [name, profile] of Object.entries(PROFILES)) {
      const { compaction } = compact(synthetic(8), { profile: name });
      assert.equal(compaction.toTurn, 7 - profile.keepLast, `${name} keeps ${profile.keepLast}`);
      assert.equal(compaction.reasoning ?? undefined, profile.reasoning);
      assert.equal(compaction.summary !== undefined && compaction.summary !== null, !!profile.summary);
    }
  });
});

describe('stacking', () => {
  test("follows the RFD's table: a summary beats a newer strip, which applies after it", () => {
    const conversation = synthetic(32, [
      { timestamp: '2025-07-18T00:00:00Z', fromTurn: 0, toTurn: 20, summary: { summary: 'S' } },
      { timestamp: '2025-07-19T00:00:00Z', fromTurn: 0, toTurn: 30, toolCalls: 'strip-responses' },
    ]);
    const { view } = project(conversation);
    assert.equal(view.turns.length, 1 + 11);
    assert.deepEqual(texts(view.turns[0].events), [
      'user [Summary of previous conversation]',
      'assistant S',
    ]);
    assert.equal(viewTurn(view, 5), undefined);
    const t25 = viewTurn(view, 25).events;
    assert.equal(t25.find((e) => e.type === 'toolResponse').content, '[compacted] write: success');
    assert.deepEqual(t25.find((e) => e.type === 'toolRequest').arguments, { path: 'p25' });
    assert.equal(json(viewTurn(view, 31).events), json(conversation.turns[31].events));
  });

  test('the newest covering policy wins per content type', () => {
    const cases = [
      [
        [
          { fromTurn: 0, toTurn: 2, toolCalls: 'strip' },
          { fromTurn: 1, toTurn: 1, toolCalls: 'strip-responses' },
        ],
        [
          'user u1',
          'reasoning r1',
          'toolRequest {"path":"p1"}',
          'toolResponse [compacted] write: success',
          'assistant a1',
        ],
      ],
      [
        [
          { fromTurn: 0, toTurn: 2, toolCalls: 'strip' },
          { fromTurn: 1, toTurn: 2, toolCalls: 'omit' },
        ],
        ['user u1', 'reasoning r1', 'assistant a1'],
      ],
      [
        [
          { timestamp: 2000, fromTurn: 1, toTurn: 1, toolCalls: 'omit' },
          { timestamp: 1000, fromTurn: 0, toTurn: 2, toolCalls: 'strip-requests' },
        ],
        ['user u1', 'reasoning r1', 'assistant a1'],
      ],
      [
        [
          { fromTurn: 0, toTurn: 2, reasoning: 'strip' },
          { fromTurn: 0, toTurn: 2, toolCalls: 'strip-responses' },
        ],
        [
          'user u1',
          'toolRequest {"path":"p1"}',
          'toolResponse [compacted] write: success',
          'assistant a1',
        ],
      ],
    ];
    for (const [log, expected] of cases) {
      const events = viewTurn(project(synthetic(3, log)).view, 1).events;
      const described = events.map((e) =>
        e.type === 'toolRequest' ? `toolRequest ${json(e.arguments)}` : `${e.type} ${e.content}`,
      );
      assert.deepEqual(described, expected, json(log));
    }
  });

  test('per-tool hints override a strip policy', () => {
    const conversation = synthetic(3);
    const { conversation: c } = compact(conversation, {
      toolCalls: 'strip',
      tools: { write: { response: 'keep' } },
      from: 0,
      to: 2,
    });
    const events = viewTurn(project(c).view, 0).events;
    assert.equal(events.find((e) => e.type === 'toolResponse').content, 'out0');
    assert.deepEqual(events.find((e) => e.type === 'toolRequest').arguments, { path: '[compacted]' });
  });
});

describe('summary extension', () => {
  const cases = [
    ['overlap on the left', [[2, 5]], 4, 8, 2, 8],
    ['overlap on the right', [[2, 5]], 0, 3, 0, 5],
    ['chained overlaps', [[2, 5], [7, 9]], 4, 8, 2, 9],
    ['inside the old summary', [[2, 5]], 3, 4, 3, 4],
    ['disjoint', [[2, 5]], 6, 8, 6, 8],
  ];
  for (const [name, existing, from, to, wantFrom, wantTo] of cases) {
    test(`extends over partially overlapping summaries: ${name}`, async () => {
      const log = existing.map(([a, b], i) => ({ fromTurn: a, toTurn: b, summary: { summary: `S${i}` } }));
      let input;
      const { compaction, extended } = await compact(synthetic(12, log), {
        summary: true,
        from,
        to,
        summarizer: (text) => {
          input = text;
          return 'new summary';
        },
      });
      assert.deepEqual([compaction.fromTurn, compaction.toTurn], [wantFrom, wantTo]);
      assert.equal(extended, wantFrom !== from || wantTo !== to);
      assert.ok(input.startsWith(`User: u${wantFrom}\n`), 'made from the raw events');
      assert.ok(input.endsWith(`Assistant: a${wantTo}`));
      assert.ok(!input.includes('[Summary'), 'never from a projected view');
    });
  }

  test('refuses a given summary text when the range had to be extended', () => {
    const conversation = synthetic(6, [{ fromTurn: 2, toTurn: 4, summary: { summary: 'S' } }]);
    assert.throws(
      () => compact(conversation, { summary: 'mine', from: 0, to: 3 }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput',
    );
    const ok = compact(conversation, { summary: 'mine', from: 0, to: 4 });
    assert.deepEqual(ok.compaction.summary, { summary: 'mine' });
  });
});

describe('range bounds', () => {
  // Turns start hourly at 00:00 .. 09:00 on 2025-01-01; "now" is 09:30.
  const conversation = synthetic(10, [{ fromTurn: 0, toTurn: 3, toolCalls: 'strip' }]);
  const now = Date.UTC(2025, 0, 1, 9, 30);
  const range = (options) => {
    const { compaction } = compact(conversation, { toolCalls: 'strip', timestamp: now, ...options });
    return [compaction.fromTurn, compaction.toTurn];
  };

  test('resolves indices, negative indices, last and keep counts to absolute turns', () => {
    assert.deepEqual(range({ from: 2, to: 5 }), [2, 5]);
    assert.deepEqual(range({ from: 0, to: -3 }), [0, 6]);
    assert.deepEqual(range({ from: -4, to: 8 }), [5, 8]);
    assert.deepEqual(range({ from: 'last', to: 7 }), [4, 7]);
    assert.deepEqual(range({ keepLast: 3 }), [0, 6]);
    assert.deepEqual(range({ keepFirst: 2, keepLast: 1 }), [2, 8]);
    assert.deepEqual(range({ from: 1, to: { keepLast: 4 } }), [1, 5]);
  });

  test('resolves durations against the timestamps', () => {
    assert.deepEqual(range({ from: '2h', to: 9 }), [8, 9]);
    assert.deepEqual(range({ from: 0, to: '2h' }), [0, 7]);
    assert.deepEqual(range({ from: 0, keepLast: '3h' }), [0, 6]);
  });

  test('rejects turn indices that do not fit the conversation, with readable numbers', () => {
    const rejects = (options, message, path) =>
      assert.throws(
        () => range(options),
        (e) =>
          e instanceof CompressError &&
          e.code === 'InvalidInput' &&
          e.message.endsWith(message) &&
          e.path === path,
      );
    rejects({ from: 6, to: 2 }, 'from is turn 6, after to (turn 2)', '/from');
    rejects({ from: 12 }, "from is turn 12, past the conversation's 10 turns (0..9)", '/from');
    rejects({ to: 10 }, "to is turn 10, past the conversation's 10 turns (0..9)", '/to');
  });

  test('NaN and infinite bounds are typed errors, not "not given"', () => {
    for (const [key, value] of [['to', NaN], ['from', Infinity], ['keepLast', -Infinity],
                                ['keepFirst', NaN]]) {
      assert.throws(
        () => range({ [key]: value }),
        (e) =>
          e instanceof CompressError &&
          e.code === 'InvalidInput' &&
          e.path === `/${key}` &&
          e.message.includes(String(value)),
        `${key}: ${value}`,
      );
    }
  });

  test('bounds that leave no turn compact nothing, whatever the conversation', () => {
    for (const turns of [0, 1, 3]) {
      for (const profile of ['default', 'light', 'heavy']) {
        const short = deepFreeze(synthetic(turns));
        const result = compact(short, { profile });
        assert.equal(result.compaction, null, `${turns} turns, ${profile}`);
        assert.equal(result.index, null);
        assert.deepEqual(result.conversation, short);
        const dry = dryRun(short, { profile, format: 'openai' });
        assert.equal(dry.compaction, null);
        assert.equal(dry.tokens.after, dry.tokens.before);
      }
    }
    assert.equal(range2({ keepLast: 10 }), null);
    assert.equal(range2({ to: -11 }), null);
  });
  const range2 = (options) =>
    compact(conversation, { toolCalls: 'strip', timestamp: now, ...options }).compaction;
});

describe('tokenBudget', () => {
  const long = (i) => `Turn ${i}: ${'the build runs the migrations before the seeders. '.repeat(12)}`;
  const conversation = deepFreeze({
    turns: Array.from({ length: 12 }, (_, i) => ({
      events: [
        { type: 'user', content: long(i) },
        { type: 'reasoning', content: long(i) },
        { type: 'toolRequest', id: `c${i}`, name: 'read', arguments: { path: `src/m${i}.ts` } },
        { type: 'toolResponse', id: `c${i}`, ok: true, content: long(i).repeat(3) },
        { type: 'assistant', content: long(i) },
      ],
    })),
    compactions: [],
  });
  const tokens = (options) => dryRun(conversation, options).tokens;
  const raw = tokens({ profile: 'light' }).before;
  const after = Object.fromEntries(
    ['light', 'default', 'heavy'].map((p) => [p, tokens({ profile: p }).after]),
  );

  test('the profiles get lighter to heavier in projected tokens (the premise)', () => {
    assert.ok(after.light < raw && after.default < after.light && after.heavy < after.default,
              JSON.stringify({ raw, after }));
  });

  test('picks the lightest profile whose view fits', () => {
    for (const [budget, profile] of [
      [after.light, 'light'],
      [after.light - 1, 'default'],
      [after.default, 'default'],
      [after.default - 1, 'heavy'],
    ]) {
      const result = compact(conversation, { tokenBudget: budget });
      assert.equal(result.compaction.profile, profile, `budget ${budget}`);
      assert.equal(result.fits, true);
      const { tokens: t } = project(result.conversation);
      assert.ok(t <= budget, `${t} <= ${budget}`);
      const dry = dryRun(conversation, { tokenBudget: budget });
      assert.deepEqual(dry.compaction, result.compaction);
      assert.equal(dry.fits, true);
    }
  });

  test('compacts nothing when the view fits already', () => {
    const result = compact(conversation, { tokenBudget: raw });
    assert.equal(result.compaction, null);
    assert.equal(result.fits, true);
    assert.deepEqual(result.conversation, conversation);
  });

  test('keeps fewer turns under heavy before giving up, and says when nothing fits', () => {
    const heavier = compact(conversation, { tokenBudget: after.heavy - 1 });
    assert.equal(heavier.compaction.profile, 'heavy');
    assert.ok(heavier.compaction.toTurn > 8, 'keeps fewer than the profile\'s 3 turns');
    const none = compact(conversation, { tokenBudget: 1 });
    assert.equal(none.fits, false);
    assert.equal(none.compaction.toTurn, 10, 'the heaviest: everything but the last turn');
  });

  test('works with a summarizer (async) and rejects what it cannot honour', async () => {
    const result = await compact(conversation, {
      tokenBudget: after.default - 1,
      summarizer: async () => 'short summary',
    });
    assert.equal(result.compaction.summary.summary, 'short summary');
    for (const bad of [{ tokenBudget: -1 }, { tokenBudget: NaN }, { tokenBudget: '100' },
                       { tokenBudget: 100, profile: 'light' }, { tokenBudget: 100, summary: true }]) {
      assert.throws(() => compact(conversation, bad),
                    (e) => e instanceof CompressError && e.code === 'InvalidInput',
                    JSON.stringify(bad));
    }
  });
});

describe('dry run and undo', () => {
  const rfd = deepFreeze(golden('rfd_example.json'));

  test('a dry run shows the projected view and tokens without appending anything', () => {
    const preview = dryRun(rfd, { profile: 'default' });
    assert.equal(rfd.compactions.length, 0);
    const applied = compact(rfd, { profile: 'default' });
    assert.equal(json(preview.compaction), json(applied.compaction));
    assert.equal(json(preview.view), json(project(applied.conversation).view));
    assert.equal(preview.tokens.raw, preview.tokens.before);
    assert.ok(preview.tokens.after < preview.tokens.before);
    assert.equal(preview.tokens.after, project(applied.conversation).tokens);
    const openai = dryRun(rfd, { profile: 'default', format: 'openai' });
    assert.ok(Array.isArray(openai.view.messages));
  });

  test('an overlay-free projection reproduces every event exactly', () => {
    const { view } = project(rfd);
    assert.equal(json(view.turns.map((t) => t.events)), json(rfd.turns.map((t) => t.events)));
  });

  test('undo restores the previous view exactly, undo all the raw view', () => {
    const first = compact(rfd, { profile: 'light' }).conversation;
    const second = compact(first, { profile: 'heavy', timestamp: '2025-07-18T00:00:00Z' }).conversation;
    assert.notEqual(json(project(second).view), json(project(first).view));
    const back = undo(second);
    assert.equal(back.removed.length, 1);
    assert.equal(json(project(back.conversation).view), json(project(first).view));
    const none = undo(second, { all: true });
    assert.equal(none.removed.length, 2);
    assert.equal(json(project(none.conversation).view), json(project(rfd).view));
    assert.equal(second.compactions.length, 2, 'the input is not modified');
    assert.throws(
      () => undo(rfd),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/index',
    );
  });
});

describe('provider formats', () => {
  test('round-trips the OpenAI and Anthropic fixtures exactly', () => {
    const openai = golden('openai_history.json');
    assert.equal(json(toOpenAI(fromOpenAI(openai))), json(openai));
    const anthropic = golden('anthropic_history.json');
    assert.equal(
      json(toAnthropic(fromAnthropic(anthropic.messages, anthropic.system))),
      json({ system: anthropic.system, messages: anthropic.messages }),
    );
  });

  for (const file of ['claude_code_ccviewer.json', 'swe_agent_trajectories.json']) {
    test(`round-trips the real transcripts of ${file} exactly`, { skip: !loadReal(file) }, () => {
      for (const messages of loadReal(file)) {
        assert.equal(json(toOpenAI(fromOpenAI(messages))), json(messages));
      }
    });
  }

  test('splits a provider history into turns at user requests, not tool results', () => {
    const conversation = fromOpenAI(golden('openai_history.json'));
    for (const [t, turn] of conversation.turns.entries()) {
      const first = turn.events.find((e) => e.type !== 'system');
      if (first) assert.notEqual(first.type, 'toolResponse', `turn ${t} opens with a request`);
    }
  });

  test('projects an Anthropic history back into Anthropic messages, compacted', () => {
    const { system, messages } = golden('anthropic_history.json');
    const conversation = fromAnthropic(messages, system);
    const compacted = compact(conversation, { from: 0, to: 0, reasoning: 'strip', toolCalls: 'strip' });
    const { view } = project(compacted.conversation, { format: 'anthropic' });
    assert.equal(json(view.system), json(system));
    assert.equal(view.messages.length, messages.length);
    const blocks = view.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const results = blocks.filter((b) => b.type === 'tool_result');
    assert.ok(results.some((b) => b.content === '[compacted] run_tests: error' && b.is_error));
    assert.ok(results.some((b) => b.content === '[compacted] read_file: success'));
    const write = blocks.find((b) => b.type === 'tool_use' && b.name === 'write_file');
    assert.deepEqual(write.input, { path: '[compacted]', content: '[compacted]' });
    assert.ok(!view.messages.slice(0, 7).some((m) => Array.isArray(m.content) &&
      m.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')));
    assert.equal(json(view.messages.slice(7)), json(messages.slice(7)), 'later turns unchanged');
  });

  test('projects an OpenAI history to OpenAI messages that stay valid', () => {
    // A real agent session with several user turns and many tool calls.
    const messages =
      loadReal('claude_code_mclaude.json')?.find(
        (c) => c.filter((m) => m.role === 'user').length >= 8 && c.some((m) => m.role === 'tool'),
      ) ?? golden('openai_history.json');
    const conversation = fromOpenAI(messages);
    const { conversation: c } = compact(conversation, { profile: 'default' });
    const { view } = project(c, { format: 'openai' });
    assert.equal(view.messages.length, messages.length, 'strip keeps every message');
    const stripped = view.messages.filter(
      (m) => m.role === 'tool' && /^\[compacted\] .+: (success|error)$/.test(m.content),
    );
    assert.ok(stripped.length > 0);
    const before = checkConversation(messages).length;
    assert.equal(checkConversation(view.messages).length, before, 'no new structure problems');
    assert.equal(json(toOpenAI(project(c).view)), json(view.messages));
  });

  test('reports malformed input as CompressError with a JSON pointer', () => {
    assert.throws(
      () => fromOpenAI('nope'),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/messages',
    );
    assert.throws(
      () => compact(golden('rfd_example.json'), { profile: 'extreme' }),
      (e) => e instanceof CompressError && e.code === 'InvalidInput' && e.path === '/profile',
    );
    assert.throws(
      () => project({ turns: 'x' }),
      (e) => e instanceof CompressError && e.path?.startsWith('/conversation'),
    );
    assert.equal(project(golden('rfd_example.json')).view.turns.length, 6, 'still usable');
  });
});

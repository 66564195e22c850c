// SPDX-License-Identifier: MIT
// Provider-native conversations (issue 17): the 112 real conversations of data/native, in their
// Anthropic Messages shape and as OpenAI Chat messages without ids, compressed at defaults and
// under 50/30/15 % budgets. Every output must be a request the provider accepts (nothing
// `validate` did not already find in the input), restore exactly, and leave the input untouched.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

import { compress as compressEngine } from 'cce-wasm';
import {
  anthropicFormat,
  compress,
  compressWith,
  detectFormat,
  uncompress,
  uncompressWith,
  validate,
  validateWith,
} from 'cce-wasm/formats';

import * as lc from '@langchain/core/messages';

import { toAiSdk, toAiSdkUi, toLangChain, toOpenAIChat, toResponses, toolResultChars } from './support/convert-formats.mjs';
import { sentTokens } from './support/billed-tokens.mjs';
import { loadConversations, sharedPath } from './support/shared-data.mjs';

const loadDir = (kind) => loadConversations(`data/native/${kind}/`);

const anthropic = loadDir('anthropic');
const twins = loadDir('openai');
// The OpenAI twins without their ids (and the positional index the ids came with).
const openai = twins.map(({ name, conversation }) => ({ name, conversation: toOpenAIChat(conversation) }));
const aiSdk = twins.map(({ name, conversation }) => ({ name, conversation: toAiSdk(conversation) }));
const responses = twins.map(({ name, conversation }) => ({ name, conversation: toResponses(conversation) }));
const langchain = twins.map(({ name, conversation }) => ({ name, conversation: toLangChain(conversation, lc) }));

const problemKeys = (problems) => new Set(problems.map((p) => `${p.code}:${p.callId ?? ''}`));

/** Problems of the output that the input did not already have. */
function newProblems(output, input, options) {
  const before = problemKeys(validate(input, options));
  return validate(output, options).filter((p) => !before.has(`${p.code}:${p.callId ?? ''}`));
}

const BUDGETS = [0.5, 0.3, 0.15];

function checkFormat(cases, format, extract) {
  const counts = { conversations: 0, runs: 0, valid: 0, exact: 0, validInputs: 0, fits: 0 };
  for (const { name, conversation } of cases) {
    const { messages, system } = extract(conversation);
    const options = system === undefined ? { format } : { format, system };
    const snapshot = JSON.stringify(messages);
    counts.conversations++;
    if (validate(messages, options).length === 0) counts.validInputs++;
    const full = compress(messages, { ...options, tokenBudget: 1e12 });
    const runs = [{}, ...BUDGETS.map((share) => ({ tokenBudget: Math.max(1, Math.floor(full.tokenCount * share)) }))];
    for (const extra of runs) {
      const label = `${name} ${extra.tokenBudget ? `budget ${extra.tokenBudget}` : 'defaults'}`;
      const result = compress(messages, { ...options, ...extra });
      counts.runs++;
      assert.equal(JSON.stringify(messages), snapshot, `${label}: the input was mutated`);
      const problems = newProblems(result.messages, messages, options);
      assert.deepEqual(problems, [], `${label}: the output is not a valid ${format} request`);
      counts.valid++;
      for (const m of result.messages) {
        assert.ok(!('metadata' in m && m.metadata?._cce_original), `${label}: provenance leaked into a native message`);
        assert.ok(!('id' in m) || messages.some((x) => x.id === m.id), `${label}: an id was added`);
      }
      // Honest counts (issue 17 item 5): what would be sent, counted by o200k, is within 1.10 x a
      // budget the result says it fits.
      if (extra.tokenBudget && result.fits) {
        const sent = sentTokens(result.messages, system, format);
        assert.ok(sent <= 1.1 * extra.tokenBudget, `${label}: fits, but o200k counts ${sent}`);
        counts.fits++;
      }
      const restored = uncompress(result.messages, result.verbatim, { format });
      assert.equal(restored.messages.length, messages.length, `${label}: restored length`);
      restored.messages.forEach((m, i) => assert.equal(m, messages[i], `${label}: message ${i} is not the original`));
      counts.exact++;
    }
  }
  return counts;
}

describe('provider-native conversations of data/native', () => {
  test('the data set holds 112 conversations in each shape', () => {
    assert.equal(anthropic.length, 112);
    assert.equal(openai.length, 112);
  });

  test('shapes are detected', () => {
    let detected = 0;
    for (const { conversation } of anthropic) {
      if (detectFormat(conversation.messages, { system: conversation.system }) === 'anthropic') detected++;
    }
    // A conversation of plain string messages is valid in both shapes; the rest must be found.
    assert.ok(detected >= 100, `detected ${detected} of 112`);
    for (const { conversation } of openai) assert.equal(detectFormat(conversation), 'openai-chat');
  });

  test('Anthropic Messages: valid, exact round trips at defaults and 50/30/15 % budgets', () => {
    const counts = checkFormat(anthropic, 'anthropic', (body) => ({ messages: body.messages, system: body.system }));
    assert.equal(counts.conversations, 112);
    assert.equal(counts.valid, 112 * 4);
    assert.equal(counts.exact, 112 * 4);
  });

  test('OpenAI Chat without ids: no throw, valid, exact round trips', () => {
    const counts = checkFormat(openai, 'openai-chat', (messages) => ({ messages }));
    assert.equal(counts.valid, 112 * 4);
    assert.equal(counts.exact, 112 * 4);
  });

  test('detection alone gives the same answer as a named format', () => {
    for (const { conversation } of anthropic.slice(0, 30)) {
      const named = compress(conversation.messages, { format: 'anthropic', system: conversation.system, tokenBudget: 2000 });
      const detected = compress(conversation.messages, { system: conversation.system, tokenBudget: 2000 });
      assert.deepEqual(detected.messages, named.messages);
    }
  });

  test('AI SDK ModelMessage: valid, exact round trips at defaults and 50/30/15 % budgets', () => {
    // Text-only conversations are the same in both shapes; any with tool parts must be found.
    for (const { conversation } of aiSdk) {
      if (conversation.some((m) => m.role === 'tool')) assert.equal(detectFormat(conversation), 'ai-sdk');
    }
    const counts = checkFormat(aiSdk, 'ai-sdk', (messages) => ({ messages }));
    assert.equal(counts.valid, 112 * 4);
    assert.equal(counts.exact, 112 * 4);
  });

  test('OpenAI Responses items: valid, exact round trips at defaults and 50/30/15 % budgets', () => {
    for (const { conversation } of responses) assert.equal(detectFormat(conversation), 'openai-responses');
    const counts = checkFormat(responses, 'openai-responses', (messages) => ({ messages }));
    assert.equal(counts.valid, 112 * 4);
    assert.equal(counts.exact, 112 * 4);
  });

  test('LangChain.js messages: valid, exact round trips, every message keeps its class', () => {
    for (const { conversation } of langchain) assert.equal(detectFormat(conversation), 'langchain');
    const counts = checkFormat(langchain, 'langchain', (messages) => ({ messages }));
    assert.equal(counts.valid, 112 * 4);
    assert.equal(counts.exact, 112 * 4);
    let rewritten = 0;
    for (const { conversation } of langchain) {
      const result = compress(conversation, { tokenBudget: 2000 });
      for (const m of result.messages) {
        assert.ok(m instanceof lc.BaseMessage, 'a LangChain message');
        if (!conversation.includes(m)) rewritten++;
      }
      // Every output message has the class of the input message at its place of origin.
      const restored = uncompress(result.messages, result.verbatim).messages;
      assert.equal(restored.length, conversation.length);
    }
    assert.ok(rewritten > 100, `${rewritten} rewritten messages`);
  });

  test('tool results are compressed in every format about as much as in the OpenAI Chat form', () => {
    const share = (cases, format, extract) => {
      let before = 0;
      let after = 0;
      for (const { conversation } of cases) {
        const { messages, system } = extract(conversation);
        before += toolResultChars(messages, format);
        after += toolResultChars(compress(messages, { format, system }).messages, format);
      }
      return after / before;
    };
    const chat = share(openai, 'openai-chat', (messages) => ({ messages }));
    assert.ok(chat < 0.9, `OpenAI Chat tool results kept ${(chat * 100).toFixed(1)} %`);
    const shares = {
      anthropic: share(anthropic, 'anthropic', (body) => body),
      'ai-sdk': share(aiSdk, 'ai-sdk', (messages) => ({ messages })),
      'openai-responses': share(responses, 'openai-responses', (messages) => ({ messages })),
      langchain: share(langchain, 'langchain', (messages) => ({ messages })),
    };
    for (const [format, kept] of Object.entries(shares)) {
      assert.ok(Math.abs(kept - chat) < 0.1, `${format} kept ${kept}, OpenAI Chat ${chat}`);
    }
  });
});

// The OpenAI-shaped data sets in each other format, converted as bench:formats converts them.
const converters = {
  'openai-chat': toOpenAIChat,
  'ai-sdk': toAiSdk,
  'ai-sdk-ui': toAiSdkUi,
  'openai-responses': toResponses,
  langchain: (c) => toLangChain(c, lc),
};

describe('the bench scenarios of data/bench in every format', () => {
  const dir = sharedPath('data/bench/');
  const scenarios = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'oracle-results.json')
    .map((f) => JSON.parse(readFileSync(dir + f, 'utf8')))
    .filter((s) => Array.isArray(s.messages))
    .map((s) => ({ name: s.name, conversation: s.messages }));
  for (const [format, convert] of Object.entries(converters)) {
    test(`${format}: valid outputs and exact round trips`, () => {
      assert.ok(scenarios.length >= 7);
      const cases = scenarios.map(({ name, conversation }) => ({ name, conversation: convert(conversation) }));
      const counts = checkFormat(cases, format, (messages) => ({ messages }));
      assert.equal(counts.exact, scenarios.length * 4);
    });
  }
});

describe('the agentic real transcripts of data/real in every format', () => {
  // The 48 conversations with tool calls (Claude Code, SWE-agent), converted as bench:formats does.
  const FILES = ['claude_code_ccviewer.json', 'claude_code_mclaude.json', 'swe_agent_trajectories.json'];
  const agentic = FILES.flatMap((file) =>
    JSON.parse(readFileSync(sharedPath(`data/real/${file}`), 'utf8'))
      .map((conversation, i) => ({ name: `${file}#${i}`, conversation }))
      .filter(({ conversation }) => conversation.some((m) => m.role === 'tool')),
  );
  for (const [format, convert] of Object.entries(converters)) {
    test(`${format}: valid outputs and exact round trips at defaults and 50/30/15 % budgets`, () => {
      assert.equal(agentic.length, 48);
      const cases = agentic.map(({ name, conversation }) => ({ name, conversation: convert(conversation) }));
      const counts = checkFormat(cases, format, (messages) => ({ messages }));
      assert.equal(counts.exact, 48 * 4);
      assert.ok(counts.fits >= 48, `${counts.fits} budget results fit`);
    });
  }
});

describe('Anthropic adapter details', () => {
  const PROSE =
    'We should batch the inserts in groups of 500 rows. The importer currently commits after ' +
    'every single row, which is slow. Profiling shows that importRows spends most of its time ' +
    'waiting on the database. A second fix is to disable the audit trigger during the import. ';
  const LOG = Array.from({ length: 40 }, (_, i) => `line ${i}: INFO processed batch ${i} in ${i * 7} ms`).join('\n');

  const conversation = () => [
    { role: 'user', content: [{ type: 'text', text: PROSE.repeat(3), cache_control: { type: 'ephemeral' } }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Look at the log first.', signature: 'sig-1' },
        { type: 'text', text: 'Reading the log.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'import.log' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: LOG, is_error: false },
        { type: 'text', text: 'What now?' },
      ],
    },
    { role: 'assistant', content: PROSE.repeat(2) },
    { role: 'user', content: 'Thanks.' },
  ];

  test('compresses tool_result content and keeps every other field by reference', () => {
    const input = conversation();
    const result = compress(input, { recencyWindow: 1 });
    const [u0, a1, u2] = result.messages;
    assert.equal(u0.content[0].cache_control, input[0].content[0].cache_control);
    assert.ok(u0.content[0].text.length < input[0].content[0].text.length, 'user text summarised');
    assert.equal(a1, input[1], 'the tool_use step is kept as it was');
    assert.equal(u2.content[0].tool_use_id, 'toolu_1');
    assert.equal(u2.content[0].is_error, false);
    assert.ok(u2.content[0].content.length < LOG.length, 'the tool result was compressed');
    assert.deepEqual(validate(result.messages), []);
    assert.deepEqual(uncompress(result.messages, result.verbatim).messages, input);
  });

  test('the system prompt counts against the budget and is never changed', () => {
    const input = conversation();
    const system = [{ type: 'text', text: PROSE.repeat(20), cache_control: { type: 'ephemeral' } }];
    const without = compress(input, { tokenBudget: 1e9 });
    const withSystem = compress(input, { system, tokenBudget: 1e9 });
    assert.ok(withSystem.tokenCount > without.tokenCount + 300);
    const tight = compress(input, { system, tokenBudget: withSystem.tokenCount - 100 });
    assert.ok(tight.messages.every((m) => m.role === 'user' || m.role === 'assistant'));
    assert.deepEqual(validate(tight.messages, { system }), []);
  });

  test('validate names what Anthropic rejects', () => {
    const codes = (messages) => validate(messages, { format: 'anthropic' }).map((p) => p.code).sort();
    assert.deepEqual(codes([{ role: 'assistant', content: 'hi' }]), ['first-not-user']);
    assert.deepEqual(codes([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]), ['roles-not-alternating']);
    assert.deepEqual(
      codes([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'r' }] }]),
      ['orphan-tool-result'],
    );
    assert.deepEqual(
      codes([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'tool_result', tool_use_id: 't', content: 'r' }] },
      ]),
      ['tool-result-not-first'],
    );
    assert.deepEqual(
      codes([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
        { role: 'user', content: 'no result' },
      ]),
      ['unanswered-tool-use'],
    );
    assert.deepEqual(codes([{ role: 'user', content: [] }]), ['empty-content']);
  });
});

describe('OpenAI Chat without ids', () => {
  test('compresses without throwing, adds no ids or metadata, restores exactly', () => {
    const long = 'The build failed because the cache key changed after the lockfile update. '.repeat(12);
    const input = [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: long },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: long },
      { role: 'assistant', content: long },
      { role: 'user', content: 'ok' },
    ];
    const result = compress(input, { recencyWindow: 1 });
    assert.equal(result.messages[0], input[0], 'developer is preserved like system');
    assert.ok(result.messages[1].content.length < long.length);
    for (const m of result.messages) assert.ok(!('id' in m) && !('metadata' in m));
    assert.deepEqual(validate(result.messages), []);
    assert.deepEqual(uncompress(result.messages, result.verbatim).messages, input);
  });

  test('messages that all have ids keep the engine dialect', () => {
    const input = [
      { id: 'a', role: 'user', content: 'The build failed because the cache key changed. '.repeat(12) },
      { id: 'b', role: 'user', content: 'ok' },
    ];
    const result = compress(input, { recencyWindow: 1 });
    assert.ok(result.messages[0].metadata._cce_original);
    assert.ok(result.verbatim.a);
  });
});

describe('LangChain.js details', () => {
  test('plain LangChain messages ({ type } or { type, role }): the opening stub is a human message too', () => {
    const R = 'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ';
    for (const withRole of [false, true]) {
      const m = (type, role, fields) => ({ type, ...(withRole ? { role } : {}), ...fields });
      const messages = [m('system', 'system', { content: 'You are terse.' })];
      for (let t = 0; t < 6; t++) {
        const image = t === 0 ? [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] : [];
        messages.push(m('human', 'user', { content: [{ type: 'text', text: `Question ${t}: ${R.repeat(6)}` }, ...image] }));
        messages.push(m('ai', 'assistant', { content: '', tool_calls: [{ id: `c${t}`, name: 'lookup', args: { t } }] }));
        messages.push(m('tool', 'tool', { content: R.repeat(12), tool_call_id: `c${t}` }));
        messages.push(m('ai', 'assistant', { content: `Stage ${t}: ${R.repeat(4)}` }));
      }
      messages.push(m('human', 'user', { content: 'Which file holds the retry policy?' }));
      const result = compress(messages, { format: 'langchain', tokenBudget: 500 });
      const opening = result.messages[1];
      assert.ok(JSON.stringify(opening.content).includes('[cce:omitted'), 'the budget stubs the opening');
      assert.equal(opening.type, 'human', `withRole ${withRole}`);
      if (withRole) assert.equal(opening.role, 'user');
      assert.equal(result.messages[2].type, 'ai', 'the stub and the question are one message');
      const back = uncompress(result.messages, result.verbatim).messages;
      back.forEach((x, k) => assert.equal(x, messages[k], `message ${k} restored`));
    }
  });

  test('omitted opening messages are stubbed in a human message of the caller’s class, after the system message', () => {
    const R = 'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ';
    const messages = [new lc.SystemMessage('You are terse.')];
    for (let t = 0; t < 6; t++) {
      const image = t === 0 ? [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] : [];
      messages.push(new lc.HumanMessage({ content: [{ type: 'text', text: `Question ${t}: ${R.repeat(6)}` }, ...image] }));
      messages.push(new lc.AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'lookup', args: { t } }] }));
      messages.push(new lc.ToolMessage({ tool_call_id: `c${t}`, content: R.repeat(12) }));
      messages.push(new lc.AIMessage(`Stage ${t}: ${R.repeat(4)}`));
    }
    messages.push(new lc.HumanMessage('Which file holds the retry policy?'));
    let stubbed = 0;
    for (let budget = 600; budget <= 3000; budget += 200) {
      const result = compress(messages, { format: 'langchain', tokenBudget: budget });
      assert.deepEqual(validate(result.messages, { format: 'langchain' }), [], `budget ${budget}`);
      assert.equal(result.messages[0], messages[0]);
      const opening = result.messages[1];
      assert.ok(opening instanceof lc.HumanMessage, `budget ${budget}: ${opening.constructor.name}`);
      if (JSON.stringify(opening.content).includes('[cce:omitted')) {
        stubbed++;
        // One human message: the stub, then the question after it (never two in a row).
        assert.ok(!(result.messages[2] instanceof lc.HumanMessage), `budget ${budget}: ${result.messages[2].constructor.name}`);
      }
      const back = uncompress(result.messages, result.verbatim).messages;
      assert.equal(back.length, messages.length);
      back.forEach((m, k) => assert.equal(m, messages[k], `budget ${budget}: message ${k} restored`));
    }
    assert.ok(stubbed > 0, 'some budget stubs the opening');
  });

  const long = 'The deploy script retries the upload three times and then gives up with an error. '.repeat(12);

  test('preserve: system protects a SystemMessage; rewritten messages keep their class and fields', () => {
    const input = [
      new lc.SystemMessage({ content: long }),
      new lc.HumanMessage({ content: long, id: 'h1' }),
      new lc.AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'ls', args: { dir: '.' }, type: 'tool_call' }] }),
      new lc.ToolMessage({ content: long, tool_call_id: 'c1', name: 'ls', artifact: { files: 3 } }),
      new lc.AIMessage({ content: long }),
      new lc.HumanMessage({ content: 'ok' }),
    ];
    const result = compress(input, { recencyWindow: 1 });
    assert.equal(result.messages[0], input[0], 'the system prompt is untouched');
    const human = result.messages[1];
    assert.ok(human instanceof lc.HumanMessage);
    assert.equal(human.id, 'h1');
    assert.ok(human.content.length < long.length);
    const tool = result.messages[3];
    assert.ok(tool instanceof lc.ToolMessage);
    assert.equal(tool.tool_call_id, 'c1');
    assert.equal(tool.name, 'ls');
    assert.equal(tool.artifact, input[3].artifact);
    assert.ok(tool.content.length < long.length, 'the tool result is compressed');
    assert.equal(result.messages[2], input[2]);
    assert.deepEqual(validate(result.messages), []);
    const restored = uncompress(result.messages, result.verbatim).messages;
    restored.forEach((m, i) => assert.equal(m, input[i]));
  });
});

describe('one adapter, a summarizer, errors, honest counts', () => {
  const long = 'The import job stalls when the audit trigger fires on every inserted row of the batch. '.repeat(10);
  const chat = () => [
    { role: 'user', content: long },
    { role: 'assistant', content: long },
    { role: 'user', content: 'and?' },
  ];

  test('compressWith / uncompressWith / validateWith use only the adapter given', () => {
    const input = [
      { role: 'user', content: [{ type: 'text', text: long }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: 'next' },
    ];
    const result = compressWith(anthropicFormat, input, { recencyWindow: 1 });
    assert.ok(result.messages[0].content[0].text.length < long.length);
    assert.deepEqual(validateWith(anthropicFormat, result.messages), []);
    assert.deepEqual(uncompressWith(result.messages, result.verbatim).messages, input);
  });

  test('a summarizer makes it a Promise, answered in the same format', async () => {
    const input = chat();
    const result = await compress(input, { format: 'openai-chat', recencyWindow: 1, summarizer: (t) => t.slice(0, 40) });
    assert.equal(result.messages[0].content.length <= 60, true, result.messages[0].content);
    assert.ok(!('id' in result.messages[0]));
    assert.deepEqual(uncompress(result.messages, result.verbatim, { format: 'openai-chat' }).messages, input);
  });

  test('errors name the caller\'s message, not the engine\'s view', () => {
    const cyclic = { type: 'tool_result', tool_use_id: 't', content: [] };
    cyclic.content.push({ type: 'custom', self: cyclic });
    const input = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
      { role: 'user', content: [cyclic, { type: 'text', text: 'x' }] },
    ];
    assert.throws(() => compress(input, { format: 'anthropic' }), (e) => e.code === 'InvalidInput' && e.path === '/messages/2');
  });

  test('tool-call arguments, images by pixel size and a per-message overhead are counted', () => {
    const args = JSON.stringify({ path: 'src/very/long/path/to/a/file.ts', pattern: 'x'.repeat(400) });
    const withCall = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'grep', arguments: args } }] },
      { role: 'tool', tool_call_id: 'c', content: 'none' },
    ];
    const counted = compress(withCall, { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
    const noArgs = structuredClone(withCall);
    noArgs[1].tool_calls[0].function.arguments = '';
    const bare = compress(noArgs, { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
    assert.ok(counted > bare + 50, `with arguments ${counted}, without ${bare}`);
    // The main entry's default estimate bills them alike (docs/token-counts.md).
    const engine = compressEngine(withCall.map((m, i) => ({ ...m, id: String(i) })), { tokenBudget: 1e9 }).tokenCount;
    assert.equal(engine, counted);
    // A 2048 x 1024 PNG: OpenAI high detail scales it to 1536 x 768, 3 x 2 tiles: 85 + 170 * 6.
    const png = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
    png.writeUInt32BE(13, 8);
    png.write('IHDR', 12, 'ascii');
    png.writeUInt32BE(2048, 16);
    png.writeUInt32BE(1024, 20);
    const url = `data:image/png;base64,${png.toString('base64')}`;
    const image = [{ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url } }] }];
    const text = [{ role: 'user', content: [{ type: 'text', text: 'see' }] }];
    const withImage = compress(image, { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
    const without = compress(text, { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
    assert.equal(withImage - without, 85 + 170 * 6);
    // Anthropic: 2048 x 1024 scaled to 1516 x 758 (1.15 MP) -> ceil(1516 * 758 / 750) tokens.
    const block = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } };
    const a = compress([{ role: 'user', content: [{ type: 'text', text: 'see' }, block] }], { format: 'anthropic', tokenBudget: 1e9 });
    const b = compress([{ role: 'user', content: [{ type: 'text', text: 'see' }] }], { format: 'anthropic', tokenBudget: 1e9 });
    const scale = Math.min(1568 / 2048, Math.sqrt(1_150_000 / (2048 * 1024)));
    assert.equal(a.tokenCount - b.tokenCount, Math.ceil((2048 * scale * (1024 * scale)) / 750));
    // Every message costs its overhead.
    const one = compress([{ role: 'user', content: 'a' }], { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
    const two = compress([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'a' }], { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
    assert.equal(two - one, one);
    assert.ok(one >= 5);
  });

  test('a plain-text document costs its text: Anthropic text and content sources, AI SDK 7 inline text', () => {
    const notes = 'The retry policy lives in ci/retry.yaml and pages after two failures. '.repeat(200);
    const asText = compress([{ role: 'user', content: notes }], { format: 'anthropic', tokenBudget: 1e9 }).tokenCount;
    const cost = (format, part) => {
      const ask = [{ role: 'user', content: [{ type: 'text', text: 'Read.' }, part] }];
      const bare = [{ role: 'user', content: [{ type: 'text', text: 'Read.' }] }];
      return compress(ask, { format, tokenBudget: 1e9 }).tokenCount - compress(bare, { format, tokenBudget: 1e9 }).tokenCount;
    };
    const documents = [
      ['anthropic', { type: 'document', source: { type: 'text', media_type: 'text/plain', data: notes } }],
      ['anthropic', { type: 'document', source: { type: 'content', content: notes } }],
      ['anthropic', { type: 'document', source: { type: 'content', content: [{ type: 'text', text: notes.slice(0, 7000) }, { type: 'text', text: notes.slice(7000) }] }, title: 'notes' }],
      ['ai-sdk', { type: 'file', mediaType: 'text/plain', data: { type: 'text', text: notes } }],
    ];
    for (const [format, part] of documents) {
      const n = cost(format, part);
      // Its text and a few tokens of JSON around it; the fixed price of a page would be 1,590.
      assert.ok(n > 0.97 * asText && n < 1.05 * asText, `${format} ${JSON.stringify(part).slice(0, 60)}: ${n} against ${asText}`);
    }
    // A PDF (base64 source) is still priced as a page, and is never rewritten.
    const pdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } };
    assert.equal(cost('anthropic', pdf), 1590);
  });

  test('compat cce-1.0 without a format is the engine, byte for byte', () => {
    const input = chat().map((m, i) => ({ ...m, id: `m${i}` }));
    const viaFormats = compress(input, { compat: 'cce-1.0', recencyWindow: 1 });
    const viaEngine = compressEngine(input, { compat: 'cce-1.0', recencyWindow: 1 });
    assert.equal(JSON.stringify(viaFormats), JSON.stringify(viaEngine));
  });
});

describe('image sizes from inline headers', () => {
  const gif = (w, h) => {
    const b = Buffer.alloc(13);
    b.write('GIF89a', 0, 'ascii');
    b.writeUInt16LE(w, 6);
    b.writeUInt16LE(h, 8);
    return ['image/gif', b];
  };
  const webp = (w, h) => {
    const b = Buffer.alloc(30);
    b.write('RIFF', 0, 'ascii');
    b.writeUInt32LE(22, 4);
    b.write('WEBPVP8X', 8, 'ascii');
    b.writeUInt32LE(10, 16);
    b.writeUIntLE(w - 1, 24, 3);
    b.writeUIntLE(h - 1, 27, 3);
    return ['image/webp', b];
  };
  const jpeg = (w, h) => {
    const b = Buffer.alloc(40);
    b.set([0xff, 0xd8, 0xff, 0xe0], 0);
    b.writeUInt16BE(16, 4); // an APP0 segment to walk over
    b.set([0xff, 0xc0], 20);
    b.writeUInt16BE(17, 22);
    b[24] = 8;
    b.writeUInt16BE(h, 25);
    b.writeUInt16BE(w, 27);
    return ['image/jpeg', b];
  };
  const cases = [
    ['GIF 100 x 100: one tile', gif(100, 100), 85 + 170],
    ['WebP 1000 x 600: 2 x 2 tiles', webp(1000, 600), 85 + 170 * 4],
    ['JPEG 1200 x 700: 3 x 2 tiles', jpeg(1200, 700), 85 + 170 * 6],
    ['a URL: the documented default', null, 765],
  ];
  for (const [name, file, tokens] of cases) {
    test(name, () => {
      const url = file ? `data:${file[0]};base64,${file[1].toString('base64')}` : 'https://example.com/a.png';
      const count = (content) => compress([{ role: 'user', content }], { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
      const text = { type: 'text', text: 'look' };
      assert.equal(count([text, { type: 'image_url', image_url: { url } }]) - count([text]), tokens);
    });
  }
});

describe('AI SDK and Responses part types', () => {
  test('AI SDK: omitted opening messages are stubbed in a user message, after the system prompt', () => {
    // The first question carries a file, so it cannot carry the stub: the next text message
    // (an assistant's) does, and an assistant must not open the conversation (Anthropic, Gemini).
    const R = 'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ';
    const messages = [{ role: 'system', content: 'You are terse.' }];
    for (let t = 0; t < 6; t++) {
      messages.push({ role: 'user', content: [{ type: 'text', text: `Question ${t}: ${R.repeat(6)}` }, ...(t === 0 ? [{ type: 'file', mediaType: 'text/plain', data: { type: 'text', text: R.repeat(30) } }] : [])] });
      messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${t}`, toolName: 'lookup', input: { t } }] });
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${t}`, toolName: 'lookup', output: { type: 'text', value: R.repeat(12) } }] });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: `Stage ${t}: ${R.repeat(4)}` }] });
    }
    messages.push({ role: 'user', content: 'Which file holds the retry policy?' });
    let stubbed = 0;
    for (let budget = 800; budget <= 4000; budget += 200) {
      const result = compress(messages, { format: 'ai-sdk', tokenBudget: budget });
      assert.deepEqual(validate(result.messages, { format: 'ai-sdk' }), [], `budget ${budget}`);
      assert.equal(result.messages[0], messages[0], 'the system prompt is the caller’s own');
      assert.equal(result.messages[1].role, 'user', `budget ${budget}: ${JSON.stringify(result.messages[1]).slice(0, 80)}`);
      if (JSON.stringify(result.messages[1]).includes('[cce:omitted')) {
        stubbed++;
        assert.notEqual(result.messages[2].role, 'user', `budget ${budget}: the stub and the question are one message`);
      }
      assert.deepEqual(uncompress(result.messages, result.verbatim).messages, messages, `budget ${budget} restores`);
    }
    assert.ok(stubbed > 0, 'some budget stubs the opening');
  });

  const log = Array.from({ length: 60 }, (_, i) => `2026-01-0${(i % 9) + 1} worker ${i} finished job ${i * 13} with status ok`).join('\n');
  const object = { rows: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `row ${i}`, note: 'unchanged since the last import' })) };

  test('AI SDK: every output type, approvals and providerOptions survive; text outputs are compressed', () => {
    const providerOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const call = (id, toolName) => ({ type: 'tool-call', toolCallId: id, toolName, input: { q: id } });
    const input = [
      { role: 'system', content: 'Be brief.', providerOptions },
      { role: 'user', content: [{ type: 'text', text: 'Run the checks.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Run them all.', providerOptions: { anthropic: { signature: 'sig' } } },
          call('t1', 'logs'),
          call('t2', 'db'),
          call('t3', 'lint'),
          call('t4', 'shell'),
          call('t5', 'deploy'),
          { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 't5' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't1', toolName: 'logs', output: { type: 'text', value: log }, providerOptions },
          { type: 'tool-result', toolCallId: 't2', toolName: 'db', output: { type: 'json', value: object } },
          { type: 'tool-result', toolCallId: 't3', toolName: 'lint', output: { type: 'error-text', value: log } },
          {
            type: 'tool-result',
            toolCallId: 't4',
            toolName: 'shell',
            output: { type: 'content', value: [{ type: 'text', text: log }, { type: 'media', data: 'AAAA', mediaType: 'image/png' }] },
          },
          { type: 'tool-approval-response', approvalId: 'ap1', approved: false },
          { type: 'tool-result', toolCallId: 't5', toolName: 'deploy', output: { type: 'execution-denied', reason: 'not approved' } },
        ],
      },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Thanks.' },
    ];
    const result = compress(input, { recencyWindow: 1 });
    assert.equal(result.messages[0], input[0]);
    assert.equal(result.messages[2], input[2], 'the calls are kept as they were');
    const parts = result.messages[3].content;
    assert.equal(parts.length, 6);
    assert.ok(parts[0].output.value.length < log.length);
    assert.equal(parts[0].providerOptions, providerOptions);
    assert.equal(parts[2].output.type, 'error-text');
    assert.equal(parts[3].output.type, 'content');
    assert.equal(parts[3].output.value[1], input[3].content[3].output.value[1], 'media kept by reference');
    assert.equal(parts[4], input[3].content[4]);
    assert.equal(parts[5], input[3].content[5]);
    assert.deepEqual(validate(result.messages), []);
    const restored = uncompress(result.messages, result.verbatim).messages;
    restored.forEach((m, i) => assert.equal(m, input[i]));
  });

  test('Responses: reasoning stays with its item, custom tool calls pair, unknown items pass through', () => {
    const input = [
      { type: 'message', role: 'developer', content: 'Be brief.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Check the logs. '.repeat(30) }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-secret' },
      { type: 'custom_tool_call', call_id: 'ct1', name: 'shell', input: 'tail -n 60 worker.log' },
      { type: 'custom_tool_call_output', call_id: 'ct1', output: log },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
      { type: 'reasoning', id: 'rs_2', summary: [{ type: 'summary_text', text: 'Answer.' }], encrypted_content: 'gAAAA-2' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'All jobs finished. '.repeat(20), annotations: [] }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks.' }] },
    ];
    assert.equal(detectFormat(input), 'openai-responses');
    for (const budget of [undefined, 400, 150, 60]) {
      const result = compress(input, budget ? { tokenBudget: budget } : { recencyWindow: 1 });
      assert.deepEqual(validate(result.messages, { format: 'openai-responses' }), [], `budget ${budget}`);
      for (const item of result.messages) {
        if (item.type === 'reasoning' || item.type === 'custom_tool_call' || item.type === 'web_search_call') {
          assert.ok(input.includes(item), `${item.type} is the caller's own item`);
        }
      }
      const restored = uncompress(result.messages, result.verbatim).messages;
      restored.forEach((m, i) => assert.equal(m, input[i]));
    }
    const result = compress(input, { recencyWindow: 1 });
    assert.ok(result.messages[4].output.length < log.length, 'the custom tool output is compressed');
    assert.equal(result.messages[4].call_id, 'ct1');
    assert.deepEqual(
      validate([{ type: 'message', role: 'assistant', content: [] }], { format: 'openai-responses' }).map((p) => p.code),
      ['empty-content'],
    );
    assert.deepEqual(
      validate([{ type: 'function_call_output', call_id: 'x', output: 'r' }], { format: 'openai-responses' }).map((p) => p.code),
      ['orphan-tool-result'],
    );
    assert.deepEqual(
      validate([{ type: 'message', role: 'user', content: 'q' }, { type: 'reasoning', id: 'r', summary: [] }], { format: 'openai-responses' }).map((p) => p.code),
      ['reasoning-without-item'],
    );
  });
});

describe('a budget that empties assistant texts', () => {
  // mclaude #25 at 15 % of its tokens: no plan fits, and the last resort empties the assistant's
  // texts beside its tool calls. In Responses each text is a message item of its own, which must
  // not be left with no content.
  test('Responses leaves the emptied message items out, and uncompress restores them', () => {
    const conversations = JSON.parse(readFileSync(sharedPath('data/real/claude_code_mclaude.json'), 'utf8'));
    const input = toResponses(conversations[25]);
    const full = compress(input, { format: 'openai-responses', tokenBudget: 1e12 });
    const result = compress(input, { format: 'openai-responses', tokenBudget: Math.floor(full.tokenCount * 0.15) });
    const assistantTexts = (items) => items.filter((it) => it.type === 'message' && it.role === 'assistant').length;
    assert.ok(assistantTexts(result.messages) < assistantTexts(input), 'some assistant texts were emptied');
    assert.deepEqual(validate(result.messages, { format: 'openai-responses' }), []);
    const restored = uncompress(result.messages, result.verbatim, { format: 'openai-responses' }).messages;
    assert.equal(restored.length, input.length);
    restored.forEach((m, i) => assert.equal(m, input[i]));
  });
});

describe('the engine dialect through cce-wasm/formats', () => {
  test('is counted as billed (tool-call arguments, overhead) and keeps its shape', () => {
    const args = JSON.stringify({ pattern: 'y'.repeat(600) });
    const input = [
      { id: 'u', role: 'user', content: 'go' },
      { id: 'a', role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'grep', arguments: args } }] },
      { id: 't', role: 'tool', tool_call_id: 'c', content: 'none' },
    ];
    const viaFormats = compress(input, { tokenBudget: 1e9 });
    const viaEngine = compressEngine(input, { tokenBudget: 1e9 });
    // Both entries bill the arguments (the main entry in the engine, docs/token-counts.md).
    assert.equal(viaFormats.tokenCount, viaEngine.tokenCount);
    const cce10 = compressEngine(input, { tokenBudget: 1e9, compat: 'cce-1.0' });
    assert.ok(viaFormats.tokenCount > cce10.tokenCount + 100);
    assert.equal(viaFormats.tokenCount, compress(input.map(({ id: _id, ...m }) => m), { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount);
    assert.deepEqual(viaFormats.messages, viaEngine.messages);
  });
});

describe('bad input to the formats entry', () => {
  const cases = [
    ['messages not an array', () => compress('nope', { format: 'anthropic' }), '/messages'],
    ['a null message', () => compress([null], { format: 'ai-sdk' }), '/messages/0'],
    ['an unknown format', () => compress([], { format: 'gemini' }), '/options/format'],
    ['system outside Anthropic', () => compress([{ role: 'user', content: 'x' }], { format: 'openai-chat', system: 's' }), '/options/system'],
    ['uncompress of a string', () => uncompress('x', {}, { format: 'anthropic' }), '/messages'],
    ['uncompress without a store', () => uncompress([], null, { format: 'anthropic' }), '/store'],
    ['validate of an unknown format', () => validate([], { format: 'gemini' }), '/options/format'],
  ];
  for (const [name, call, path] of cases) {
    test(`${name}: InvalidInput at ${path}`, () => {
      assert.throws(call, (e) => e.name === 'CompressError' && e.code === 'InvalidInput' && e.path === path);
      // The module stays usable.
      assert.equal(compress([{ role: 'user', content: 'hi' }], { format: 'anthropic' }).messages.length, 1);
    });
  }
});

describe('random-looking text is billed as o200k counts it', () => {
  // A web-search output carried as a Responses function_call_output: JSON with encrypted
  // content (base64). The script estimate alone priced it at about 0.74 of its o200k tokens, so
  // such conversations that "fit" a budget sent 1.2-1.36 x it (bench:formats).
  const blob = (n) => randomBytes(n).toString('base64');
  const output = JSON.stringify(
    Array.from({ length: 6 }, (_, i) => ({ encrypted_content: blob(1500), title: `Result ${i}`, url: `https://example.com/${i}` })),
  );
  const items = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look up the 10-year Treasury duration.' }] },
    { type: 'function_call', call_id: 'c1', name: 'web_search', arguments: '{"query":"10-year Treasury duration"}' },
    { type: 'function_call_output', call_id: 'c1', output },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'About 8.95 years.', annotations: [] }] },
  ];

  test('the count of a base64-heavy output is within 10 % of o200k, over and not under', () => {
    const count = compress(items, { format: 'openai-responses', tokenBudget: 1e9 }).tokenCount;
    const real = countTokens(output);
    assert.ok(count >= real * 0.95 && count <= real * 1.15, `estimate ${count}, o200k ${real}`);
  });

  test('a budget the output alone exceeds by o200k is not said to fit as it is', () => {
    const budget = Math.floor(countTokens(output) * 0.9);
    const result = compress(items, { format: 'openai-responses', tokenBudget: budget });
    assert.ok(!(result.fits && result.messages[2] === items[2]), 'the output cannot be sent whole');
  });

  test('base64 runs are priced once, by the engine estimate, at o200k\'s rate', () => {
    // The engine's estimate prices random-looking runs (src/token_estimate.cpp, kRandomChars);
    // the formats entry once added its own supplement on top, which would now count them twice.
    // Which texts are random-looking is tested natively (tests/token_estimate_test.cpp).
    const plain = [{ role: 'user', content: 'a3f9c2e8b1d4f6a7c9e0b2d4f6a8c0e2 getElementById2ForTheWin HTMLParserV2Implementation' }];
    const text = `key ${blob(300)}`;
    const withBlob = [{ role: 'user', content: text }];
    const billed = (m) => compress(m, { format: 'openai-chat', tokenBudget: 1e9 }).tokenCount;
    const engine = (m) => compressEngine(m.map((x, i) => ({ ...x, id: String(i) })), { tokenBudget: 1e9 }).tokenCount;
    assert.equal(billed(plain), engine(plain));
    assert.equal(billed(withBlob), engine(withBlob));
    const estimate = engine(withBlob) - 4; // less the per-message overhead
    const real = countTokens(text);
    assert.ok(estimate >= real * 0.9 && estimate <= real * 1.1, `estimate ${estimate}, o200k ${real}`);
  });
});

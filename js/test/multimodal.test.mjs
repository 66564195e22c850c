// SPDX-License-Identifier: MIT
// Array content (issue 6 item 5) and the safe mode's token estimate (item 7), through the package.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { CompressError, compress, defaultTokenCounter, uncompress } from 'cce-wasm';

// 265 characters, four sentences, no hard reason: compressible on its own.
const PROSE =
  'We should batch the inserts in groups of 500 rows. The importer currently commits after ' +
  'every single row, which is slow. Profiling shows that importRows spends most of its time ' +
  'waiting on the database. A second fix is to disable the audit trigger during the import.';
const HAN = '我们需要把数据库迁移到新的服务器上并且在迁移之前完成全部备份';

const image = () => ({ type: 'image_url', image_url: { url: 'https://example.com/chart.png' } });

const openAi = () => [
  {
    id: 'u1',
    role: 'user',
    content: [
      { type: 'text', text: 'Look at this chart.', cache_control: { type: 'ephemeral' } },
      image(),
      { type: 'text', text: PROSE },
    ],
  },
  { id: 'a1', role: 'assistant', content: 'Thanks, looking.' },
  { id: 'u2', role: 'user', content: 'And now?' },
];

const anthropic = () => [
  {
    id: 'a0',
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'The user wants the import sped up.', signature: 'sig' },
      { type: 'text', text: PROSE },
      { type: 'tool_use', id: 'tu1', name: 'grep', input: { pattern: 'importRows' } },
    ],
  },
  {
    id: 'u1',
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'src/import.ts:12' }],
  },
  { id: 'u2', role: 'user', content: 'Go on.' },
];

const restoredJson = (result) =>
  JSON.stringify(uncompress(result.messages, result.verbatim).messages);

describe('multimodal content', () => {
  test('summarises the text parts into the first one and keeps the image in place', () => {
    const input = openAi();
    const before = JSON.stringify(input);
    const result = compress(input, { recencyWindow: 2 });
    assert.equal(result.compression.messages_compressed, 1);
    const content = result.messages[0].content;
    assert.ok(Array.isArray(content));
    assert.equal(content.length, 2, 'the second text part is dropped');
    assert.equal(content[0].type, 'text');
    assert.ok(content[0].text.startsWith('[summary: Look at this chart. ... '));
    assert.deepEqual(content[0].cache_control, { type: 'ephemeral' });
    assert.equal(content[1], input[0].content[1], 'the image part is the caller\'s own object');
    assert.equal(result.messages[1], input[1]);
    assert.equal(JSON.stringify(input), before, 'the input is not mutated');
    assert.equal(restoredJson(result), before);
  });

  test('keeps thinking and tool_use blocks verbatim around an Anthropic text block', () => {
    const input = anthropic();
    const result = compress(input, { recencyWindow: 1 });
    const content = result.messages[0].content;
    assert.deepEqual(
      content.map((part) => part.type),
      ['thinking', 'text', 'tool_use'],
    );
    assert.ok(content[1].text.startsWith('[summary: '));
    assert.equal(content[0], input[0].content[0]);
    assert.equal(content[2], input[0].content[2]);
    assert.equal(result.messages[1], input[1], 'a tool_result without text is left alone');
    assert.equal(restoredJson(result), JSON.stringify(input));
  });

  test('never merges two messages with parts, nor deduplicates them', () => {
    const withParts = (id) => ({
      id,
      role: 'user',
      content: [{ type: 'text', text: PROSE }, image()],
    });
    const input = [
      withParts('u1'),
      withParts('u2'),
      { id: 'a1', role: 'assistant', content: 'ok' },
    ];
    const result = compress(input, { recencyWindow: 1 });
    assert.equal(result.messages.length, 3);
    assert.equal(result.compression.messages_deduped, undefined);
    for (const m of result.messages.slice(0, 2)) {
      assert.equal(m.metadata._cce_original.ids.length, 1);
      assert.equal(m.content[1].type, 'image_url');
    }
    const reference = compress(input, { recencyWindow: 1, compat: 'cce-1.0' });
    assert.equal(reference.messages[0], input[0], 'the reference sees array content as ""');
  });

  test('counts images with imageTokens in every budget decision', () => {
    const input = openAi();
    const result = compress(input, { tokenBudget: 800 });
    assert.equal(result.fits, true);
    assert.ok(result.tokenCount > 765, 'the image counts 765 tokens');
    assert.equal(result.compression.messages_compressed, 1);
    const cheap = compress(input, { tokenBudget: 800, imageTokens: 85 });
    assert.equal(cheap.messages, input, 'with cheap images the input fits as it is');
    assert.throws(
      () => compress(input, { imageTokens: -1 }),
      (e) => e instanceof CompressError && e.path === '/options/imageTokens',
    );
  });

  test('a token counter sees the text parts as a string; images cost imageTokens', () => {
    const seen = [];
    // A counter written for string contents, as most tokenizer wrappers are.
    const counter = (m) => {
      seen.push(m);
      if (typeof m.content !== 'string') throw new TypeError('content is not a string');
      return Math.ceil(m.content.length / 3.5);
    };
    const textOf = (parts) =>
      parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
    const cost = (m) =>
      Array.isArray(m.content)
        ? counter({ ...m, content: textOf(m.content) }) +
          100 * m.content.filter((p) => p.type === 'image_url').length
        : counter(m);
    const input = openAi();
    // u1: 19 + 1 + 265 = 285 characters of text (82) + one image (100); a1 5, u2 3: 190 > 170
    // until summarised.
    assert.equal(input.reduce((n, m) => n + cost(m), 0), 190);
    const result = compress(input, { tokenBudget: 170, tokenCounter: counter, imageTokens: 100 });
    assert.equal(result.fits, true);
    assert.ok(seen.length > 0 && seen.every((m) => typeof m.content === 'string'));
    assert.ok(seen.some((m) => m.id === 'u1' && m.content.startsWith('[summary')));
    assert.ok(Array.isArray(result.messages[0].content), 'the output keeps its parts');
    assert.equal(result.tokenCount, result.messages.reduce((n, m) => n + cost(m), 0));
    assert.equal(restoredJson(result), JSON.stringify(input));
  });
});

describe('token estimate', () => {
  const cjk = () => [
    { id: 'sys', role: 'system', content: '回答要简洁。' },
    { id: 'u1', role: 'user', content: `${HAN}，${HAN}。`.repeat(7) },
    { id: 'a1', role: 'assistant', content: '好的，我会先备份数据库然后再迁移。' },
    { id: 'u2', role: 'user', content: '备份需要多长时间？' },
  ];

  test('counts CJK text by script by default and by length with tokenEstimate chars', () => {
    // 7 x 60 ideographs at 0.858 tokens each: the length estimate sees a third of that. The
    // script estimate bills 4 tokens a message too, so the search settles at window 1 (as the
    // golden safe-estimate-cjk-budget says).
    const script = compress(cjk(), { tokenBudget: 200 });
    assert.equal(script.fits, true);
    assert.equal(script.compression.messages_compressed, 1);
    assert.equal(script.tokenCount, 126);
    const chars = compress(cjk(), { tokenBudget: 200, tokenEstimate: 'chars' });
    assert.equal(chars.compression.messages_compressed, 0);
    assert.equal(chars.tokenCount, 134);
    const compat = compress(cjk(), { tokenBudget: 200, compat: 'cce-1.0' });
    assert.equal(compat.tokenCount, 134, 'compat keeps the reference\'s estimate');
  });

  test('rejects an unknown estimate with a typed error', () => {
    assert.throws(
      () => compress(cjk(), { tokenEstimate: 'words' }),
      (e) =>
        e instanceof CompressError &&
        e.code === 'InvalidInput' &&
        e.path === '/options/tokenEstimate',
    );
  });
});

describe('safe-mode golden cases of items 3, 5 and 7 through the package', () => {
  const dir = new URL('../../tests/golden/safe/', import.meta.url);
  for (const name of [
    'safe-summary-keeps-identifiers',
    'safe-multimodal-summary',
    'safe-estimate-cjk-budget',
    'safe-estimate-cjk-budget-chars',
  ]) {
    test(name, () => {
      const c = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
      const result = compress(c.input.messages, c.input.options);
      assert.deepEqual(JSON.parse(JSON.stringify(result)), c.expected.compress);
      assert.deepEqual(uncompress(result.messages, result.verbatim).messages, c.input.messages);
    });
  }
});

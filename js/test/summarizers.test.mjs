// SPDX-License-Identifier: MIT
// createSummarizer / createEscalatingSummarizer: the exact prompts and call semantics of spec §10.3.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEscalatingSummarizer, createSummarizer } from 'cce-wasm';

const TERMS =
  'code references, file paths, function/variable names, URLs, API keys, error messages, numbers, and technical decisions';
const prompt = ({
  system = '',
  instruction = 'Summarize the following conversation message concisely.',
  budget = 300,
  terms = TERMS,
  text,
}) =>
  `${system ? `${system}\n\n` : ''}${instruction}\nKeep the summary under ${budget} tokens.\n\nRules:\n` +
  `- Preserve all: ${terms}\n- Remove filler, pleasantries, and redundant explanations\n` +
  '- Keep the same technical register \u2014 do not simplify terminology\n' +
  `- Output ONLY the summary, no preamble\n\nText:\n${text}`;
const TERSE = 'Summarize the following conversation message as terse bullet points.';

function recorder(reply) {
  const prompts = [];
  const callLlm = (p) => {
    prompts.push(p);
    return typeof reply === 'function' ? reply(p, prompts.length) : reply;
  };
  return { prompts, callLlm };
}

describe('createSummarizer', () => {
  test('builds the normal prompt with the defaults', () => {
    const { prompts, callLlm } = recorder('reply');
    assert.equal(createSummarizer(callLlm)('Some text.'), 'reply');
    assert.deepEqual(prompts, [prompt({ text: 'Some text.' })]);
  });

  test('prefixes a systemPrompt and ignores an empty one', () => {
    const { prompts, callLlm } = recorder('r');
    createSummarizer(callLlm, { systemPrompt: 'You are terse.' })('t');
    createSummarizer(callLlm, { systemPrompt: '' })('t');
    assert.deepEqual(prompts, [
      prompt({ system: 'You are terse.', text: 't' }),
      prompt({ text: 't' }),
    ]);
  });

  test('halves the budget (at least 1) in aggressive mode', () => {
    const cases = [
      [300, 150],
      [301, 150],
      [1, 1],
      [0, 1],
      [-10, 1],
      [250.5, 125],
    ];
    for (const [maxResponseTokens, budget] of cases) {
      const { prompts, callLlm } = recorder('r');
      createSummarizer(callLlm, { mode: 'aggressive', maxResponseTokens })('x');
      assert.equal(
        prompts[0],
        prompt({ instruction: TERSE, budget, text: 'x' }),
        `max ${maxResponseTokens}`,
      );
    }
  });

  test('writes maxResponseTokens with JS number formatting in normal mode', () => {
    for (const [value, text] of [
      [0, '0'],
      [-10, '-10'],
      [250.5, '250.5'],
      [null, '300'],
    ]) {
      const { prompts, callLlm } = recorder('r');
      createSummarizer(callLlm, { maxResponseTokens: value })('x');
      assert.equal(prompts[0], prompt({ budget: text, text: 'x' }));
    }
  });

  test('appends preserveTerms that are not base terms, keeping order and repeats', () => {
    const { prompts, callLlm } = recorder('r');
    createSummarizer(callLlm, {
      preserveTerms: ['URLs', 'ticket ids', 'numbers', 'SKUs', 'ticket ids'],
    })('x');
    assert.equal(
      prompts[0],
      prompt({
        terms: `${TERMS.replace(', and technical decisions', ', technical decisions')}, ticket ids, SKUs, and ticket ids`,
        text: 'x',
      }),
    );
  });

  test('passes the reply, a Promise or a synchronous throw through unchanged', async () => {
    const boom = new Error('llm down');
    assert.throws(
      () =>
        createSummarizer(() => {
          throw boom;
        })('x'),
      (e) => e === boom,
    );
    const promise = Promise.resolve('async reply');
    assert.equal(createSummarizer(() => promise)('x'), promise);
    assert.equal(createSummarizer(() => 42)('x'), 42);
  });
});

describe('createEscalatingSummarizer', () => {
  test('returns the normal reply when it is a shorter non-empty string', async () => {
    const { prompts, callLlm } = recorder('ok');
    const summarize = createEscalatingSummarizer(callLlm, { mode: 'aggressive' });
    const pending = summarize('a longer text');
    assert.ok(pending instanceof Promise);
    assert.equal(await pending, 'ok');
    assert.deepEqual(prompts, [prompt({ text: 'a longer text' })], 'mode is ignored');
  });

  const escalations = {
    'too long': (p, n) => (n === 1 ? p : 'TERSE'),
    empty: (p, n) => (n === 1 ? '' : 'TERSE'),
    'not a string': (p, n) => (n === 1 ? 42 : 'TERSE'),
    'equally long': (p, n) => (n === 1 ? 'x'.repeat(9) : 'TERSE'),
    throwing: (p, n) => {
      if (n === 1) throw new Error('first');
      return 'TERSE';
    },
    rejecting: (p, n) => (n === 1 ? Promise.reject(new Error('first')) : Promise.resolve('TERSE')),
  };
  for (const [name, reply] of Object.entries(escalations)) {
    test(`escalates to terse bullet points after a ${name} first reply`, async () => {
      const { prompts, callLlm } = recorder(reply);
      assert.equal(
        await createEscalatingSummarizer(callLlm, { maxResponseTokens: 101 })('123456789'),
        'TERSE',
      );
      assert.deepEqual(prompts, [
        prompt({ budget: 101, text: '123456789' }),
        prompt({ instruction: TERSE, budget: 50, text: '123456789' }),
      ]);
    });
  }

  test('returns the second reply as is and propagates its failure', async () => {
    assert.equal(
      await createEscalatingSummarizer((p) => (p.includes('terse') ? 'much longer reply' : ''))(
        'short',
      ),
      'much longer reply',
    );
    const boom = new Error('second');
    await assert.rejects(
      createEscalatingSummarizer((p) => {
        if (p.includes('terse')) throw boom;
        return '';
      })('x'),
      (e) => e === boom,
    );
  });
});

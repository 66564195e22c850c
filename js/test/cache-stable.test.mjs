// SPDX-License-Identifier: MIT
// The integrations' cache-stable mode (issue 20 item 4; js/src/stable-native.ts) with the real
// `ai` and `@langchain/core` packages: a growing conversation keeps its compressed prefix byte
// for byte from call to call until the budget forces a recompression, every answer fits the
// budget and restores to its own input, the newest messages are sent as they came, and
// unrelated conversations through one middleware never borrow each other's answers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

import { compressionMiddleware } from 'cce-wasm/ai-sdk';
import { uncompress } from 'cce-wasm/formats';
import { compressionRunnable } from 'cce-wasm/langchain';
import { requestCompressor } from 'cce-wasm/request';
import { CompressError } from 'cce-wasm';

const LOG =
  'The deployment pipeline retries each failed stage twice before paging the on-call engineer. ' +
  'Stage logs are kept for thirty days in the artifacts bucket, and the retry policy is read from ci/retry.yaml. ';

/** Turn `t` of an agent conversation in the provider-level prompt shape (LanguageModelV3Prompt). */
function turn(t, topic = 'stage') {
  return [
    { role: 'user', content: [{ type: 'text', text: `Question ${t} about ${topic} ${t}: ${LOG}` }] },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `${topic}_${t}`, toolName: 'lookup', input: { stage: t } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `${topic}_${t}`,
          toolName: 'lookup',
          output: { type: 'text', value: `${topic} ${t} log:\n${LOG.repeat(4)}` },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: `${topic} ${t} is fine: ${LOG}` }] },
  ];
}

/** Prompts of a conversation that grows by one turn per call, each a fresh copy (the SDK builds
 * the provider-level prompt again for every call). */
function growing(turns, topic) {
  const prompts = [];
  const messages = [{ role: 'system', content: 'You are a build assistant.' }];
  for (let t = 0; t < turns; t++) {
    messages.push(...turn(t, topic));
    prompts.push(JSON.parse(JSON.stringify(messages)));
  }
  return prompts;
}

const json = (x) => JSON.stringify(x);
/** Whether `request` starts with every message of `before` (equal JSON). */
const extendsRequest = (request, before) =>
  before.length <= request.length && before.every((m, i) => json(m) === json(request[i]));

async function replay(middleware, prompts, results) {
  const sent = [];
  for (const prompt of prompts) {
    const params = await middleware.transformParams({ type: 'generate', params: { prompt } });
    sent.push(params.prompt);
  }
  assert.equal(results.length, prompts.length);
  return sent;
}

describe('AI SDK compressionMiddleware, cache-stable (default)', () => {
  const budget = 2500;

  test('the prefix stays byte-stable between calls until the budget forces a recompression', async () => {
    const prompts = growing(40, 'stage');
    const stable = [];
    const every = [];
    const sentStable = await replay(compressionMiddleware({ tokenBudget: budget, onCompress: (r) => stable.push(r) }), prompts, stable);
    const sentEvery = await replay(
      compressionMiddleware({ tokenBudget: budget, cacheStable: false, onCompress: (r) => every.push(r) }),
      prompts,
      every,
    );
    const changes = (sent) => sent.filter((p, i) => i > 0 && !extendsRequest(p, sent[i - 1])).length;
    const over = prompts.filter((p) => every[prompts.indexOf(p)].compression.ratio > 1).length;
    assert.ok(over >= 20, `most calls are over the budget (${over})`);
    // Compressing every call rewrites the prefix on (nearly) every call over the budget; the
    // stable mode only when what it appended no longer fits.
    assert.ok(changes(sentEvery) >= over - 2, `every-call prefix changes: ${changes(sentEvery)}`);
    assert.ok(changes(sentStable) * 3 <= changes(sentEvery), `stable prefix changes: ${changes(sentStable)} of ${changes(sentEvery)}`);
    for (let i = 0; i < prompts.length; i++) {
      assert.equal(stable[i].fits, true, `call ${i} fits`);
      assert.ok(stable[i].tokenCount <= budget);
      // The newest turn is sent as it came.
      assert.deepEqual(sentStable[i].slice(-4), prompts[i].slice(-4));
      // The answer restores to its own input.
      const back = uncompress(sentStable[i], stable[i].verbatim, { format: 'ai-sdk' });
      assert.equal(json(back.messages), json(prompts[i]), `call ${i} restores`);
    }
  });

  test('a call that extends an earlier answer appends to it without compressing again', async () => {
    const results = [];
    const middleware = compressionMiddleware({ tokenBudget: budget, onCompress: (r) => results.push(r) });
    const prompts = growing(12, 'stage');
    const sent = await replay(middleware, prompts, results);
    const extended = sent.filter((p, i) => i > 0 && extendsRequest(p, sent[i - 1]) && p.length === sent[i - 1].length + 4);
    assert.ok(extended.length >= 6, `calls that only appended: ${extended.length}`);
    // A recompression aims at half the budget, leaving room for the next turns.
    const recompressed = sent.findIndex((p, i) => i > 0 && !extendsRequest(p, sent[i - 1]));
    assert.ok(recompressed > 0);
    assert.ok(results[recompressed].tokenCount <= budget * 0.5 + 1, `after a recompression: ${results[recompressed].tokenCount}`);
  });

  test('unrelated conversations through one middleware never borrow each other’s answers', async () => {
    const results = [];
    const middleware = compressionMiddleware({ tokenBudget: budget, onCompress: (r) => results.push(r) });
    const a = growing(16, 'alpha');
    const b = growing(16, 'bravo');
    for (let i = 0; i < a.length; i++) {
      for (const [prompt, own, other] of [
        [a[i], 'alpha', 'bravo'],
        [b[i], 'bravo', 'alpha'],
      ]) {
        const { prompt: out } = await middleware.transformParams({ type: 'generate', params: { prompt } });
        const result = results.at(-1);
        assert.ok(!json(out).includes(other), `${own} call ${i} has nothing of ${other}`);
        assert.equal(result.fits, true);
        const back = uncompress(out, result.verbatim, { format: 'ai-sdk' });
        assert.equal(json(back.messages), json(prompt));
      }
    }
  });

  test('two forks of one conversation each get an answer that restores to their own input', async () => {
    const results = [];
    const middleware = compressionMiddleware({ tokenBudget: budget, onCompress: (r) => results.push(r) });
    const shared = growing(10, 'stage');
    await replay(middleware, shared, results);
    const base = shared.at(-1);
    const forkA = [...base, ...turn(10, 'alpha')];
    const forkB = [...base, ...turn(10, 'bravo')];
    for (const prompt of [forkA, forkB, [...forkA, ...turn(11, 'alpha')], [...forkB, ...turn(11, 'bravo')]]) {
      const { prompt: out } = await middleware.transformParams({ type: 'generate', params: { prompt: JSON.parse(JSON.stringify(prompt)) } });
      const result = results.at(-1);
      assert.equal(result.fits, true);
      assert.equal(json(uncompress(out, result.verbatim, { format: 'ai-sdk' }).messages), json(prompt));
      assert.deepEqual(out.slice(-4), prompt.slice(-4));
    }
  });

  test('a conversation edited in the middle is compressed afresh, not appended to', async () => {
    const results = [];
    const middleware = compressionMiddleware({ tokenBudget: budget, onCompress: (r) => results.push(r) });
    const prompts = growing(10, 'stage');
    await replay(middleware, prompts.slice(0, 9), results);
    const edited = JSON.parse(JSON.stringify(prompts[9]));
    edited[1].content[0].text = 'A different first question about ci/other.yaml';
    const { prompt: out } = await middleware.transformParams({ type: 'generate', params: { prompt: edited } });
    const back = uncompress(out, results.at(-1).verbatim, { format: 'ai-sdk' });
    assert.equal(json(back.messages), json(edited));
  });

  /** A generateText tool loop of 12 steps through the middleware: the prompts the model got. */
  async function toolLoop(options) {
    const prompts = [];
    const results = [];
    let call = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (o) => {
        prompts.push(o.prompt);
        call++;
        const content =
          call < 12
            ? [{ type: 'tool-call', toolCallId: `call_${call}`, toolName: 'lookup', input: JSON.stringify({ stage: call }) }]
            : [{ type: 'text', text: 'ci/retry.yaml' }];
        return {
          content,
          finishReason: { unified: call < 12 ? 'tool-calls' : 'stop', raw: undefined },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 5, text: 5, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
    const middleware = compressionMiddleware({ tokenBudget: 1100, onCompress: (r) => results.push(r), ...options });
    await generateText({
      model: wrapLanguageModel({ model, middleware }),
      system: 'You are a build assistant.',
      messages: growing(3, 'stage').at(-1).slice(1),
      tools: {
        lookup: tool({
          inputSchema: jsonSchema({ type: 'object', properties: { stage: { type: 'number' } } }),
          execute: async ({ stage }) => `stage ${stage} log:\n${LOG.repeat(3)}`,
        }),
      },
      stopWhen: stepCountIs(14),
    });
    const changes = prompts.filter((p, i) => i > 0 && !extendsRequest(p, prompts[i - 1])).length;
    return { prompts, results, changes };
  }

  test('generateText with a tool loop: steps extend the previous prompt while it fits', async () => {
    const stable = await toolLoop({});
    const every = await toolLoop({ cacheStable: false });
    assert.equal(stable.prompts.length, 12);
    assert.ok(stable.results.every((r) => r.fits === true && r.tokenCount <= 1100));
    assert.ok(every.results.filter((r) => r.compression.ratio > 1).length >= 8, 'the loop went over the budget');
    assert.ok(every.changes >= 8, `every step: ${every.changes}`);
    assert.ok(stable.changes * 2 <= every.changes, `prefix changes in 12 steps: ${stable.changes} (every step: ${every.changes})`);
  });

  test('bad cacheStable settings are a CompressError', () => {
    assert.throws(() => compressionMiddleware({ tokenBudget: 10, cacheStable: { target: 0 } }), CompressError);
    assert.throws(() => compressionMiddleware({ tokenBudget: 10, cacheStable: { conversations: 0 } }), CompressError);
    assert.throws(() => compressionMiddleware({ tokenBudget: 10, cacheStable: 'yes' }), CompressError);
  });
});

describe('LangChain compressionRunnable, cache-stable (default)', () => {
  function conversation(turns) {
    const messages = [];
    for (let t = 0; t < turns; t++) {
      messages.push(new HumanMessage(`Question ${t}: ${LOG}`));
      messages.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'lookup', args: { stage: t } }] }));
      messages.push(new ToolMessage({ content: `stage ${t} log:\n${LOG.repeat(4)}`, tool_call_id: `c${t}` }));
      messages.push(new AIMessage(`stage ${t} is fine: ${LOG}`));
    }
    return messages;
  }

  test('growing input keeps the compressed prefix, each answer fits and ends with the newest turn', async () => {
    const all = conversation(30);
    const run = async (options) => {
      const step = compressionRunnable({ tokenBudget: 2500, ...options });
      const sent = [];
      for (let n = 4; n <= all.length; n += 4) sent.push((await step(all.slice(0, n))).map((m) => json(m)));
      return sent;
    };
    const stable = await run({});
    const every = await run({ cacheStable: false });
    const changes = (sent) => sent.filter((p, i) => i > 0 && !extendsRequest(p, sent[i - 1])).length;
    assert.ok(changes(every) >= 15, `every call: ${changes(every)}`);
    assert.ok(changes(stable) * 3 <= changes(every), `stable: ${changes(stable)} of ${changes(every)}`);
    stable.forEach((p, i) => {
      const newest = all.slice(4 * i, 4 * i + 4).map((m) => json(m));
      assert.deepEqual(p.slice(-4), newest, `call ${i} ends with its newest turn`);
    });
  });
});

describe('requestCompressor (cce-wasm/request), cache-stable (default)', () => {
  /** Anthropic Messages bodies of a conversation that grows by one turn per request. */
  function bodies(turns, topic) {
    const out = [];
    const messages = [];
    for (let t = 0; t < turns; t++) {
      messages.push(
        { role: 'user', content: `Question ${t} about ${topic}: ${LOG}` },
        { role: 'assistant', content: [{ type: 'tool_use', id: `${topic}${t}`, name: 'lookup', input: { stage: t } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `${topic}${t}`, content: `${topic} ${t} log:\n${LOG.repeat(4)}` }] },
        { role: 'assistant', content: `${topic} ${t} is fine: ${LOG}` },
      );
      out.push({ model: 'claude', max_tokens: 500, system: 'You are a build assistant.', messages: JSON.parse(JSON.stringify(messages)) });
    }
    return out;
  }

  test('a proxy serving two conversations keeps each one’s prefix and never mixes them', () => {
    const results = [];
    const forward = requestCompressor({ provider: 'anthropic', contextWindow: 3000, onCompress: (r) => results.push(r) });
    const plain = requestCompressor({ provider: 'anthropic', contextWindow: 3000, cacheStable: false });
    const a = bodies(24, 'alpha');
    const b = bodies(24, 'bravo');
    const sent = { alpha: [], bravo: [] };
    const sentPlain = [];
    for (let i = 0; i < a.length; i++) {
      for (const [body, own, other] of [
        [a[i], 'alpha', 'bravo'],
        [b[i], 'bravo', 'alpha'],
      ]) {
        const out = forward(body);
        assert.equal(out.system, body.system);
        assert.equal(out.max_tokens, 500);
        assert.ok(!json(out.messages).includes(other));
        assert.equal(results.at(-1).fits, true);
        assert.ok(results.at(-1).tokenCount <= 2500);
        const back = uncompress(out.messages, results.at(-1).verbatim, { format: 'anthropic' });
        assert.equal(json(back.messages), json(body.messages));
        sent[own].push(out.messages);
      }
      sentPlain.push(plain(a[i]).messages);
    }
    const changes = (list) => list.filter((p, i) => i > 0 && !extendsRequest(p, list[i - 1])).length;
    assert.ok(changes(sentPlain) >= 12, `every request: ${changes(sentPlain)}`);
    assert.ok(changes(sent.alpha) * 3 <= changes(sentPlain), `alpha: ${changes(sent.alpha)} of ${changes(sentPlain)}`);
    assert.ok(changes(sent.bravo) * 3 <= changes(sentPlain), `bravo: ${changes(sent.bravo)}`);
  });
});

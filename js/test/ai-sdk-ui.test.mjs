// SPDX-License-Identifier: MIT
// AI SDK UIMessages (`useChat`'s `{ id, role, parts }`) in every entry: compress (cce-wasm/formats
// and cce-wasm/ai-sdk), the context manager and compaction. Checked with the real `ai` package:
// every answer passes its validateUIMessages, and convertToModelMessages makes of it a prompt the
// ai-sdk validator accepts. A tool part holds its call and its result, so it is kept whole: only
// its output (or errorText) may be rewritten.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { convertToModelMessages, DefaultChatTransport, validateUIMessages } from 'ai';

import { compressAiSdkMessages } from 'cce-wasm/ai-sdk';
import { compact, fromMessages, project } from 'cce-wasm/compaction';
import { ContextManager, createContextManager } from 'cce-wasm/context';
import { compress, detectFormat, uncompress, validate } from 'cce-wasm/formats';

import { assertToolPartsWhole, chat, checkUiAnswers, toolParts } from './support/ui-chat.mjs';

/** The checks every answer passes: the SDK's own validation, and its model prompt is valid. */
const assertValidForTheSdk = (messages, label) =>
  checkUiAnswers({ convertToModelMessages, validateUIMessages }, messages, label);

describe('compress: UIMessages', () => {
  test('are detected as ai-sdk-ui (parts, no content)', () => {
    assert.equal(detectFormat(chat(1)), 'ai-sdk-ui');
    assert.equal(detectFormat([{ role: 'user', content: 'hi' }]), 'openai-chat');
  });

  test('at every budget: fits, valid for the SDK, tool parts whole, exact round trip, input untouched', async () => {
    const input = chat();
    const before = JSON.stringify(input);
    const all = compress(chat(), { tokenBudget: 1e9 }).tokenCount;
    for (const share of [0.8, 0.5, 0.3, 0.15]) {
      const tokenBudget = Math.round(all * share);
      const result = compress(input, { tokenBudget });
      const label = `budget ${tokenBudget} of ${all}`;
      assert.equal(result.fits, true, label);
      assert.ok(result.tokenCount <= tokenBudget, label);
      assert.ok(JSON.stringify(result.messages).length < before.length, label);
      await assertValidForTheSdk(result.messages, label);
      assertToolPartsWhole(input, result.messages, label);
      assert.equal(result.messages.at(-1), input.at(-1), `${label}: the newest message is the caller's own`);
      assert.equal(JSON.stringify(input), before, `${label}: input untouched`);
      assert.equal(JSON.stringify(uncompress(result.messages, result.verbatim).messages), before, label);
    }
  });

  test('counts what convertToModelMessages sends (within 5 %)', async () => {
    const input = chat();
    for (const tokenBudget of [1e9, 1500]) {
      const result = compress(input, { tokenBudget });
      const model = await convertToModelMessages(result.messages);
      const sent = compress(model, { format: 'ai-sdk', tokenBudget: 1e9 }).tokenCount;
      assert.ok(Math.abs(result.tokenCount - sent) <= 0.05 * sent, `${result.tokenCount} against ${sent}`);
    }
  });

  test('approvals and streaming inputs: counted as the SDK sends them, kept as they are', async () => {
    const input = chat(4);
    const last = input.at(-2);
    const denied = { type: 'tool-deploy', toolCallId: 'deny_1', state: 'output-denied', input: { env: 'prod' }, approval: { id: 'ap_1', approved: false, reason: 'Not during the freeze.' } };
    const asked = { type: 'tool-deploy', toolCallId: 'ask_1', state: 'approval-requested', input: { env: 'staging' }, approval: { id: 'ap_2' } };
    const streaming = { type: 'tool-deploy', toolCallId: 'stream_1', state: 'input-streaming', input: { env: 'st' } };
    input[1] = { ...input[1], parts: [...input[1].parts, { type: 'step-start' }, denied] };
    input[input.length - 2] = { ...last, parts: [...last.parts, { type: 'step-start' }, asked, streaming] };
    await validateUIMessages({ messages: input });
    const full = compress(input, { tokenBudget: 1e9 });
    const sent = compress(await convertToModelMessages(input), { format: 'ai-sdk', tokenBudget: 1e9 }).tokenCount;
    assert.ok(Math.abs(full.tokenCount - sent) <= 0.05 * sent, `${full.tokenCount} against ${sent}`);
    for (const tokenBudget of [1500, 800]) {
      const result = compress(input, { tokenBudget });
      assert.equal(result.fits, true);
      await validateUIMessages({ messages: result.messages });
      for (const part of [denied, asked, streaming]) {
        const found = toolParts(result.messages).find((p) => p.toolCallId === part.toolCallId);
        if (found) assert.deepEqual(found, part, `${part.toolCallId} at ${tokenBudget}`);
      }
      assert.ok(toolParts(result.messages).some((p) => p.toolCallId === 'stream_1'), 'the newest turn keeps its streaming call');
    }
  });

  test('a tool output summarised stays a result (errorText for an error)', () => {
    const result = compress(chat(), { tokenBudget: 2500 });
    const rewritten = toolParts(result.messages).filter((p) => typeof p.output === 'string' && p.type === 'tool-readLogs');
    assert.ok(rewritten.length > 0, 'some structured output became text');
    const error = toolParts(result.messages).find((p) => p.toolCallId === 'call_2');
    if (error) assert.equal(typeof error.errorText, 'string');
  });

  test('compressAiSdkMessages takes UIMessages too (it used to pass them through and report 12 tokens)', async () => {
    const input = chat();
    const viaFormats = compress(input, { tokenBudget: 1500 });
    const viaAiSdk = await compressAiSdkMessages(input, { tokenBudget: 1500 });
    assert.equal(viaAiSdk.fits, true);
    assert.ok(viaAiSdk.tokenCount <= 1500 && viaAiSdk.tokenCount > 500, String(viaAiSdk.tokenCount));
    assert.deepEqual(viaAiSdk.messages, viaFormats.messages);
  });

  test("useChat's transport sends the compressed history (prepareSendMessagesRequest)", async () => {
    const input = chat();
    const sent = [];
    const transport = new DefaultChatTransport({
      api: '/api/chat',
      prepareSendMessagesRequest: async ({ id, messages }) => ({
        body: { id, messages: (await compressAiSdkMessages(messages, { tokenBudget: 1500 })).messages },
      }),
      fetch: async (url, init) => {
        sent.push(JSON.parse(init.body));
        return new Response('data: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } });
      },
    });
    await transport.sendMessages({ chatId: 'c1', messages: input, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
    assert.equal(sent.length, 1);
    const { messages } = sent[0];
    assert.ok(JSON.stringify(messages).length < JSON.stringify(input).length / 2);
    assert.equal(compress(messages, { tokenBudget: 1e9 }).tokenCount <= 1500, true);
    await assertValidForTheSdk(messages, 'sent');
    assertToolPartsWhole(input, messages, 'sent');
  });

  test('UIMessages mixed with ModelMessages are a typed error naming the first odd one', async () => {
    const [system, user] = chat(1);
    await assert.rejects(compressAiSdkMessages([system, user, { role: 'assistant', content: 'ok' }]), {
      name: 'CompressError',
      code: 'InvalidInput',
      path: '/messages/2',
    });
    await assert.rejects(compressAiSdkMessages([{ role: 'user', content: 'hi' }, user]), { code: 'InvalidInput', path: '/messages/1' });
  });

  test('validate names what the SDK or a provider would refuse', () => {
    const [system, user, assistant] = chat(1);
    const twice = { ...assistant, id: 'again' };
    const codes = (messages) => validate(messages, { format: 'ai-sdk-ui' }).map((p) => p.code);
    assert.deepEqual(codes([system, user, assistant]), []);
    assert.ok(codes([user, assistant, twice]).includes('duplicate-call-id'));
    assert.ok(codes([{ id: 'x', role: 'user', parts: [assistant.parts[2]] }]).includes('bad-part'));
    const { output: _, ...noOutput } = assistant.parts[2];
    assert.ok(codes([user, { ...assistant, parts: [noOutput] }]).includes('bad-part'));
    assert.ok(codes([{ id: 'x', role: 'user', parts: [] }]).includes('empty-content'));
    assert.ok(codes([{ id: 'x', role: 'tool', parts: [{ type: 'text', text: 'x' }] }]).includes('bad-role'));
  });
});

describe('context manager: UIMessages', () => {
  test('a useChat history replayed: every view valid for the SDK, summaries with ids, history exact, restored', async () => {
    const input = chat(8);
    const manager = createContextManager({ contextWindow: 4000, promptBudget: 500, keepLast: 2 });
    let compressions = 0;
    for (const message of input) {
      manager.add(message);
      if (manager.compressIfNeeded().some((o) => o.compressed)) compressions++;
      const { messages } = manager.view();
      await assertValidForTheSdk(messages, `after ${message.id}`);
      assertToolPartsWhole(input, messages, `after ${message.id}`);
    }
    assert.ok(compressions > 0);
    const view = manager.view();
    const summaries = view.messages.filter((m) => !input.includes(m) && m.metadata?.covered_until !== undefined);
    assert.ok(summaries.length > 0);
    for (const s of summaries) assert.equal(typeof s.id, 'string');
    assert.equal(JSON.stringify(manager.history), JSON.stringify(input));
    const restored = ContextManager.fromJSON(JSON.stringify(manager.toJSON()));
    assert.deepEqual(restored.view().messages, view.messages);
  });
});

describe('compaction: UIMessages', () => {
  test('the default profile clears old tool results and reasoning; the view stays valid', async () => {
    const input = chat(6);
    const { conversation } = compact(fromMessages(input), { profile: 'default' });
    const { view } = project(conversation, { format: 'messages' });
    assert.equal(view.format, 'ai-sdk-ui');
    await assertValidForTheSdk(view.messages, 'compacted');
    // The profile clears both sides of an old call: its result and its input ({}).
    const originals = new Map(toolParts(input).map((p) => [p.toolCallId, p]));
    for (const part of toolParts(view.messages)) {
      const { output: _o, errorText: _e, input: given, ...rest } = part;
      const { output: _oo, errorText: _ee, input: original, ...originalRest } = originals.get(part.toolCallId);
      assert.deepEqual(rest, originalRest, part.toolCallId);
      assert.ok(JSON.stringify(given) === '{}' || given === original, part.toolCallId);
    }
    const first = view.messages.find((m) => m.id === 'a0');
    assert.match(first.parts.find((p) => p.toolCallId === 'call_0').output, /^\[compacted\]/);
    assert.ok(!first.parts.some((p) => p.type === 'reasoning'), 'old reasoning cleared');
    const newest = view.messages.find((m) => m.id === 'a5');
    assert.deepEqual(newest, input.find((m) => m.id === 'a5'), 'the recent turns stay as they were');
  });
});

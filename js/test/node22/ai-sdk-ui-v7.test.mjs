// SPDX-License-Identifier: MIT
// AI SDK 7's UIMessages: the useChat history of js/test/ai-sdk-ui.test.mjs compressed at several
// budgets and kept by a context manager; every answer passes ai 7's validateUIMessages and its
// convertToModelMessages gives a prompt the ai-sdk validator accepts. Runs under Node 22 (ai 7).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as ai7 from 'ai-v7';

import { compressAiSdkMessages } from 'cce-wasm/ai-sdk';
import { createContextManager } from 'cce-wasm/context';
import { compress, uncompress } from 'cce-wasm/formats';

import { assertToolPartsWhole, chat, checkUiAnswers } from '../support/ui-chat.mjs';

test('ai 7: compressed UIMessages pass validateUIMessages and convert to a valid prompt', async () => {
  const input = chat();
  const before = JSON.stringify(input);
  const all = compress(input, { tokenBudget: 1e9 }).tokenCount;
  for (const share of [0.6, 0.3, 0.15]) {
    const tokenBudget = Math.round(all * share);
    const label = `budget ${tokenBudget} of ${all}`;
    const result = await compressAiSdkMessages(input, { tokenBudget });
    assert.equal(result.fits, true, label);
    assert.ok(result.tokenCount <= tokenBudget, label);
    await checkUiAnswers(ai7, result.messages, label);
    assertToolPartsWhole(input, result.messages, label);
    assert.equal(JSON.stringify(uncompress(result.messages, result.verbatim).messages), before, label);
  }
});

test('ai 7: a context manager over a useChat history answers valid UIMessages', async () => {
  const input = chat(8);
  const manager = createContextManager({ contextWindow: 4000, promptBudget: 500, keepLast: 2 });
  let compressed = false;
  for (const message of input) {
    manager.add(message);
    compressed = manager.compressIfNeeded().some((o) => o.compressed) || compressed;
    await checkUiAnswers(ai7, manager.view().messages, `after ${message.id}`);
  }
  assert.ok(compressed);
});

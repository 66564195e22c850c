// SPDX-License-Identifier: MIT
// cce-wasm/ai-sdk with AI SDK 5 (`ai` ^5 is in the peer range): the shared scenario's middleware
// tests through ai 5's MockLanguageModelV2 (a V2 middleware reads the same transformParams),
// compressionStep in an ai 5 tool loop, and useChat's UIMessages as ai 5 validates and converts
// them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as ai5 from 'ai-v5';
import { MockLanguageModelV2, convertArrayToReadableStream } from 'ai-v5/test';

import { compressAiSdkMessages } from 'cce-wasm/ai-sdk';

import { middlewareTests, prepareStepRun } from './support/ai-sdk-scenario.mjs';
import { assertToolPartsWhole, chat, checkUiAnswers } from './support/ui-chat.mjs';

const { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } = ai5;
const IMAGE = { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' };

test('the tests run the real ai 5', async () => {
  const { createRequire } = await import('node:module');
  const version = createRequire(import.meta.url)('ai-v5/package.json').version;
  assert.match(version, /^5\./);
});

describe('ai 5: compressionMiddleware with wrapLanguageModel', () =>
  middlewareTests({ generateText, streamText, stepCountIs, wrapLanguageModel, tool, jsonSchema }, { MockModel: MockLanguageModelV2, convertArrayToReadableStream, v2: true }, IMAGE));

describe('ai 5: compressionStep for prepareStep', () => {
  test('each step of an agent loop sends compressed, valid ModelMessages', async () => {
    await prepareStepRun(ai5, { MockModel: MockLanguageModelV2, convertArrayToReadableStream, v2: true }, IMAGE);
  });
});

describe('ai 5: UIMessages', () => {
  test("useChat's history compressed: validateUIMessages passes and convertToModelMessages gives a valid prompt", async () => {
    const input = chat();
    const all = (await compressAiSdkMessages(input, { tokenBudget: 1e9 })).tokenCount;
    for (const share of [0.5, 0.2]) {
      const tokenBudget = Math.round(all * share);
      const result = await compressAiSdkMessages(input, { tokenBudget });
      assert.equal(result.fits, true);
      await checkUiAnswers(ai5, result.messages, `budget ${tokenBudget}`);
      assertToolPartsWhole(input, result.messages, `budget ${tokenBudget}`);
    }
  });
});

// SPDX-License-Identifier: MIT
// cce-wasm/langchain with @langchain/core 0.3 (`^0.3` is in the peer range): compressed histories
// keep 0.3's message classes, tool_call_ids and SystemMessage, as a function and as a chain step
// (ChatPromptTemplate, RunnableLambda, a fake chat model of 0.3). The adapters read LangChain
// messages by their shape, so one code path serves both majors; this runs it on 0.3's objects.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';

import * as lc from 'langchain-core-v03/messages';
import { ChatPromptTemplate, MessagesPlaceholder } from 'langchain-core-v03/prompts';
import { RunnableLambda } from 'langchain-core-v03/runnables';
import { FakeListChatModel } from 'langchain-core-v03/utils/testing';

import { compressionRunnable } from 'cce-wasm/langchain';

import { chainStepRun, checkMessages as checkScenario, compressMessagesRun, history as scenarioHistory } from './support/langchain-scenario.mjs';

const history = (turns, options) => scenarioHistory(lc, turns, options);
const checkMessages = (out, input) => checkScenario(lc, out, input);

test('the tests run the real @langchain/core 0.3', () => {
  assert.match(createRequire(import.meta.url)('langchain-core-v03/package.json').version, /^0\.3\./);
});

describe('@langchain/core 0.3: compressMessages', () => {
  test("keeps 0.3's classes, tool_call_ids and the SystemMessage; the input is untouched", () => {
    compressMessagesRun(lc);
  });
});

describe('@langchain/core 0.3: as a chain step', () => {
  test('prompt.pipe(compressionRunnable).pipe(model): the model receives the compressed history', async () => {
    await chainStepRun({ ChatPromptTemplate, MessagesPlaceholder, FakeListChatModel }, lc);
  });

  test('RunnableLambda.from(compressionRunnable(...)) takes messages', async () => {
    const input = history(6);
    checkMessages(await RunnableLambda.from(compressionRunnable({ tokenBudget: 1500 })).invoke(input), input);
  });
});

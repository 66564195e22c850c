// SPDX-License-Identifier: MIT
// Compile-only type tests of the integrations against the real packages' types: the AI SDK
// middleware and prepareStep helper, the LangChain chain step and agent middleware, and
// compressRequest's bodies.
import { DefaultChatTransport, generateText, wrapLanguageModel, type LanguageModel, type ModelMessage, type UIMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { BaseMessage } from '@langchain/core/messages';
import { RunnableLambda } from '@langchain/core/runnables';
import { createMiddleware } from 'langchain';

import { compressAiSdkMessages, compressionMiddleware, compressionStep } from 'cce-wasm/ai-sdk';
import { compressMessages, compressionMiddleware as langChainMiddleware, compressionRunnable } from 'cce-wasm/langchain';
import { compressRequest } from 'cce-wasm/request';

const model: LanguageModel = wrapLanguageModel({
  model: new MockLanguageModelV3(),
  middleware: compressionMiddleware({ contextWindow: 128_000 }),
});
const messages: ModelMessage[] = [{ role: 'user', content: 'hi' }];
void generateText({ model, messages, prepareStep: compressionStep({ tokenBudget: 1000 }) });

// @ts-expect-error the budget is a number
compressionMiddleware({ tokenBudget: '1000' });

// useChat's UIMessages come back as UIMessages, as a transport's request body.
declare const chat: UIMessage[];
const shorter: Promise<UIMessage[]> = compressAiSdkMessages(chat, { tokenBudget: 1000 }).then((r) => r.messages);
void shorter;
void new DefaultChatTransport<UIMessage>({
  prepareSendMessagesRequest: async ({ id, messages: list }) => ({
    body: { id, messages: (await compressAiSdkMessages(list, { tokenBudget: 1000 })).messages },
  }),
});

declare const history: BaseMessage[];
const kept: BaseMessage[] = compressMessages(history, { tokenBudget: 1000 });
void kept;
const step = RunnableLambda.from(compressionRunnable<BaseMessage>({ tokenBudget: 1000 }));
void step;
void createMiddleware(langChainMiddleware({ tokenBudget: 1000 }));

const body = { model: 'gpt-4.1', messages: [{ role: 'user' as const, content: 'hi' }], temperature: 0 };
const same: typeof body = compressRequest(body, { provider: 'openai-chat', tokenBudget: 1000 });
void same;
// @ts-expect-error an unknown provider
compressRequest(body, { provider: 'gemini' });
void createMiddleware(langChainMiddleware({ tokenBudget: 1000, hook: 'beforeModel' }));
// @ts-expect-error an unknown hook
langChainMiddleware({ hook: 'afterModel' });

// SPDX-License-Identifier: MIT
// Compile-only type tests of cce-wasm/ai-sdk against ai 7's own types (installed as `ai-v7`):
// the middleware is a LanguageModelMiddleware, the step helper a prepareStep, and the message
// helpers take and give ai 7's ModelMessages (tagged file data, custom and reasoning-file parts).
import {
  DefaultChatTransport,
  generateText,
  wrapLanguageModel,
  type LanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
  type UIMessage,
} from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';

import { compressAiSdkMessages, compressionMiddleware, compressionStep } from 'cce-wasm/ai-sdk';

const middleware: LanguageModelMiddleware = compressionMiddleware({ contextWindow: 128_000 });
const model: LanguageModel = wrapLanguageModel({ model: new MockLanguageModelV4(), middleware });
const messages: ModelMessage[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Read the notes.' },
      { type: 'file', mediaType: 'text/plain', data: { type: 'text', text: 'retry: 2' } },
      { type: 'file', mediaType: 'image', data: { type: 'url', url: new URL('https://example.com/a.png') } },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'custom', kind: 'openai.compaction' },
      { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: new Uint8Array(8) } },
      { type: 'text', text: 'Done.' },
    ],
  },
];
void generateText({ model, messages, prepareStep: compressionStep({ tokenBudget: 1000 }) });
void compressAiSdkMessages(messages, { tokenBudget: 1000 }).then((result) => {
  const kept: ModelMessage[] = result.messages;
  void kept;
});

// @ts-expect-error ai 7's middleware slot does not take a prepareStep helper
wrapLanguageModel({ model: new MockLanguageModelV4(), middleware: compressionStep() });

// useChat's UIMessages come back as UIMessages, as a transport's request body.
declare const chat: UIMessage[];
const shorter: Promise<UIMessage[]> = compressAiSdkMessages(chat, { tokenBudget: 1000 }).then((r) => r.messages);
void shorter;
void new DefaultChatTransport<UIMessage>({
  prepareSendMessagesRequest: async ({ id, messages: list }) => ({
    body: { id, messages: (await compressAiSdkMessages(list, { tokenBudget: 1000 })).messages },
  }),
});

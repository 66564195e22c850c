// SPDX-License-Identifier: MIT
// Compile-only type tests of cce-wasm/formats (tsc --noEmit --strict; see js/test/tsconfig.json).
import type { Message } from 'cce-wasm';
import {
  aiSdkUiFormat,
  anthropicFormat,
  compress,
  compressWith,
  uncompress,
  uncompressWith,
  validate,
  type AiSdkUiMessage,
  type AnthropicMessage,
  type FormatProblem,
  type MessageFormat,
  type NativeCompressResult,
  type NativeUncompressResult,
} from 'cce-wasm/formats';

const anthropic: AnthropicMessage[] = [{ role: 'user', content: 'hi' }];

// A named format answers in that format.
const native: NativeCompressResult<AnthropicMessage> = compress(anthropic, { format: 'anthropic', system: 'Be brief.' });
const back: AnthropicMessage[] = uncompress(native.messages, native.verbatim).messages;
const clearedNative: NativeCompressResult<AnthropicMessage> = compress(anthropic, {
  format: 'anthropic',
  clearToolResults: { keep: 2, clearInputs: true },
  clearReasoning: { keep: 1 },
});
const later: Promise<NativeCompressResult<AnthropicMessage>> = compress(anthropic, {
  format: 'anthropic',
  summarizer: async (text: string) => text.slice(0, 10),
});

// The engine dialect keeps its own types.
const messages: Message[] = [{ id: '1', role: 'user', content: 'hi' }];
const dialect = compress(messages);
const firstId: string = dialect.messages[0]!.id;

// One adapter.
const one = compressWith(anthropicFormat, anthropic, { tokenBudget: 1000 });
const restored: NativeUncompressResult<AnthropicMessage> = uncompressWith(anthropic, {});
const problems: FormatProblem[] = validate(anthropic, { format: 'anthropic' });
const format: MessageFormat = 'openai-responses';

// useChat's UIMessages.
const ui: AiSdkUiMessage[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }];
const uiResult: NativeCompressResult<AiSdkUiMessage> = compress(ui, { format: 'ai-sdk-ui', tokenBudget: 100 });
const uiOne = compressWith(aiSdkUiFormat, ui, { tokenBudget: 100 });
const uiFormat: MessageFormat = 'ai-sdk-ui';

// @ts-expect-error: not a format
compress(anthropic, { format: 'gemini' });

export { back, firstId, format, later, one, problems, restored, uiFormat, uiOne, uiResult };

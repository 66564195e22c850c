// SPDX-License-Identifier: MIT
// Token estimates: the reference's default (spec §1.8) and the default mode's script-aware one.
import { CompressError } from './errors.js';
import { estimateTextTokens } from './transport.js';
import type { Message } from './types.js';

/**
 * The reference's estimate: `ceil(content.length / 3.5)` for string content (UTF-16 code units),
 * else 0. With `compat: 'cce-1.0'` it is also the engine's default counter.
 */
export function defaultTokenCounter(message: Message): number {
  return typeof message.content === 'string' ? Math.ceil(message.content.length / 3.5) : 0;
}

/**
 * The estimate `compress` uses by default (`tokenEstimate: 'script'`) for a text: CJK
 * ideographs, kana and hangul about one token each, Latin words, digit groups and punctuation
 * runs roughly as a BPE tokenizer splits them (within 4-9 % of o200k_base on real chats). Use it to
 * show a user the same counts the compressor budgets with: `compress` counts a message as the
 * estimate of its text, plus 4 tokens, plus for each tool call 3 tokens and the estimates of its
 * `function.name` and `function.arguments`, plus per image part OpenAI's price of its pixel size
 * (inline data) or `imageTokens` (the default mode with no `tokenCounter`; docs/token-counts.md).
 *
 * @example
 * estimateTokens('hello world') // 2
 * @throws {CompressError} `InvalidInput` when `text` is not a string.
 */
export function estimateTokens(text: string): number {
  if (typeof text !== 'string') {
    throw new CompressError('InvalidInput', 'estimateTokens(): text must be a string', '/text');
  }
  return estimateTextTokens(text);
}

/**
 * Tokens a provider bills per message beyond its text (role and separators: OpenAI documents 3,
 * plus one for the name or id fields most messages carry). The default estimate adds it to every
 * message (src/pipeline.h kMessageOverheadTokens holds the same number).
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens billed per tool call beyond the estimates of its name and arguments (the same as
 * src/pipeline.h kToolCallOverheadTokens). */
export const TOOL_CALL_OVERHEAD_TOKENS = 3;

/**
 * @internal The texts the default estimate bills for one element of `tool_calls`: its
 * `function.name` and `function.arguments`, each when it is a string, else "" (OpenAI Chat sends
 * arguments as JSON text). src/request.cpp reads the same from JSON.
 */
export function toolCallTexts(call: unknown): [string, string] {
  const fn = (call as Record<string, Record<string, unknown> | undefined> | null)?.function;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  return [text(fn?.name), text(fn?.arguments)];
}

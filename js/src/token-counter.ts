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
 * show a user the same counts the compressor budgets with.
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

// SPDX-License-Identifier: MIT
// compress's cache-stable mode (issue 20, item 4): given the previous result, a conversation that
// only grew is answered with the previous output plus the new messages, byte for byte, while that
// fits the budget; only when it does not is the whole conversation compressed again, to a lower
// target so the next appends have room. A provider's prompt cache then reads the old prefix at its
// discount on every call but the recompressions (js/src/cache-cost.ts bills it).
import { compactionPoint, type CachePrices } from './cache-policy.js';
import { compress } from './engine.js';
import { CompressError } from './errors.js';
import {
  estimateTokens,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
  toolCallTexts,
} from './token-counter.js';
import type { CompressResult, Message, SyncCompressOptions } from './types.js';

/** Options of {@link compressStable}: compress's options, with a required `tokenBudget`. */
export interface StableCompressOptions extends SyncCompressOptions {
  tokenBudget: number;
  /** The result of the previous call for the same conversation (omit on the first call). */
  previous?: StableCompressResult | null;
  /**
   * A recompression aims at `target × tokenBudget` tokens (falling back to the whole budget when
   * that cannot fit), leaving the rest for appends: fewer, larger batches, each rewriting the
   * prefix once. Default 0.5.
   */
  target?: number;
  /**
   * The provider's cache prices (`{ provider: 'anthropic' | 'openai', ... }`): the output is also
   * recompressed before the budget forces it, once it has grown past the point where one rewrite
   * costs less than the reads it saves (`compactionPoint`, docs/cache-cost.md).
   */
  cacheCost?: CachePrices | null;
}

/** compress's result, plus what the next call needs to extend it. */
export interface StableCompressResult extends CompressResult {
  /** True when this output is the previous output with the new messages appended. */
  extended: boolean;
  /** The input this output stands for (your message objects, not copies). */
  input: readonly Message[];
  /** The tokens of `messages`, by the same count the budget uses. */
  tokenCount: number;
  /** Tokens right after the last recompression, and calls since (what `cacheCost` weighs). */
  compacted: { tokens: number; calls: number };
}

/**
 * Compresses like `compress(messages, { tokenBudget })`, but keeps the output's prefix stable from
 * call to call: when `messages` extends `options.previous.input` (same messages, by identity or
 * equal JSON, then new ones) and the previous output plus the new messages fits `tokenBudget`,
 * that is the output, with no engine call. Otherwise the conversation is compressed again to
 * `target × tokenBudget`. `uncompress(result.messages, result.verbatim)` restores `messages`
 * exactly either way. Synchronous; summarizers are not supported here.
 *
 * @example
 * let last = null;
 * for (const turn of turns) {
 *   history.push(turn);
 *   last = compressStable(history, { tokenBudget: 24000, previous: last });
 *   await callModel(last.messages); // the same prefix as the previous call until a recompression
 * }
 */
export function compressStable(
  messages: Message[],
  options: StableCompressOptions,
): StableCompressResult {
  if (!Array.isArray(messages)) {
    throw new CompressError('InvalidInput', 'compressStable(): messages must be an array', '/messages');
  }
  const budget = options?.tokenBudget;
  if (typeof budget !== 'number' || !Number.isFinite(budget) || budget < 0) {
    throw new CompressError(
      'InvalidInput',
      'compressStable(): options.tokenBudget must be a non-negative number',
      '/options/tokenBudget',
    );
  }
  const target = options.target ?? 0.5;
  if (typeof target !== 'number' || !(target > 0 && target <= 1)) {
    throw new CompressError(
      'InvalidInput',
      'compressStable(): options.target must be a number in (0, 1]',
      '/options/target',
    );
  }
  if ((options as { summarizer?: unknown }).summarizer != null) {
    throw new CompressError(
      'InvalidInput',
      'compressStable(): a summarizer is not supported; use compress',
      '/options/summarizer',
    );
  }
  const { previous, target: _target, cacheCost, ...rest } = options;
  const count = messageCounter(rest);
  if (previous && extends_(messages, previous.input)) {
    const added = messages.slice(previous.input.length);
    let tokens = previous.tokenCount;
    for (const m of added) tokens += count(m);
    const calls = (previous.compacted?.calls ?? 0) + 1;
    const after = previous.compacted?.tokens ?? previous.tokenCount;
    const due =
      cacheCost != null && tokens > compactionPoint(cacheCost, after, (tokens - after) / calls);
    if (tokens <= budget && !due) {
      return {
        ...previous,
        messages: previous.messages.concat(added),
        fits: true,
        tokenCount: tokens,
        extended: true,
        input: messages.slice(),
        compacted: { tokens: after, calls },
      };
    }
  }
  let result = compress(messages, { ...rest, tokenBudget: Math.floor(target * budget) });
  if (result.fits !== true && target < 1) result = compress(messages, { ...rest, tokenBudget: budget });
  const tokenCount = result.tokenCount ?? 0;
  return {
    ...result,
    tokenCount,
    extended: false,
    input: messages.slice(),
    compacted: { tokens: tokenCount, calls: 0 },
  };
}

/** True when `messages` starts with `before` (the same objects, or equal JSON). */
function extends_(messages: readonly Message[], before: readonly Message[] | undefined): boolean {
  if (!Array.isArray(before) || before.length > messages.length) return false;
  for (let i = 0; i < before.length; i++) {
    const a = messages[i];
    const b = before[i];
    if (a !== b && JSON.stringify(a) !== JSON.stringify(b)) return false;
  }
  return true;
}

/** The count compress budgets an uncompressed message with (docs/token-counts.md). */
function messageCounter(options: SyncCompressOptions): (m: Message) => number {
  if (typeof options.tokenCounter === 'function') return options.tokenCounter;
  const compat = options.compat === 'cce-1.0';
  const chars = options.tokenEstimate === 'chars' || (compat && options.tokenEstimate !== 'script');
  const imageTokens = options.imageTokens ?? 765;
  return (m) => {
    const content = m.content as unknown;
    if (compat) {
      if (typeof content !== 'string') return 0;
      return chars ? Math.ceil(content.length / 3.5) : estimateTokens(content);
    }
    if (chars) return typeof content === 'string' ? Math.ceil(content.length / 3.5) : 0;
    let n = MESSAGE_OVERHEAD_TOKENS;
    if (typeof content === 'string') n += estimateTokens(content);
    else if (Array.isArray(content)) {
      const texts: string[] = [];
      for (const part of content) {
        const p = part as Record<string, unknown> | null;
        if (p && p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
        else if (p && (p.type === 'image' || p.type === 'image_url')) n += imageTokens;
        else n += estimateTokens(JSON.stringify(part) ?? '');
      }
      n += estimateTokens(texts.join('\n'));
    }
    const calls = (m as { tool_calls?: unknown }).tool_calls;
    if (Array.isArray(calls)) {
      for (const call of calls) {
        const [name, args] = toolCallTexts(call);
        n += TOOL_CALL_OVERHEAD_TOKENS + estimateTokens(name) + estimateTokens(args);
      }
    }
    return n;
  };
}

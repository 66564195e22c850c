// SPDX-License-Identifier: MIT
// The Node entry's compress: calls that the engine provably leaves unchanged are answered here,
// without encoding a request or entering wasm; every other call goes to the engine (engine.ts).
//
// A small call (a few chat turns) spends most of its time crossing the boundary, not compressing:
// 3 oasst1 messages cost 7-13 µs through the engine, whose answer is the input again. Only the
// Node entry takes this path: the browser download stays as it is (size-budget.json).
//
// What the engine does with such a call (src/pipeline.cpp classifyMessages, src/budget.cpp):
//  * No token budget: a message is never changed when its role is preserved, it lies in the
//    recency window, it has tool calls, or its content is shorter than 120 UTF-16 units (no stage
//    looks at it then, dedup included). When that holds for every message, the result is the
//    caller's objects in a new array, ratio and token_ratio 1, nothing compressed, an empty
//    verbatim.
//  * A token budget that the input's tokens already meet: the input array itself, fits, its token
//    count and the whole conversation as the window (the engine's "fast path").
// The answer is built only for inputs both modes accept without a question: an array of plain
// objects with unique string ids and string contents (no earlier provenance), and options of the
// documented types and ranges. Anything else goes to the engine, which reports it.
import { compressReadOptions, readOptions } from './engine.js';
import {
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
  toolCallTexts,
} from './token-counter.js';
import { estimateTextTokens } from './transport.js';
import type {
  AsyncCompressOptions,
  CompressOptions,
  CompressResult,
  Message,
  SyncCompressOptions,
} from './types.js';

type Obj = Record<string, unknown>;

/** src/pipeline.cpp classifyMessages: shorter contents are never compressed. */
const MIN_COMPRESSIBLE_LENGTH = 120;
/** CompressOptions defaults the engine applies (src/types.h). */
const DEFAULT_RECENCY_WINDOW = 4;
const DEFAULT_PRESERVE: readonly string[] = ['system'];
const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;
/**
 * With a budget, the contents' tokens are counted here first; past this many UTF-16 units the
 * engine is asked straight away: it counts them anyway when they do not fit, and on a long input
 * the count, not the boundary, is the cost (22 ms of the scale session's, counted twice).
 */
const BUDGET_CHECK_MAX_UNITS = 32768;

const NUMBER_OPTIONS = [
  'recencyWindow',
  'sourceVersion',
  'tokenBudget',
  'minRecencyWindow',
  'fuzzyThreshold',
  'imageTokens',
  'maxInputBytes',
  'summarizerTimeoutMs',
] as const;
const BOOLEAN_OPTIONS = ['dedup', 'fuzzyDedup', 'embedSummaryId', 'forceConverge'] as const;

/** @internal How many calls were answered here (js/test/unchanged.test.mjs checks it moves). */
export const unchangedAnswers = { count: 0 };

/** Options of the types and ranges every mode accepts, with no callback: else undefined. */
function plainOptions(options: unknown): CompressOptions | undefined {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) return undefined;
  const o = options as Obj;
  // Clearing changes messages before the engine runs (clearing.ts): the engine's path.
  if (o.summarizer != null || o.tokenCounter != null || o.clearToolResults != null || o.clearReasoning != null)
    return undefined;
  for (const key of NUMBER_OPTIONS) {
    const value = o[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0))
      return undefined;
  }
  const threshold = o.fuzzyThreshold as number | undefined;
  if (threshold !== undefined && threshold > 1) return undefined;
  for (const key of BOOLEAN_OPTIONS) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') return undefined;
  }
  if (o.compat !== undefined && o.compat !== 'cce-1.0') return undefined;
  if (o.tokenEstimate !== undefined && o.tokenEstimate !== 'script' && o.tokenEstimate !== 'chars')
    return undefined;
  const preserve = o.preserve;
  if (preserve !== undefined) {
    if (!Array.isArray(preserve)) return undefined;
    for (let i = 0; i < preserve.length; i++) {
      if (typeof preserve[i] !== 'string') return undefined;
    }
  }
  return o as CompressOptions;
}

/** The engine's built-in count of one string content in this mode. */
function builtInTokens(content: string, options: CompressOptions): number {
  const estimate = options.tokenEstimate ?? (options.compat === 'cce-1.0' ? 'chars' : 'script');
  if (estimate === 'chars') return Math.floor((2 * content.length + 6) / 7); // ceil(len / 3.5)
  return content.length === 0 ? 0 : estimateTextTokens(content);
}

/**
 * What the default mode's script estimate bills a message beyond its text (docs/token-counts.md):
 * its overhead and its tool calls' names and arguments; nothing under cce-1.0 or "chars".
 */
function billedExtra(toolCalls: unknown, options: CompressOptions): number {
  if (options.compat === 'cce-1.0' || (options.tokenEstimate ?? 'script') !== 'script') return 0;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  if (Array.isArray(toolCalls)) {
    for (const call of toolCalls) {
      tokens += TOOL_CALL_OVERHEAD_TOKENS;
      for (const text of toolCallTexts(call)) tokens += text.length === 0 ? 0 : estimateTextTokens(text);
    }
  }
  return tokens;
}

/** The result the engine would give, or undefined when only the engine can tell. */
export function answerUnchanged(
  messages: unknown,
  givenOptions: unknown,
): CompressResult | undefined {
  const options = plainOptions(givenOptions);
  if (options === undefined || !Array.isArray(messages)) return undefined;
  const n = messages.length;
  if (n === 0) return undefined;
  const window = options.recencyWindow ?? DEFAULT_RECENCY_WINDOW;
  const recentFrom = Math.max(0, Math.ceil(n - window));
  const preserve = (options.preserve as readonly string[] | undefined) ?? DEFAULT_PRESERVE;
  const budget = options.tokenBudget;
  const ids = new Set<string>();
  // A bound on the request's bytes (docs/boundary.md: at most 3 bytes per UTF-16 unit, a few words
  // per field), so that the engine's size limit cannot reject what is answered here.
  let bytes = 1024;
  for (const role of preserve) bytes += 16 + 3 * role.length;
  let unchanged = budget === undefined;
  const contents: string[] = [];
  const calls: unknown[] = [];
  let units = 0;
  for (let i = 0; i < n; i++) {
    const m = messages[i] as unknown;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return undefined;
    // Plain data only: a getter (which may itself call compress) is read by the engine alone.
    if (Object.getOwnPropertyDescriptor(m, 'content')?.get !== undefined) return undefined;
    const { id, role, content, metadata } = m as Obj;
    if (typeof id !== 'string' || ids.has(id) || typeof content !== 'string') return undefined;
    if (role !== undefined && typeof role !== 'string') return undefined;
    const roleText = role as string | undefined;
    if (metadata != null && (typeof metadata !== 'object' || (metadata as Obj)._cce_original))
      return undefined;
    units += content.length;
    if (budget !== undefined && units > BUDGET_CHECK_MAX_UNITS) return undefined;
    ids.add(id);
    contents.push(content);
    calls.push((m as Obj).tool_calls);
    bytes += 64 + 3 * (id.length + content.length + (roleText?.length ?? 0));
    if (unchanged) {
      const toolCalls = (m as Obj).tool_calls;
      unchanged =
        content.length < MIN_COMPRESSIBLE_LENGTH ||
        (window > 0 && i >= recentFrom) ||
        (Array.isArray(toolCalls) && toolCalls.length > 0) ||
        (roleText !== undefined && roleText !== '' && preserve.includes(roleText));
      if (!unchanged) return undefined; // the engine has work to do
    }
  }
  const limit = options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
  if (limit !== 0 && bytes > limit) return undefined;
  const compression = {
    original_version: options.sourceVersion ?? 0,
    ratio: 1,
    token_ratio: 1,
    messages_compressed: 0,
    messages_preserved: n,
  };
  if (budget === undefined) {
    if (!unchanged) return undefined;
    const out: Message[] = [];
    for (let i = 0; i < n; i++) out.push(messages[i] as Message);
    return { messages: out, compression, verbatim: {} };
  }
  let tokens = 0;
  for (let i = 0; i < n; i++) {
    tokens += builtInTokens(contents[i] as string, options) + billedExtra(calls[i], options);
  }
  if (tokens > budget) return undefined;
  return {
    messages: messages as Message[],
    compression,
    verbatim: {},
    fits: true,
    tokenCount: tokens,
    recencyWindow: n,
  };
}

/** compress (engine.ts), answering unchanged calls without the engine. */
export function compress(messages: Message[], options?: SyncCompressOptions): CompressResult;
export function compress(
  messages: Message[],
  options: AsyncCompressOptions,
): Promise<CompressResult>;
export function compress(
  messages: Message[],
  options?: CompressOptions,
): CompressResult | Promise<CompressResult>;
export function compress(
  messages: Message[],
  options?: CompressOptions,
): CompressResult | Promise<CompressResult> {
  // The options are read once, here (a getter that throws is InvalidInput), and the engine gets
  // the copy. A message whose fields cannot be read plainly (a getter that throws) is left to the
  // engine, which reports it at its path.
  const opts = readOptions(options);
  let answer: CompressResult | undefined;
  try {
    answer = answerUnchanged(messages, opts);
  } catch {
    answer = undefined;
  }
  if (answer === undefined) return compressReadOptions(messages, opts);
  unchangedAnswers.count++;
  return answer;
}

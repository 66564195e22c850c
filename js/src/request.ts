// SPDX-License-Identifier: MIT
// `cce-wasm/request`: compresses a provider's request body (OpenAI Chat Completions, OpenAI
// Responses, Anthropic Messages) and gives back a body to forward, for proxies and gateways.
// Only the conversation changes: `system`, `instructions`, `tools` and every other field are the
// caller's own values; a body with nothing to compress is returned as it came.
import { engineOptionsOf, type IntegrationOptions } from './budget.js';
import { anthropicFormat } from './format-anthropic.js';
import { compressNative, type FormatAdapter, type NativeCompressResult } from './format-core.js';
import { openaiChatFormat } from './format-openai-chat.js';
import { openaiResponsesFormat } from './format-openai-responses.js';
import { CompressError } from './errors.js';
import {
  stableCompressor,
  stableSettings,
  type StableCompressor,
  type StableIntegrationOptions,
} from './stable-native.js';
import type { AsyncCompressOptions } from './types.js';

/** The request bodies `compressRequest` reads. */
export type RequestProvider = 'openai-chat' | 'openai-responses' | 'anthropic';

/** Options of `compressRequest`. */
export interface CompressRequestOptions extends IntegrationOptions {
  provider: RequestProvider;
  /** Called with the compression result when the body had a conversation to compress. */
  onCompress?: (result: NativeCompressResult<unknown>) => void;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

interface Route {
  field: 'messages' | 'input';
  adapter: FormatAdapter<never>;
  /** The body's own limit on the answer, kept free of the context window by default. */
  outputLimit(body: Obj): unknown;
}

const ROUTES: Record<RequestProvider, Route> = {
  'openai-chat': {
    field: 'messages',
    adapter: openaiChatFormat as FormatAdapter<never>,
    outputLimit: (body) => body.max_completion_tokens ?? body.max_tokens,
  },
  'openai-responses': {
    field: 'input',
    adapter: openaiResponsesFormat as FormatAdapter<never>,
    outputLimit: (body) => body.max_output_tokens,
  },
  anthropic: {
    field: 'messages',
    adapter: anthropicFormat as FormatAdapter<never>,
    outputLimit: (body) => body.max_tokens,
  },
};

function routeOf(body: unknown, options: CompressRequestOptions | undefined): Route {
  if (!isObj(options)) {
    throw new CompressError('InvalidInput', 'compressRequest(): options.provider is required', '/options/provider');
  }
  const route = ROUTES[options.provider];
  if (!route || !Object.hasOwn(ROUTES, options.provider)) {
    throw new CompressError(
      'InvalidInput',
      `compressRequest(): options.provider must be 'openai-chat', 'openai-responses' or 'anthropic', not ${String(options.provider)}`,
      '/options/provider',
    );
  }
  if (!isObj(body)) throw new CompressError('InvalidInput', 'compressRequest(): body must be an object', '/body');
  return route;
}

function answer(body: Obj, route: Route, result: NativeCompressResult<unknown>, onCompress: CompressRequestOptions['onCompress']): Obj {
  onCompress?.(result);
  return { ...body, [route.field]: result.messages };
}

/**
 * Compresses the conversation of a request body (`messages`; Responses: `input` items, a string
 * `input` is left as is) to `tokenBudget`, or to `contextWindow` less `reserve` (default: the
 * body's `max_tokens` / `max_completion_tokens` / `max_output_tokens`). Anthropic's `system`
 * counts against the budget and is never rewritten. Returns the body to forward: a new object
 * with only the conversation replaced. Asynchronous only with a `summarizer`.
 */
export function compressRequest<B extends object>(body: B, options: CompressRequestOptions & { summarizer?: undefined | null }): B;
export function compressRequest<B extends object>(body: B, options: CompressRequestOptions & AsyncCompressOptions): Promise<B>;
export function compressRequest<B extends object>(body: B, options: CompressRequestOptions): B | Promise<B>;
export function compressRequest<B extends object>(body: B, options: CompressRequestOptions): B | Promise<B> {
  return compressBody(body, options, compressNative);
}

function compressBody<B extends object>(
  body: B,
  options: CompressRequestOptions & StableIntegrationOptions,
  compressor: StableCompressor,
): B | Promise<B> {
  const route = routeOf(body, options);
  const native = body as unknown as Obj;
  const conversation = native[route.field];
  if (!Array.isArray(conversation) || conversation.length === 0) return body;
  const { provider: _provider, onCompress, cacheStable: _stable, ...rest } = options;
  const engine = engineOptionsOf(rest, route.outputLimit(native), 'compressRequest()');
  if (options.provider === 'anthropic' && native.system != null) (engine as { system?: unknown }).system = native.system;
  const result = compressor(route.adapter, conversation as never[], engine);
  if (result instanceof Promise) return result.then((r) => answer(native, route, r, onCompress) as unknown as B);
  return answer(native, route, result, onCompress) as unknown as B;
}

/**
 * `compressRequest` for a proxy that forwards many calls: the same options, and the cache-stable
 * mode on by default (`cacheStable`, docs/integrations.md). A body whose conversation extends one
 * this compressor answered before is forwarded as that answer plus the new messages while it fits
 * the budget, so the provider's prompt cache keeps reading the prefix; over the budget the
 * conversation is compressed again to `cacheStable.target` (0.5) of it. Answers are remembered by
 * the messages they stand for (at most `cacheStable.conversations`, 16), never by caller.
 */
export function requestCompressor(
  options: CompressRequestOptions & StableIntegrationOptions,
): <B extends object>(body: B) => B | Promise<B> {
  const compressor = stableCompressor(stableSettings(options?.cacheStable, 'requestCompressor()'));
  return (body) => compressBody(body, options, compressor);
}

export type { NativeCompressResult };
export type { BudgetOptions, IntegrationOptions } from './budget.js';
export type { CacheStableOptions, StableIntegrationOptions } from './stable-native.js';

// SPDX-License-Identifier: MIT
// `cce-wasm/ai-sdk`: compression for the Vercel AI SDK without importing it. A language-model
// middleware for `wrapLanguageModel` compresses the provider-level prompt of every call (system
// message, every part type, `providerOptions` kept: parts are rebuilt from the caller's own), and
// `compressionStep` does the same to an agent loop's ModelMessages in `prepareStep`. Both are
// plain objects and functions shaped as the SDK expects, so a user without `ai` never loads it.
import { engineOptionsOf, type IntegrationOptions } from './budget.js';
import { CompressError } from './errors.js';
import { aiSdkFormat, type AiSdkMessage } from './format-ai-sdk.js';
import { aiSdkUiFormat, isUiMessage } from './format-ai-sdk-ui.js';
import { compressNative, type NativeCompressResult } from './format-core.js';
import {
  stableCompressor,
  stableSettings,
  type StableCompressor,
  type StableIntegrationOptions,
} from './stable-native.js';

/** Options of the AI SDK integration. */
export interface AiSdkCompressionOptions extends IntegrationOptions {
  /** Called after each compression with the result (e.g. to log `fits`, `tokenCount`). */
  onCompress?: (result: NativeCompressResult<AiSdkMessage>) => void;
}

/** Options of `compressionMiddleware` and `compressionStep`: the compression options and the
 * cache-stable mode (`cacheStable`, default on; see {@link StableIntegrationOptions}). */
export interface AiSdkMiddlewareOptions extends AiSdkCompressionOptions, StableIntegrationOptions {}

/** The part of a language-model call's options the middleware reads and replaces. */
export interface PromptCallOptions {
  prompt: unknown[];
  maxOutputTokens?: number | undefined;
}

/** A language-model middleware (`LanguageModelV3Middleware` of `ai` 6; `ai` 5's V2 middleware
 * reads the same `transformParams`). */
export interface CompressionMiddleware {
  readonly specificationVersion: 'v3';
  transformParams<P extends PromptCallOptions>(options: { type: 'generate' | 'stream'; params: P }): Promise<P>;
}

/** Compresses AI SDK messages (provider-level prompt messages, ModelMessages, or the UIMessages
 * `useChat` holds, `{ id, role, parts }`) to the budget; the answer is valid for the SDK and keeps
 * every part it does not rewrite as the caller's own. UIMessages are compressed as
 * `convertToModelMessages` will send them, and a tool part (its call and its result) is kept whole. */
export async function compressAiSdkMessages<M extends object>(
  messages: M[],
  options: AiSdkCompressionOptions = {},
  outputLimit?: number,
): Promise<NativeCompressResult<M>> {
  return run(compressNative, messages, options, outputLimit);
}

async function run<M extends object>(
  compressor: StableCompressor,
  messages: M[],
  options: AiSdkCompressionOptions & StableIntegrationOptions,
  outputLimit?: number,
): Promise<NativeCompressResult<M>> {
  const { onCompress, cacheStable: _stable, ...rest } = options;
  // UIMessages hold `parts` where ModelMessages have `content`; one list is one kind.
  const ui = messages.length > 0 && isUiMessage(messages[0]);
  const odd = messages.findIndex((m) => isUiMessage(m) !== ui);
  if (odd > 0) {
    const [one, many] = ui ? ['ModelMessage', 'UIMessages'] : ['UIMessage', 'ModelMessages'];
    throw new CompressError(
      'InvalidInput',
      `cce-wasm/ai-sdk: messages[${odd}] is a ${one} among ${many} (convertToModelMessages makes ` +
        'ModelMessages of UIMessages)',
      `/messages/${odd}`,
    );
  }
  const result = await compressor(
    (ui ? aiSdkUiFormat : aiSdkFormat) as typeof aiSdkFormat,
    messages as unknown as AiSdkMessage[],
    engineOptionsOf(rest, outputLimit, 'cce-wasm/ai-sdk'),
  );
  onCompress?.(result);
  return result as unknown as NativeCompressResult<M>;
}

/**
 * A middleware for `wrapLanguageModel({ model, middleware: compressionMiddleware(options) })`:
 * every `generateText` / `streamText` call (each step of a tool loop included) sends the model
 * a prompt compressed to `tokenBudget`, or to `contextWindow` less `reserve` (default: the
 * call's `maxOutputTokens`). Cache-stable by default: a call whose prompt extends one this
 * middleware answered before is sent as that answer plus the new messages while it fits, so a
 * provider's prompt cache keeps reading the prefix; over the budget the prompt is compressed
 * again to `cacheStable.target` (0.5) of it. `cacheStable: false` compresses every call.
 */
export function compressionMiddleware(options: AiSdkMiddlewareOptions = {}): CompressionMiddleware {
  const compressor = stableCompressor(stableSettings(options.cacheStable, 'cce-wasm/ai-sdk'));
  return {
    specificationVersion: 'v3',
    async transformParams<P extends PromptCallOptions>({ params }: { params: P }): Promise<P> {
      if (!Array.isArray(params.prompt) || params.prompt.length === 0) return params;
      const result = await run(compressor, params.prompt as object[], options, params.maxOutputTokens);
      return { ...params, prompt: result.messages };
    },
  };
}

/**
 * A `prepareStep` for agent loops (`generateText`, `streamText`, `ToolLoopAgent`): each step
 * gets its ModelMessages compressed to the budget. The SDK keeps the full history; only what is
 * sent changes. Cache-stable by default, as {@link compressionMiddleware}.
 */
export function compressionStep(
  options: AiSdkMiddlewareOptions = {},
): <M extends object>(step: { messages: M[] }) => Promise<{ messages: M[] }> {
  const compressor = stableCompressor(stableSettings(options.cacheStable, 'cce-wasm/ai-sdk'));
  return async ({ messages }) => ({ messages: (await run(compressor, messages, options)).messages });
}

export type { AiSdkMessage, NativeCompressResult };
export type { BudgetOptions, IntegrationOptions } from './budget.js';
export type { CacheStableOptions, StableIntegrationOptions } from './stable-native.js';

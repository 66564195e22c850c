// SPDX-License-Identifier: MIT
// `cce-wasm/ai-sdk`: compression for the Vercel AI SDK without importing it. A language-model
// middleware for `wrapLanguageModel` compresses the provider-level prompt of every call (system
// message, every part type, `providerOptions` kept: parts are rebuilt from the caller's own), and
// `compressionStep` does the same to an agent loop's ModelMessages in `prepareStep`. Both are
// plain objects and functions shaped as the SDK expects, so a user without `ai` never loads it.
import { engineOptionsOf, type IntegrationOptions } from './budget.js';
import { aiSdkFormat, type AiSdkMessage } from './format-ai-sdk.js';
import { compressNative, type NativeCompressResult } from './format-core.js';

/** Options of the AI SDK integration. */
export interface AiSdkCompressionOptions extends IntegrationOptions {
  /** Called after each compression with the result (e.g. to log `fits`, `tokenCount`). */
  onCompress?: (result: NativeCompressResult<AiSdkMessage>) => void;
}

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

/** Compresses AI SDK messages (provider-level prompt messages or ModelMessages) to the budget;
 * the answer is valid for the SDK and keeps every part it does not rewrite as the caller's own. */
export async function compressAiSdkMessages<M extends object>(
  messages: M[],
  options: AiSdkCompressionOptions = {},
  outputLimit?: number,
): Promise<NativeCompressResult<M>> {
  const { onCompress, ...rest } = options;
  const result = await compressNative(
    aiSdkFormat,
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
 * call's `maxOutputTokens`).
 */
export function compressionMiddleware(options: AiSdkCompressionOptions = {}): CompressionMiddleware {
  return {
    specificationVersion: 'v3',
    async transformParams<P extends PromptCallOptions>({ params }: { params: P }): Promise<P> {
      if (!Array.isArray(params.prompt) || params.prompt.length === 0) return params;
      const result = await compressAiSdkMessages(params.prompt as object[], options, params.maxOutputTokens);
      return { ...params, prompt: result.messages };
    },
  };
}

/**
 * A `prepareStep` for agent loops (`generateText`, `streamText`, `ToolLoopAgent`): each step
 * gets its ModelMessages compressed to the budget. The SDK keeps the full history; only what is
 * sent changes.
 */
export function compressionStep(
  options: AiSdkCompressionOptions = {},
): <M extends object>(step: { messages: M[] }) => Promise<{ messages: M[] }> {
  return async ({ messages }) => ({ messages: (await compressAiSdkMessages(messages, options)).messages });
}

export type { AiSdkMessage, NativeCompressResult };
export type { BudgetOptions, IntegrationOptions } from './budget.js';

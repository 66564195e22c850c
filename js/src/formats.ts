// SPDX-License-Identifier: MIT
// compress / uncompress / validate for every message format (`cce-wasm/formats`): detected from
// the shapes or named by `options.format`, answered in the format given. Conversations in the
// engine's own dialect (OpenAI Chat messages that all carry an `id`), and every call under
// `compat: 'cce-1.0'` that names no format, go to the engine exactly as before.
//
// `compress` here knows every adapter. A bundle that needs one format imports that adapter and
// `compressWith` / `validateWith` / `uncompressWith` instead, and carries no other adapter.
import { anthropicFormat, validateAnthropic } from './format-anthropic.js';
import {
  compressNative,
  dialectCounter,
  restoreNative,
  type FormatAdapter,
  type FormatOptions,
  type FormatProblem,
  type MessageFormat,
  type NativeCompressResult,
  type NativeUncompressResult,
} from './format-core.js';
import { aiSdkFormat } from './format-ai-sdk.js';
import { aiSdkUiFormat } from './format-ai-sdk-ui.js';
import { detectFormat } from './format-detect.js';
import { langChainFormat } from './format-langchain.js';
import { openaiChatFormat, validateOpenAIChat } from './format-openai-chat.js';
import { openaiResponsesFormat } from './format-openai-responses.js';
import { compress as engineCompress, uncompress as engineUncompress } from './engine.js';
import { CompressError } from './errors.js';
import type {
  AsyncCompressOptions,
  CompressOptions,
  CompressResult,
  Message,
  StoreLookup,
  SyncCompressOptions,
  UncompressOptions,
  UncompressResult,
  VerbatimMap,
} from './types.js';

type Obj = Record<string, unknown>;

const ADAPTERS: Record<string, FormatAdapter<never> | undefined> = {
  'openai-chat': openaiChatFormat as FormatAdapter<never>,
  anthropic: anthropicFormat as FormatAdapter<never>,
  'ai-sdk': aiSdkFormat as FormatAdapter<never>,
  'ai-sdk-ui': aiSdkUiFormat as FormatAdapter<never>,
  'openai-responses': openaiResponsesFormat as FormatAdapter<never>,
  langchain: langChainFormat as FormatAdapter<never>,
};

export { detectFormat } from './format-detect.js';

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

function allHaveIds(messages: readonly unknown[]): boolean {
  return messages.every((m) => isObj(m) && m.id != null);
}

/** The adapter for a run, or undefined for the engine's own dialect. */
function adapterFor(messages: unknown, options: (CompressOptions & FormatOptions) | undefined) {
  const named = options?.format;
  if (named === undefined && options?.compat === 'cce-1.0') return undefined;
  const format = named ?? detectFormat(messages, options);
  if (format === undefined) return undefined;
  const adapter = ADAPTERS[format];
  if (!adapter) {
    throw new CompressError('InvalidInput', `options.format: unknown format ${String(format)}`, '/options/format');
  }
  // OpenAI Chat messages that all carry an id are the engine's own dialect (and, unless the
  // format is named, so are Anthropic-shaped ones with ids, as before formats existed).
  const dialect = named === undefined ? options?.system == null && (format === 'openai-chat' || format === 'anthropic') : named === 'openai-chat';
  if (dialect && Array.isArray(messages) && allHaveIds(messages)) return undefined;
  return adapter;
}

function withoutFormat<T extends object>(options: T | undefined): T | undefined {
  if (!options || !('format' in options)) return options;
  const { format: _format, ...rest } = options as T & FormatOptions;
  return rest as T;
}

/** Options of `compress`, with the message format. */
export type FormatCompressOptions = CompressOptions & FormatOptions;

/**
 * Compresses a conversation in any supported format and answers in that format (see
 * {@link MessageFormat}). OpenAI Chat messages that all carry an `id` are the engine's own dialect:
 * `verbatim` is keyed by id and compressed messages carry `metadata._cce_original`. Every other
 * conversation (ids are optional) comes back as valid provider messages with nothing added, and
 * `verbatim` keyed by output position: `"k"` (and `"k.1"`, `"k.2"`, … when omitted messages were
 * folded into message k) hold the originals message k stands for; `uncompress` puts them back.
 */
export function compress(messages: Message[], options?: SyncCompressOptions & FormatOptions): CompressResult;
export function compress(messages: Message[], options: AsyncCompressOptions & FormatOptions): Promise<CompressResult>;
export function compress<M extends object>(
  messages: M[],
  options: SyncCompressOptions & FormatOptions & { format: MessageFormat },
): NativeCompressResult<M>;
export function compress<M extends object>(
  messages: M[],
  options: AsyncCompressOptions & FormatOptions & { format: MessageFormat },
): Promise<NativeCompressResult<M>>;
export function compress(
  messages: unknown[],
  options?: CompressOptions & FormatOptions,
): CompressResult | Promise<CompressResult> | NativeCompressResult | Promise<NativeCompressResult>;
export function compress(
  messages: unknown[],
  options?: CompressOptions & FormatOptions,
): CompressResult | Promise<CompressResult> | NativeCompressResult | Promise<NativeCompressResult> {
  const adapter = adapterFor(messages, options);
  if (adapter === undefined) {
    const engineOptions = withoutFormat(options) ?? {};
    // The engine dialect is counted as it is billed too (tool-call arguments, per-message
    // overhead), except under cce-1.0, whose counts are the reference's.
    if (
      engineOptions.compat !== 'cce-1.0' &&
      engineOptions.tokenCounter == null &&
      (engineOptions.tokenEstimate ?? 'script') === 'script' &&
      Array.isArray(messages) &&
      allHaveIds(messages)
    ) {
      return engineCompress(messages as Message[], { ...engineOptions, tokenCounter: dialectCounter() });
    }
    return engineCompress(messages as Message[], engineOptions);
  }
  return compressNative(adapter as FormatAdapter<unknown>, messages, options ?? {});
}

/** Options of `uncompress`, with the message format. */
export type FormatUncompressOptions = UncompressOptions & FormatOptions;

/**
 * Restores the originals of a compressed conversation. In the engine's own dialect (every message
 * has an `id`, no `format` other than 'openai-chat' named) by `_cce_original` ids, as always;
 * otherwise by output position, from the `verbatim` of the `compress` call that made `messages`
 * (messages appended since pass through).
 */
export function uncompress(
  messages: Message[],
  store: VerbatimMap | StoreLookup,
  options?: FormatUncompressOptions,
): UncompressResult;
export function uncompress<M>(
  messages: M[],
  store: Record<string, M>,
  options?: FormatUncompressOptions,
): NativeUncompressResult<M>;
export function uncompress(
  messages: unknown[],
  store: unknown,
  options?: FormatUncompressOptions,
): UncompressResult | NativeUncompressResult {
  // Provenance is the engine dialect's own mark: native formats never carry it.
  const marked = Array.isArray(messages) && messages.some((m) => isObj(m) && isObj(m.metadata) && m.metadata._cce_original);
  const adapter = marked && options?.format === undefined ? undefined : adapterFor(messages, options);
  if (adapter === undefined) {
    return engineUncompress(messages as Message[], store as VerbatimMap, withoutFormat(options));
  }
  return uncompressWith(messages, store as Record<string, unknown>);
}

/**
 * The problems a provider would reject a request for, e.g. a tool result that answers no call,
 * Anthropic's alternation and tool_result-first order, empty content, duplicate call ids. Empty
 * when the request is valid as far as these checks go.
 */
export function validate(
  messages: readonly unknown[],
  options?: { format?: MessageFormat; system?: unknown },
): FormatProblem[] {
  const format = options?.format ?? detectFormat(messages, options) ?? 'openai-chat';
  switch (format) {
    case 'anthropic':
      return validateAnthropic(messages, options?.system);
    case 'openai-chat':
      return validateOpenAIChat(messages);
    default: {
      const adapter = ADAPTERS[format];
      if (!adapter) throw new CompressError('InvalidInput', `validate(): unknown format ${String(format)}`, '/options/format');
      return adapter.validate(messages as never[], options?.system);
    }
  }
}

/**
 * Compresses a conversation with one adapter (e.g. `anthropicFormat`): what `compress` does for a
 * named format, in a bundle that carries only that adapter.
 */
export function compressWith<M>(
  adapter: FormatAdapter<M>,
  messages: M[],
  options?: CompressOptions & Omit<FormatOptions, 'format'>,
): NativeCompressResult<M> | Promise<NativeCompressResult<M>> {
  return compressNative(adapter, messages, options ?? {});
}

/** Restores a native conversation compressed by `compressWith` (or `compress` with a format):
 * by output position, from its `verbatim`. */
export function uncompressWith<M>(messages: M[], verbatim: Record<string, M>): NativeUncompressResult<M> {
  if (!Array.isArray(messages)) {
    throw new CompressError('InvalidInput', 'uncompress(): messages must be an array', '/messages');
  }
  if (!isObj(verbatim)) {
    throw new CompressError('InvalidInput', 'uncompress(): store must be the verbatim map of compress', '/store');
  }
  return restoreNative(messages, verbatim);
}

/** `validate` with one adapter. */
export function validateWith<M>(adapter: FormatAdapter<M>, messages: readonly M[], system?: unknown): FormatProblem[] {
  return adapter.validate(messages, system);
}

export { aiSdkFormat, aiSdkUiFormat, anthropicFormat, langChainFormat, openaiChatFormat, openaiResponsesFormat };
export type { AiSdkMessage } from './format-ai-sdk.js';
export type { AiSdkUiMessage } from './format-ai-sdk-ui.js';
export type { AnthropicMessage } from './format-anthropic.js';
export type { FormatAdapter } from './format-core.js';
export type { LangChainMessage } from './format-langchain.js';
export type { OpenAIChatMessage } from './format-openai-chat.js';
export type { ResponsesItem } from './format-openai-responses.js';
export type { FormatOptions, FormatProblem, MessageFormat, NativeCompressResult, NativeUncompressResult };

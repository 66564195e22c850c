// SPDX-License-Identifier: MIT
// `cce-wasm/langchain`: compression for LangChain.js without importing it. `compressMessages`
// keeps each message's class (a rewritten message is a new instance of the caller's class) and
// every `tool_call_id`, and protects SystemMessages; `compressionRunnable` is the same as a chain
// step (a function, which `.pipe()` and `RunnableLambda.from` take), and `compressionMiddleware`
// the fields of an agent middleware for langchain v1's `createMiddleware` (wrapModelCall, or
// beforeModel to rewrite the agent's state).
import { engineOptionsOf, type IntegrationOptions } from './budget.js';
import { compressNative, type NativeCompressResult } from './format-core.js';
import { langChainFormat, type LangChainMessage } from './format-langchain.js';
import { CompressError } from './errors.js';
import {
  stableCompressor,
  stableSettings,
  type StableCompressor,
  type StableIntegrationOptions,
} from './stable-native.js';

/** Options of the LangChain integration. */
export interface LangChainCompressionOptions extends IntegrationOptions {
  /** Called after each compression with the result (e.g. to log `fits`, `tokenCount`). */
  onCompress?: (result: NativeCompressResult<LangChainMessage>) => void;
}

/** What a chain step may receive: messages, or a prompt value (`ChatPromptValue`). */
export type MessagesOrPromptValue<M> = M[] | { toChatMessages(): M[] };

/** Options of `compressionRunnable`: the compression options and the cache-stable mode
 * (`cacheStable`, default on; see {@link StableIntegrationOptions}). */
export interface LangChainRunnableOptions extends LangChainCompressionOptions, StableIntegrationOptions {}

function run<M extends object>(
  messages: M[],
  options: LangChainCompressionOptions & StableIntegrationOptions,
  compressor: StableCompressor = compressNative,
): NativeCompressResult<M> | Promise<NativeCompressResult<M>> {
  const { onCompress, cacheStable: _stable, ...rest } = options;
  const engine = engineOptionsOf(rest, undefined, 'cce-wasm/langchain');
  const done = (result: NativeCompressResult<LangChainMessage>) => {
    onCompress?.(result);
    return result as unknown as NativeCompressResult<M>;
  };
  const result = compressor(langChainFormat, messages as unknown as LangChainMessage[], engine);
  return result instanceof Promise ? result.then(done) : done(result);
}

/**
 * Compresses LangChain messages (`BaseMessage[]`) to the budget: the same classes back, tool
 * calls and their `ToolMessage`s paired, SystemMessages kept. Synchronous unless a `summarizer`
 * is given.
 */
export function compressMessages<M extends object>(messages: M[], options?: LangChainCompressionOptions & { summarizer?: undefined | null }): M[];
export function compressMessages<M extends object>(messages: M[], options: LangChainCompressionOptions): M[] | Promise<M[]>;
export function compressMessages<M extends object>(messages: M[], options: LangChainCompressionOptions = {}): M[] | Promise<M[]> {
  const result = run(messages, options);
  return result instanceof Promise ? result.then((r) => r.messages) : result.messages;
}

function messagesOf<M>(input: MessagesOrPromptValue<M>): M[] {
  if (Array.isArray(input)) return input;
  if (input && typeof (input as { toChatMessages?: unknown }).toChatMessages === 'function') {
    return (input as { toChatMessages(): M[] }).toChatMessages();
  }
  throw new CompressError('InvalidInput', 'cce-wasm/langchain: expected an array of messages or a chat prompt value', '/messages');
}

/**
 * A chain step: `prompt.pipe(compressionRunnable({ tokenBudget })).pipe(model)`, or
 * `RunnableLambda.from(compressionRunnable(options))`. Takes messages or a chat prompt value and
 * gives the compressed messages (which every chat model takes as input). Cache-stable by
 * default: input that extends an input this step answered before is answered with that answer
 * plus the new messages while it fits the budget (a provider's prompt cache keeps reading the
 * prefix), and compressed again to `cacheStable.target` (0.5) of the budget when it does not.
 */
export function compressionRunnable<M extends object>(
  options: LangChainRunnableOptions = {},
): (input: MessagesOrPromptValue<M>) => Promise<M[]> {
  const compressor = stableCompressor(stableSettings(options.cacheStable, 'cce-wasm/langchain'));
  return async (input) => (await run(messagesOf(input), options, compressor)).messages;
}

/** Options of the agent middleware: which hook compresses. `cacheStable` (default on) applies
 * to `wrapModelCall`; `beforeModel` replaces the state, whose prefix then stays as it was until
 * the next compression anyway. */
export interface LangChainMiddlewareOptions extends LangChainCompressionOptions, StableIntegrationOptions {
  /**
   * `'wrapModelCall'` (default): each model call receives the compressed history and the agent's
   * state keeps it whole. `'beforeModel'`: the state itself is replaced by the compressed history
   * before each model call (what langchain's summarization middleware does), so later steps and
   * checkpoints carry the shorter history.
   */
  hook?: 'wrapModelCall' | 'beforeModel';
}

/** The fields of a langchain v1 agent middleware, for `createMiddleware`. */
export interface CompressionMiddlewareFields {
  name: string;
  wrapModelCall?<R extends { messages: object[] }, A>(request: R, handler: (request: R) => A): Promise<Awaited<A>>;
  beforeModel?<S extends { messages: object[] }>(state: S): Promise<{ messages: S['messages'] } | undefined>;
}

// LangGraph's messages reducer reads this as "remove every message": the state is replaced.
const REMOVE_ALL = { type: 'remove', id: '__remove_all__', content: '' };

/**
 * For langchain v1 agents: `createAgent({ model, tools, middleware: [createMiddleware(
 * compressionMiddleware({ tokenBudget }))] })`. Each model call receives the conversation
 * compressed to the budget (the system prompt is the agent's own and is not part of it).
 * Cache-stable by default, as {@link compressionRunnable}.
 */
export function compressionMiddleware(options: LangChainMiddlewareOptions = {}): CompressionMiddlewareFields {
  const { hook = 'wrapModelCall', cacheStable, ...compression } = options;
  if (hook === 'beforeModel') {
    return {
      name: 'CceCompressionMiddleware',
      async beforeModel<S extends { messages: object[] }>(state: S) {
        if (!Array.isArray(state.messages) || state.messages.length === 0) return undefined;
        const messages = (await run(state.messages, compression)).messages;
        const same = messages.length === state.messages.length && messages.every((m, i) => m === state.messages[i]);
        if (same) return undefined;
        return { messages: [REMOVE_ALL, ...messages] as S['messages'] };
      },
    };
  }
  if (hook !== 'wrapModelCall') {
    throw new CompressError('InvalidInput', `cce-wasm/langchain: hook must be 'wrapModelCall' or 'beforeModel', not ${String(hook)}`, '/options/hook');
  }
  const compressor = stableCompressor(stableSettings(cacheStable, 'cce-wasm/langchain'));
  return {
    name: 'CceCompressionMiddleware',
    async wrapModelCall<R extends { messages: object[] }, A>(request: R, handler: (request: R) => A): Promise<Awaited<A>> {
      if (!Array.isArray(request.messages) || request.messages.length === 0) return await handler(request);
      const messages = (await run(request.messages, compression, compressor)).messages;
      return await handler({ ...request, messages });
    },
  };
}

export type { LangChainMessage, NativeCompressResult };
export type { BudgetOptions, IntegrationOptions } from './budget.js';
export type { CacheStableOptions, StableIntegrationOptions } from './stable-native.js';

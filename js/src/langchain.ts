// SPDX-License-Identifier: MIT
// `cce-wasm/langchain`: compression for LangChain.js without importing it. `compressMessages`
// keeps each message's class (a rewritten message is a new instance of the caller's class) and
// every `tool_call_id`, and protects SystemMessages; `compressionRunnable` is the same as a chain
// step (a function, which `.pipe()` and `RunnableLambda.from` take), and `compressionMiddleware`
// the fields of an agent middleware for langchain v1's `createMiddleware`.
import { engineOptionsOf, type IntegrationOptions } from './budget.js';
import { compressNative, type NativeCompressResult } from './format-core.js';
import { langChainFormat, type LangChainMessage } from './format-langchain.js';
import { CompressError } from './errors.js';

/** Options of the LangChain integration. */
export interface LangChainCompressionOptions extends IntegrationOptions {
  /** Called after each compression with the result (e.g. to log `fits`, `tokenCount`). */
  onCompress?: (result: NativeCompressResult<LangChainMessage>) => void;
}

/** What a chain step may receive: messages, or a prompt value (`ChatPromptValue`). */
export type MessagesOrPromptValue<M> = M[] | { toChatMessages(): M[] };

function run<M extends object>(
  messages: M[],
  options: LangChainCompressionOptions,
): NativeCompressResult<M> | Promise<NativeCompressResult<M>> {
  const { onCompress, ...rest } = options;
  const engine = engineOptionsOf(rest, undefined, 'cce-wasm/langchain');
  const done = (result: NativeCompressResult<LangChainMessage>) => {
    onCompress?.(result);
    return result as unknown as NativeCompressResult<M>;
  };
  const result = compressNative(langChainFormat, messages as unknown as LangChainMessage[], engine);
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
 * gives the compressed messages (which every chat model takes as input).
 */
export function compressionRunnable<M extends object>(
  options: LangChainCompressionOptions = {},
): (input: MessagesOrPromptValue<M>) => Promise<M[]> {
  return async (input) => (await run(messagesOf(input), options)).messages;
}

/** The fields of a langchain v1 agent middleware that compresses what the model receives. */
export interface CompressionMiddlewareFields {
  name: string;
  wrapModelCall<R extends { messages: object[] }, A>(request: R, handler: (request: R) => A): Promise<Awaited<A>>;
}

/**
 * For langchain v1 agents: `createAgent({ model, tools, middleware: [createMiddleware(
 * compressionMiddleware({ tokenBudget }))] })`. Each model call receives the conversation
 * compressed to the budget; the agent's state keeps the full history (nothing to restore).
 */
export function compressionMiddleware(options: LangChainCompressionOptions = {}): CompressionMiddlewareFields {
  return {
    name: 'CceCompressionMiddleware',
    async wrapModelCall<R extends { messages: object[] }, A>(request: R, handler: (request: R) => A): Promise<Awaited<A>> {
      if (!Array.isArray(request.messages) || request.messages.length === 0) return await handler(request);
      const messages = (await run(request.messages, options)).messages;
      return await handler({ ...request, messages });
    },
  };
}

export type { LangChainMessage, NativeCompressResult };
export type { BudgetOptions, IntegrationOptions } from './budget.js';

// SPDX-License-Identifier: MIT
// The shapes every format adapter shares (views, parts leading back to their blocks, problems)
// and the small helpers they build them with. Kept apart from format-core, which runs `compress`,
// so that the session entries (cce-wasm/context, cce-wasm/compaction) carry the adapters without
// the compress engine's JavaScript.
import type { ClearingShape } from './clearing.js';
import type { ContentPart } from './types.js';

type Obj = Record<string, unknown>;

/** The message formats `compress`, `uncompress` and `validate` read and answer in. */
export type MessageFormat =
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'ai-sdk'
  | 'ai-sdk-ui'
  | 'langchain';

/** One problem a provider would reject a request for (see `validate`). */
export interface FormatProblem {
  /** A stable code, e.g. `orphan-tool-result`, `roles-not-alternating`, `empty-content`. */
  code: string;
  /** Index of the message (or item) in the array; -1 for the request as a whole. */
  index: number;
  /** The tool-call id involved, when there is one. */
  callId?: string;
  message: string;
}

/** @internal A validator's problem list and the function that adds to it. */
export function problemList(): {
  problems: FormatProblem[];
  problem: (code: string, index: number, message: string, callId?: string) => void;
} {
  const problems: FormatProblem[] = [];
  const problem = (code: string, index: number, message: string, callId?: string) => {
    const p: FormatProblem = { code, index, message };
    if (callId !== undefined) p.callId = callId;
    problems.push(p);
  };
  return { problems, problem };
}

/** The native block (or part) a view part stands for; copied along by object spread. */
export const SOURCE: unique symbol = Symbol('cce.source');

/** A view part: the engine reads `type` and `text`; `SOURCE` leads back to the block. */
export type ViewPart = ContentPart & { [SOURCE]?: unknown };

/** One engine message made from (part of) a native message (an adapter's output). */
export interface ViewSpec {
  role: string;
  content: string | ViewPart[] | null;
  /** Tool calls of an assistant step: the engine keeps the message and its results together. */
  toolCalls?: unknown[];
  /** The call a tool result answers. */
  callId?: string;
  /** A readable id for dedup references (the call id of a tool result); positional otherwise. */
  key?: string;
  /** The tool calls are not among the content parts: count their names and arguments. */
  countCalls?: boolean;
}

/** What became of one view: unchanged, or its new content (a dropped view is undefined). */
export type ViewOut = { changed: false } | { changed: true; content: string | ViewPart[] };

/** One format, both ways: pure functions over the caller's objects, never mutating them. Its
 * members are internal; pass the exported adapters (`anthropicFormat`, …) to `compressWith`. */
export interface FormatAdapter<M = unknown> {
  readonly name: MessageFormat;
  /** The views of `message`, the `index`-th of `messages`. */
  split(message: M, index: number, messages: readonly M[]): ViewSpec[];
  /** The native message made of `outs` (undefined: that view was omitted), or undefined when
   * nothing of it is left. */
  rebuild(message: M, outs: Array<ViewOut | undefined>, specs: ViewSpec[]): M | undefined;
  /** Two neighbours the provider needs as one message (Anthropic alternation), else undefined. */
  join?(a: M, b: M): M | undefined;
  /** The first message (after the system prompt) when it carries the stub of omitted messages
   * before it: a user message, since Anthropic and Gemini refuse a conversation an assistant
   * opens (Anthropic's `join` then merges it with a user message after it). `input` is the
   * caller's list. */
  lead?(message: M, input: readonly M[]): M;
  /** The led stub and the user message after it as one message, for the formats whose clients
   * send two user messages in a row as they are (LangChain's ChatAnthropic), else undefined. */
  joinLead?(led: M, next: M): M | undefined;
  /** The request's separate system prompt as view content (Anthropic). */
  system?(system: unknown): string | ViewPart[] | undefined;
  validate(messages: readonly M[], system?: unknown): FormatProblem[];
  /** How `clearToolResults` / `clearReasoning` read and edit this format's messages. */
  clearing?: ClearingShape<M>;
}

/** Options of `compress` for a provider-native conversation. */
export interface FormatOptions {
  /** The input's format; detected from its shape when absent. */
  format?: MessageFormat;
  /** Anthropic: the request's `system` (string or text blocks), counted against the budget,
   * never changed. */
  system?: unknown;
}

// ---- helpers the adapters share -----------------------------------------------------------------

/** @internal A text part that leads back to its block. */
export function textPart(text: string, source: unknown): ViewPart {
  return { type: 'text', text, [SOURCE]: source };
}

/** @internal A part the engine sizes but never changes, leading back to its block. */
export function opaquePart(type: string, source: unknown, payload?: Obj): ViewPart {
  return { ...payload, type, [SOURCE]: source };
}

/**
 * @internal The native blocks of changed view parts: a part the engine returned as it was is its
 * block; a text part with new text is `withText(block, text)`; a text part the engine added
 * (a summary for parts that had no text) is `newText(text)`.
 */
export function partsBack<B>(
  parts: readonly ViewPart[],
  withText: (block: B, text: string) => B,
  newText: (text: string) => B,
): B[] {
  const blocks: B[] = [];
  for (const part of parts) {
    const source = part[SOURCE] as B | undefined;
    // A text the engine emptied (a budget's last resort beside tool calls, or a tool result) is
    // left out: providers reject an empty text block.
    if (part.type === 'text' && part.text === '' && (source === undefined || (source as Obj).text !== '')) {
      continue;
    }
    if (source === undefined) blocks.push(newText(part.text ?? ''));
    else if (part.type === 'text' && typeof part.text === 'string' && (source as Obj).text !== part.text) {
      blocks.push(withText(source, part.text));
    } else blocks.push(source);
  }
  return blocks;
}

/** @internal `JSON.stringify`, or '' for a value JSON cannot carry. */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

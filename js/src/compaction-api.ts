// SPDX-License-Identifier: MIT
// Non-destructive compaction (issue 8): overlay events over a turn stream and a pure projection.
import { CompressError } from './errors.js';
import type { ClearingEdit } from './clearing.js';
import type { MessageFormat, ViewSpec } from './format-shapes.js';
import { detectFormat } from './format-detect.js';
import {
  anthropicRequestOf,
  conversationFromAnthropic,
  conversationFromOpenAI,
  type Json,
  type JsonObject,
  openAIMessagesOf,
} from './compaction-providers.js';
import { callSession, jsonCopy } from './session-load.js';
import { NativeSession, sessionMessage } from './session-formats.js';

// ---- the conversation document ----------------------------------------------------------------

/** Milliseconds since the epoch, or an RFC 3339 date-time with offset ("2025-07-17T10:00:00Z"). */
export type Timestamp = number | string;

/** A content part: a string or an object whose text is its `text` member (images etc. count 0). */
export type ContentPart = string | { type?: string; text?: string; [key: string]: unknown };

interface EventBase {
  timestamp?: Timestamp;
  /** Set on events a compaction changed or created: the log index of that compaction. */
  compactedBy?: number;
  /** Written by fromOpenAI / fromAnthropic for exact round trips; keep it as it is. */
  source?: unknown;
  [key: string]: unknown;
}

/** A user request, an assistant message or a system instruction. */
export interface MessageEvent extends EventBase {
  type: 'user' | 'assistant' | 'system';
  content: string | ContentPart[];
}

/** Model reasoning (thinking); `signature` is Anthropic's. */
export interface ReasoningEvent extends EventBase {
  type: 'reasoning';
  content?: string;
  signature?: string;
}

/** A tool call the assistant made. */
export interface ToolRequestEvent extends EventBase {
  type: 'toolRequest';
  id?: string;
  name: string;
  /** An object (Anthropic `input`) or JSON text (OpenAI `arguments`). */
  arguments?: unknown;
}

/** The result of a tool call; `ok: false` is an error result. */
export interface ToolResponseEvent extends EventBase {
  type: 'toolResponse';
  id?: string;
  /** Default true. */
  ok?: boolean;
  content?: string | ContentPart[];
  name?: string;
}

/** Opaque provider parts (images, documents, server tools); they survive in their own format. */
export interface OtherEvent extends EventBase {
  type: 'other';
  role?: string;
}

/** One event of the stream. */
export type ConversationEvent =
  | MessageEvent
  | ReasoningEvent
  | ToolRequestEvent
  | ToolResponseEvent
  | OtherEvent;

/** A turn: a user request and everything that answers it. */
export interface Turn {
  timestamp?: Timestamp;
  events: ConversationEvent[];
}

/**
 * `toolCalls` policy: strip both sides, only responses, only requests, or omit the pairs; the
 * object form sets each side (a false flag means "keep", overriding an older compaction).
 */
export type ToolCallsPolicy =
  | 'strip'
  | 'strip-responses'
  | 'strip-requests'
  | 'omit'
  | { policy?: 'strip' | 'omit'; request?: boolean; response?: boolean };

/** Per-tool hints: override a strip policy's flags for one tool (never an omit). */
export type ToolHints = Record<string, { request?: 'keep' | 'strip'; response?: 'keep' | 'strip' }>;

/** A compaction event of the overlay log; turns are inclusive, 0-based. */
export interface Compaction {
  timestamp?: Timestamp;
  fromTurn: number;
  toTurn: number;
  summary?: { summary: string } | null;
  reasoning?: 'strip' | null;
  toolCalls?: ToolCallsPolicy | null;
  tools?: ToolHints | null;
  /** Informational: the profile and the range asked for before extension. */
  profile?: string;
  requested?: { fromTurn: number; toTurn: number };
  [key: string]: unknown;
}

/**
 * A conversation: turns of events plus the append-only compaction log. Compaction never changes
 * `turns`; the view the model gets is {@link project}'s.
 */
export interface Conversation {
  turns: Turn[];
  compactions?: Compaction[];
  /** Written by fromOpenAI / fromAnthropic (what the events do not carry); keep it as it is. */
  source?: unknown;
  /** Written by {@link fromMessages}: the provider messages the turns were read from. */
  native?: NativeMessages;
}

/** The provider messages of a conversation made by {@link fromMessages} (your own objects). */
export interface NativeMessages<M = unknown> {
  format: MessageFormat;
  /** Anthropic: the request's `system`, as given. */
  system?: unknown;
  messages: M[];
}

/** A projected turn: `summaryOf` marks the synthetic summary pair of a summarised range. */
export interface ProjectedTurn {
  turn: number;
  summaryOf?: { fromTurn: number; toTurn: number };
  events: ConversationEvent[];
}

/** The projection in event form (toOpenAI / toAnthropic accept it). */
export interface ProjectedView {
  turns: ProjectedTurn[];
  source?: unknown;
}

// ---- provider formats --------------------------------------------------------------------------

/** An OpenAI Chat Completions message (other fields are kept through round trips). */
export interface OpenAIMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | (string & {});
  content?: string | null | Array<{ type: string; [key: string]: unknown }>;
  tool_calls?: Array<{
    id: string;
    type: 'function' | (string & {});
    function: { name: string; arguments: string };
  }>;
  tool_call_id?: string;
  reasoning_content?: string;
  [key: string]: unknown;
}

/** An Anthropic Messages content block. */
export type AnthropicBlock =
  | { type: 'text'; text: string; [key: string]: unknown }
  | { type: 'thinking'; thinking: string; signature?: string; [key: string]: unknown }
  | { type: 'redacted_thinking'; data: string; [key: string]: unknown }
  | { type: 'tool_use'; id: string; name: string; input: unknown; [key: string]: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content?: string | Array<{ type: string; [key: string]: unknown }>;
      is_error?: boolean;
      [key: string]: unknown;
    }
  | { type: string; [key: string]: unknown };

/** An Anthropic Messages message. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
  [key: string]: unknown;
}

/** The top-level `system` of an Anthropic request. */
export type AnthropicSystem =
  | string
  | Array<{ type: 'text'; text: string; [key: string]: unknown }>;

/** What an Anthropic request needs: the system prompt (when any) and the messages. */
export interface AnthropicRequest {
  system?: AnthropicSystem;
  messages: AnthropicMessage[];
}

/** An OpenAI request's messages. */
export interface OpenAIRequest {
  messages: OpenAIMessage[];
}

/**
 * The shape of a view: events (default), ready to send to OpenAI or Anthropic, or `'messages'`:
 * in the provider format of a conversation made by {@link fromMessages}.
 */
export type ViewFormat = 'events' | 'openai' | 'anthropic' | 'messages';

/** The view type for each format. */
export interface ViewOf {
  events: ProjectedView;
  openai: OpenAIRequest;
  anthropic: AnthropicRequest;
  messages: NativeMessages;
}

// ---- compaction requests ------------------------------------------------------------------------

/** The built-in profiles: policy sets plus a default `keepLast`. */
export type ProfileName = 'default' | 'light' | 'heavy';

/**
 * What the built-in profiles do (RFD 064): `default` strips reasoning and tool calls and keeps
 * the last 3 turns, `light` strips reasoning and keeps 5, `heavy` summarises and keeps 3.
 */
export const PROFILES: Readonly<
  Record<
    ProfileName,
    { reasoning?: 'strip'; toolCalls?: 'strip'; summary?: true; keepLast: number }
  >
> = Object.freeze({
  default: Object.freeze({ reasoning: 'strip', toolCalls: 'strip', keepLast: 3 } as const),
  light: Object.freeze({ reasoning: 'strip', keepLast: 5 } as const),
  heavy: Object.freeze({ summary: true, keepLast: 3 } as const),
});

/** A duration: "90s", "5m", "5h", "2d", "1w", "1h30m". */
export type Duration = `${number}${'s' | 'm' | 'h' | 'd' | 'w'}${string}`;

/**
 * A range bound, resolved to an absolute turn when the compaction is created:
 * an index (negative: from the end, -3 = 3 turns before the last), `"last"` (where the most
 * recent compaction stopped), a duration (turns since now − duration), or keep counts.
 */
export type Bound =
  | number
  | 'last'
  | Duration
  | { keepLast: number | Duration }
  | { keepFirst: number | Duration };

/** Summarises the raw events of a range for a summary compaction (sync or async). */
export type CompactionSummarizer = (
  text: string,
  request: { budget: number },
) => string | Promise<string>;

/**
 * What to compact. Without a profile and without policies the `default` profile applies;
 * explicit policies override the profile's (null turns one off); policies without a profile keep
 * nothing by default.
 */
export interface CompactOptions {
  profile?: ProfileName;
  /** First turn (inclusive). Default: keepFirst. */
  from?: Bound;
  /** Last turn (inclusive). Default: keep the profile's keepLast turns. */
  to?: Bound;
  keepFirst?: number | Duration;
  keepLast?: number | Duration;
  /** Stored in the compaction (its recency) and "now" for duration bounds. */
  timestamp?: Timestamp;
  reasoning?: 'strip' | null;
  toolCalls?: ToolCallsPolicy | null;
  /** Per-tool hints stored in the compaction. */
  tools?: ToolHints | null;
  /**
   * A summary of the range: `true` to generate it from the raw events (your `summarizer`, else
   * the deterministic engine), a text to store as is, null/false for none.
   */
  summary?: boolean | string | { summary: string } | null;
  /** Generates summaries with your model; makes the call return a Promise. */
  summarizer?: CompactionSummarizer | null;
  /**
   * Tokens the projected view must fit in. The lightest compaction that fits is chosen: the
   * `light`, `default` and `heavy` profiles in that order, then `heavy` keeping 2 and 1 turns
   * (your `from`/`to`/`keepFirst`/`keepLast` apply to each); none when the view fits already.
   * Not combined with `profile` or policies. The result tells whether it `fits`.
   */
  tokenBudget?: number;
}

/** The result of {@link compact}. */
export interface CompactResult {
  /** A new document: the input with the compaction appended (turns shared, never modified). */
  conversation: Conversation & { compactions: Compaction[] };
  /**
   * The compaction appended; null when there was nothing to compact (the bounds leave no turn,
   * e.g. a conversation no longer than the profile's keepLast) or, with `tokenBudget`, when the
   * view fits already. The conversation then has the input's log.
   */
  compaction: Compaction | null;
  /** Its index in the log (null with no compaction). */
  index: number | null;
  /** True when the range was extended over a partially overlapping summary. */
  extended: boolean;
  /** With `tokenBudget`: whether the projected view fits it. */
  fits?: boolean;
}

/** The result of {@link dryRun}. */
export interface DryRunResult<F extends ViewFormat = 'events'> {
  /** The compaction that compact() would append; null when there is nothing to compact. */
  compaction: Compaction | null;
  index: number | null;
  extended: boolean;
  /** With `tokenBudget`: whether `tokens.after` fits it. */
  fits?: boolean;
  /** The projection with the compaction applied. */
  view: ViewOf[F];
  /** Projected tokens: without overlays, with the current ones, with this one added. */
  tokens: { raw: number; before: number; after: number };
}

/** The result of {@link project}. */
export interface ProjectResult<F extends ViewFormat = 'events'> {
  view: ViewOf[F];
  /** Tokens of the projected events by the script-aware estimate (as compress counts by default). */
  tokens: number;
}

/** The result of {@link undo}. */
export interface UndoResult {
  /** A new document whose log lacks the removed compaction(s): its view is the previous one. */
  conversation: Conversation & { compactions: Compaction[] };
  removed: Compaction[];
}

type MaybeAsync<O, T> = O extends { summarizer: CompactionSummarizer } ? Promise<T> : T;

// ---- functions ----------------------------------------------------------------------------------

/**
 * The view the model gets: every compaction applied (per turn and content type the newest
 * covering policy wins; a summary beats them all). Pure: the input is not modified.
 *
 * @example
 * const { view } = project(conversation, { format: 'openai' });
 * await openai.chat.completions.create({ model, messages: view.messages });
 */
export function project<F extends ViewFormat = 'events'>(
  conversation: Conversation,
  options?: { format?: F },
): ProjectResult<F> {
  const format = options?.format;
  if (format === 'messages') {
    const mapping = nativeOf(conversation, 'project()');
    const out = run<ProjectResult<'events'>>({ op: 'project', conversation }, 'project()');
    return { ...out, view: mapping.messages(out.view) } as unknown as ProjectResult<F>;
  }
  const out = run<ProjectResult<'events'>>({ op: 'project', conversation, format }, 'project()');
  return { ...out, view: viewIn(format, out.view) } as unknown as ProjectResult<F>;
}

/**
 * Creates a compaction over a range and returns the conversation with it appended (the input is
 * not modified). Stripped tool responses become `[compacted] {tool}: success|error`; a summary
 * range becomes one `[Summary of previous conversation]` user/assistant pair. A summary that
 * partially overlaps an earlier one is extended over it and made from the raw events.
 *
 * @example
 * let { conversation: c } = compact(conversation, { profile: 'default' });
 * ({ conversation: c } = await compact(c, { profile: 'heavy', to: -2, summarizer: llm }));
 */
export function compact<O extends CompactOptions>(
  conversation: Conversation,
  options?: O,
): MaybeAsync<O, CompactResult> {
  const finish = (out: Omit<CompactResult, 'conversation'>): CompactResult => ({
    conversation: {
      ...conversation,
      compactions: [
        ...(conversation.compactions ?? []),
        ...(out.compaction === null ? [] : [out.compaction]),
      ],
    },
    compaction: out.compaction,
    index: out.index,
    extended: out.extended,
    ...(out.fits === undefined ? {} : { fits: out.fits }),
  });
  return withSummarizer(conversation, options, 'compact', {}, 'compact()', finish) as MaybeAsync<
    O,
    CompactResult
  >;
}

/**
 * What {@link compact} would do, without appending anything: the compaction, the projected view
 * with it and the token counts before and after.
 */
export function dryRun<O extends CompactOptions & { format?: ViewFormat }>(
  conversation: Conversation,
  options?: O,
): MaybeAsync<O, DryRunResult<O extends { format: infer F extends ViewFormat } ? F : 'events'>> {
  const format = options?.format;
  if (format === 'messages') {
    const mapping = nativeOf(conversation, 'dryRun()');
    const native = (out: DryRunResult) => ({ ...out, view: mapping.messages(out.view as ProjectedView) });
    return withSummarizer(conversation, options, 'dryRun', {}, 'dryRun()', native) as
      MaybeAsync<O, DryRunResult<O extends { format: infer F extends ViewFormat } ? F : 'events'>>;
  }
  const inFormat = (out: DryRunResult) => ({ ...out, view: viewIn(format, out.view as ProjectedView) });
  return withSummarizer(conversation, options, 'dryRun', { format }, 'dryRun()', inFormat) as
    MaybeAsync<O, DryRunResult<O extends { format: infer F extends ViewFormat } ? F : 'events'>>;
}

/**
 * Removes a compaction from the log (default: the last one; negative indices count from the end;
 * `all` removes every one). The view is then exactly what it was before it was appended.
 */
export function undo(
  conversation: Conversation,
  options?: { index?: number; all?: boolean },
): UndoResult {
  const out = run<{ compactions: Compaction[]; removed: Compaction[] }>(
    { op: 'undo', conversation, index: options?.index, all: options?.all },
    'undo()',
  );
  return { conversation: { ...conversation, compactions: out.compactions }, removed: out.removed };
}

/**
 * OpenAI Chat Completions messages → conversation (tool calls, tool results, `reasoning_content`).
 * `toOpenAI(fromOpenAI(m))` reproduces `m` exactly.
 */
export function fromOpenAI(messages: readonly OpenAIMessage[]): Conversation & {
  compactions: Compaction[];
} {
  return conversationFromOpenAI(jsonCopy<Json>(messages, 'fromOpenAI()')) as unknown as Conversation & {
    compactions: Compaction[];
  };
}

/**
 * Anthropic Messages `messages` (+ the top-level `system`) → conversation (text, thinking,
 * tool_use, tool_result; other blocks as opaque events). `toAnthropic(fromAnthropic(m, s))`
 * reproduces them exactly.
 */
export function fromAnthropic(
  messages: readonly AnthropicMessage[],
  system?: AnthropicSystem | null,
): Conversation & { compactions: Compaction[] } {
  return conversationFromAnthropic(
    jsonCopy<Json>(messages, 'fromAnthropic()'),
    jsonCopy<Json>(system, 'fromAnthropic()'),
  ) as unknown as Conversation & { compactions: Compaction[] };
}

/**
 * The events of a conversation or a projected view as OpenAI messages (no projection: use
 * `project(c, { format: 'openai' })` to send the compacted view).
 */
export function toOpenAI(conversation: Conversation | ProjectedView): OpenAIMessage[] {
  const document = checked(conversation, 'toOpenAI()');
  return openAIMessagesOf(document, document.source) as unknown as OpenAIMessage[];
}

/** The events of a conversation or a projected view as an Anthropic request (no projection). */
export function toAnthropic(conversation: Conversation | ProjectedView): AnthropicRequest {
  const document = checked(conversation, 'toAnthropic()');
  return anthropicRequestOf(document, document.source) as unknown as AnthropicRequest;
}

/** A view in the provider format asked for (the engine answers events; engineRequest checked
 * the format). */
function viewIn(format: unknown, view: ProjectedView): unknown {
  const document = view as unknown as JsonObject;
  const f = asJson(format);
  if (f === 'openai') return { messages: openAIMessagesOf(document, document.source) };
  if (f === 'anthropic') return anthropicRequestOf(document, document.source);
  return view;
}

const NOT_JSON = Symbol('not JSON');

/** A request member as the engine read it from the request's JSON: undefined when JSON leaves it
 * out, NOT_JSON when JSON cannot carry it (BigInt, cycles). */
function asJson(value: unknown): unknown {
  try {
    return (JSON.parse(JSON.stringify({ value })) as { value?: unknown }).value;
  } catch {
    return NOT_JSON;
  }
}

/** A conversation or view validated by the engine (errors as for project), as a JSON copy of
 * what the engine read. */
function checked(conversation: Conversation | ProjectedView, caller: string): JsonObject {
  const request = engineRequest({ op: 'check', conversation });
  callSession('compactionJson', request, caller);
  return jsonCopy<Json>(request.conversation, caller) as JsonObject;
}

// ---- provider formats (issue 20 item 1) ---------------------------------------------------------

/**
 * Provider messages → conversation, in any format of `cce-wasm/formats` (`'openai-chat'`,
 * `'openai-responses'`, `'anthropic'`, `'ai-sdk'`, `'ai-sdk-ui'`, `'langchain'`; detected when
 * `format` is absent). Each message is read as the views `compress` reads (a tool result stays with its call),
 * and the conversation keeps your messages in `native`: `project(c, { format: 'messages' })`
 * answers in your format, with your own objects wherever a compaction left a message as it was,
 * and {@link toMessages} gives them all back.
 *
 * @example
 * let c = fromMessages(messages, { format: 'anthropic', system });
 * ({ conversation: c } = compact(c, { profile: 'heavy' }));
 * const { messages: m, system: s } = project(c, { format: 'messages' }).view;
 */
export function fromMessages<M>(
  messages: readonly M[],
  options?: { format?: MessageFormat; system?: unknown },
): Conversation & { compactions: Compaction[]; native: NativeMessages<M> } {
  if (!Array.isArray(messages)) {
    throw new CompressError('InvalidInput', 'fromMessages(): messages must be an array', '/messages');
  }
  if (options != null && typeof options !== 'object') {
    throw new CompressError('InvalidInput', 'fromMessages(): options must be an object', '/options');
  }
  const given = options?.format;
  const format = given ?? detectFormat(messages, { system: options?.system }) ?? 'openai-chat';
  const { session, views } = nativeViews(format, options?.system, messages, 'fromMessages()');
  const conversation = conversationFromOpenAI(jsonCopy<Json>(views, 'fromMessages()')) as unknown as Conversation & {
    compactions: Compaction[];
  };
  delete conversation.source; // the views' own shapes: the native messages are the source
  const native: NativeMessages<M> = { format: session.format, messages: [...messages] };
  if (options?.system != null) native.system = options.system;
  return { ...conversation, native };
}

/** The provider messages a conversation was made of by {@link fromMessages}, as given (no
 * compaction applied: the restore of a compacted conversation). */
export function toMessages<M = unknown>(conversation: Conversation): NativeMessages<M> {
  const native = conversation?.native;
  if (native === undefined || native === null || !Array.isArray(native.messages)) {
    throw new CompressError('InvalidInput', 'toMessages(): the conversation was not made by fromMessages()', '/conversation/native');
  }
  return { ...native, messages: [...native.messages] } as NativeMessages<M>;
}

/** Reasoning a view carries as parts (Anthropic thinking, AI SDK and Responses reasoning), as the
 * `reasoning_content` compaction reads: its `reasoning` policy then strips it like OpenAI's. */
const REASONING_PARTS = new Set(['thinking', 'redacted_thinking', 'reasoning']);
function reasoningOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content as Array<Record<string, unknown>>) {
    if (part === null || typeof part !== 'object' || !REASONING_PARTS.has(String(part.type))) continue;
    const text = part.thinking ?? part.text;
    texts.push(typeof text === 'string' && text !== '' ? text : `[${String(part.type)}]`);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** The session mapping of native messages and the OpenAI-shaped messages of its views. */
function nativeViews(
  format: unknown,
  system: unknown,
  messages: readonly unknown[],
  caller: string,
): { session: NativeSession; views: Array<Record<string, unknown>>; results: Set<number> } {
  const session = new NativeSession(format as MessageFormat, system, '/options');
  const results = new Set<number>();
  const specs: ViewSpec[] = [];
  session.split(messages, messages, (spec) => specs.push(spec), caller);
  // Turns keep a step whole already: only real calls (answered by a result) and real results are
  // paired here; a step continuation (a Responses item after a call) keeps its own role.
  const answered = new Set<string>();
  for (const spec of specs) if (spec.role === 'tool' && spec.key !== undefined) answered.add(spec.key);
  const lead = session.systemMessage();
  const views: Array<Record<string, unknown>> = lead ? [lead] : [];
  for (const spec of specs) {
    const result = spec.role === 'tool' && spec.key !== undefined;
    // A real tool result (not a step continuation) may have its text stripped by a compaction.
    if (result) results.add(views.length);
    const calls = (spec.toolCalls ?? []).filter((call) => spec.countCalls || answered.has(String((call as Record<string, unknown>).id)));
    const view = sessionMessage(
      { ...spec, callId: result ? spec.callId : undefined, toolCalls: calls.map((call) => withArguments(call, spec.content)) },
      true,
    );
    const reasoning = reasoningOf(spec.content);
    if (reasoning !== undefined && view.role === 'assistant') view.reasoning_content = reasoning;
    views.push(view);
  }
  return { session, views, results };
}

/** A call whose arguments live in its content part (a Responses call item) gets them back. */
function withArguments(call: unknown, content: unknown): unknown {
  const c = call as { function?: { name?: unknown; arguments?: unknown } };
  if (c.function === undefined || c.function.arguments !== '' || !Array.isArray(content)) return call;
  for (const part of content as Array<Record<string, unknown>>) {
    if (part === null || typeof part !== 'object' || part.name !== c.function.name) continue;
    const args = part.arguments ?? part.input;
    if (args === undefined) continue;
    return { ...c, function: { ...c.function, arguments: typeof args === 'string' ? args : JSON.stringify(args) ?? '' } };
  }
  return call;
}

/** Maps projected events back to the native messages of a conversation made by fromMessages. */
function nativeOf(conversation: Conversation, caller: string): { messages(view: ProjectedView): NativeMessages } {
  const native = conversation?.native;
  if (native === undefined || native === null || !Array.isArray(native.messages)) {
    throw new CompressError(
      'InvalidInput',
      `${caller}: format 'messages' needs a conversation made by fromMessages()`,
      '/conversation/native',
    );
  }
  const { session, results } = nativeViews(native.format, native.system, native.messages, caller);
  // Each turn's views, and which views carry reasoning, from the turns as they were.
  const reasoned = new Set<number>();
  const turnViews: number[][] = [];
  for (const turn of conversation.turns ?? []) {
    const views: number[] = [];
    for (const event of turn.events ?? []) {
      const source = (event.source as { message?: unknown } | undefined)?.message;
      if (typeof source !== 'number') continue;
      if (views[views.length - 1] !== source) views.push(source);
      if (event.type === 'reasoning') reasoned.add(source);
    }
    turnViews.push(views);
  }
  return {
    messages(view) {
      // Whole turns go (a summary pair takes their place); a kept message is the caller's own
      // unless compaction stripped some of it: tool results, tool inputs or reasoning, which the
      // format's own clearing edit then strips (a call keeps its result, stripped or not).
      const sources: number[] = [];
      const summaries: Array<Record<string, unknown>> = [];
      const edits = new Map<number, ClearingEdit>();
      const editOf = (h: number): { results: Map<string, string>; inputs: Set<string>; reasoning: boolean } => {
        const n = session.messageOf(h);
        let edit = edits.get(n) as ReturnType<typeof editOf> | undefined;
        if (edit === undefined) edits.set(n, (edit = { results: new Map(), inputs: new Set(), reasoning: false }));
        return edit;
      };
      const kept = new Set<number>();
      const reasoningKept = new Set<number>();
      for (const turn of view.turns) {
        // A turn kept is kept whole, as the provider needs it (no call without its result).
        if (turn.summaryOf === undefined) {
          for (const h of turnViews[turn.turn] ?? []) {
            if (!kept.has(h)) sources.push(h);
            kept.add(h);
          }
        }
        for (const event of turn.events) {
          const source = (event.source as { message?: unknown } | undefined)?.message;
          if (typeof source !== 'number') {
            if (event.compactedBy !== undefined && (event.type === 'user' || event.type === 'assistant')) {
              sources.push(-1);
              summaries.push({ role: event.type, content: typeof event.content === 'string' ? event.content : '' });
            }
            continue;
          }
          if (!kept.has(source)) sources.push(source);
          kept.add(source);
          if (event.type === 'reasoning') reasoningKept.add(source);
          if (event.compactedBy === undefined || source < session.offset) continue;
          if (event.type === 'toolResponse' && results.has(source) && typeof event.content === 'string' && event.id !== undefined) {
            editOf(source).results.set(String(event.id), event.content);
          } else if (event.type === 'toolRequest' && event.id !== undefined) {
            editOf(source).inputs.add(String(event.id));
          }
        }
      }
      for (const h of reasoned) {
        if (kept.has(h) && !reasoningKept.has(h) && h >= session.offset) editOf(h).reasoning = true;
      }
      const answer: NativeMessages = { format: native.format, messages: session.view(sources, summaries, edits) };
      if (native.system != null) answer.system = native.system;
      return answer;
    },
  };
}

// ---- plumbing ----------------------------------------------------------------------------------

function run<Output>(request: Record<string, unknown>, caller: string): Output {
  return callSession<Output>('compactionJson', engineRequest(request), caller).output as Output;
}

/** The engine reads the turns and the log: the native messages stay here. A view's format is
 * checked here, where the engine checked it before the JS layer converted views (so its error
 * comes when and as it did), and stays here too. */
function engineRequest(given: Record<string, unknown>): Record<string, unknown> {
  let request = given;
  if ('format' in request) {
    const { format, ...rest } = request;
    const f = asJson(format);
    if (f !== undefined && f !== null && f !== 'events' && f !== 'openai' && f !== 'anthropic' && f !== NOT_JSON) {
      throw new CompressError('InvalidInput', 'format must be "events", "openai" or "anthropic"', '/format');
    }
    if (f !== NOT_JSON) request = rest; // else callSession reports the request as not JSON
  }
  const conversation = request.conversation as Conversation | undefined;
  if (conversation === null || typeof conversation !== 'object' || conversation.native === undefined) return request;
  const { native: _native, ...rest } = conversation;
  return { ...request, conversation: rest };
}

/** The compact/dryRun request fields of the options (the summarizer stays here). */
function compactFields(
  options: CompactOptions | undefined,
  caller: string,
  native = false,
): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') {
    throw new CompressError('InvalidInput', `${caller}: options must be an object`, '/options');
  }
  const {
    summarizer: _summarizer,
    tokenBudget: _tokenBudget,
    summary,
    ...fields
  } = options as CompactOptions & { format?: unknown };
  delete (fields as { format?: unknown }).format;
  // JSON would turn NaN and ±Infinity into null, which reads as "not given".
  for (const key of ['from', 'to', 'keepFirst', 'keepLast'] as const) {
    const value = fields[key];
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new CompressError(
        'InvalidInput',
        `${caller}: ${key} must be a turn index, an offset or a duration, not ${value}`,
        `/${key}`,
      );
    }
  }
  const out: Record<string, unknown> = { ...fields };
  const policy = fields.toolCalls;
  if (native && (policy === 'omit' || (typeof policy === 'object' && policy !== null && policy.policy === 'omit'))) {
    // A provider message holds its calls among other content: strip them instead.
    throw new CompressError(
      'InvalidInput',
      `${caller}: toolCalls 'omit' is not available for a conversation in a provider format; use 'strip'`,
      '/toolCalls',
    );
  }
  if (summary !== undefined) {
    out.summary =
      summary === false ? null : typeof summary === 'string' ? { summary } : summary;
  }
  return out;
}

/** The compactions tokenBudget tries, lightest first. */
const BUDGET_LADDER: ReadonlyArray<{ profile: ProfileName; keepLast?: number }> = [
  { profile: 'light' },
  { profile: 'default' },
  { profile: 'heavy' },
  { profile: 'heavy', keepLast: 2 },
  { profile: 'heavy', keepLast: 1 },
];

interface Projected {
  compaction: Compaction | null;
  tokens: { before: number; after: number };
}

/**
 * With `tokenBudget`: the options of the lightest compaction whose projection fits (or of the
 * heaviest, if none does), found by deterministic dry runs; no compaction when the view fits.
 */
function budgetChoice(
  conversation: Conversation,
  options: CompactOptions,
  caller: string,
): { options: CompactOptions; fits: boolean; none: boolean } {
  const budget = options.tokenBudget;
  if (typeof budget !== 'number' || !(budget >= 0) || budget === Infinity) {
    throw new CompressError(
      'InvalidInput',
      `${caller}: tokenBudget must be a non-negative finite number of tokens`,
      '/tokenBudget',
    );
  }
  for (const key of ['profile', 'reasoning', 'toolCalls', 'summary'] as const) {
    if (options[key] != null) {
      throw new CompressError(
        'InvalidInput',
        `${caller}: tokenBudget chooses the profile; leave out ${key}`,
        `/${key}`,
      );
    }
  }
  const { summarizer: _summarizer, tokenBudget: _budget, ...bounds } = options;
  let last: { options: CompactOptions; after: number } | undefined;
  for (const step of BUDGET_LADDER) {
    const tried: CompactOptions = {
      ...bounds,
      profile: step.profile,
      ...(step.keepLast !== undefined && bounds.keepLast === undefined && bounds.to === undefined
        ? { keepLast: step.keepLast }
        : {}),
    };
    const dry = run<Projected>(
      { op: 'dryRun', conversation, ...compactFields(tried, caller) },
      caller,
    );
    if (dry.tokens.before <= budget) return { options: tried, fits: true, none: true };
    if (dry.compaction === null) continue;
    if (dry.tokens.after <= budget) return { options: tried, fits: true, none: false };
    if (last === undefined || dry.tokens.after < last.after) {
      last = { options: tried, after: dry.tokens.after };
    }
  }
  return last === undefined
    ? { options: bounds, fits: false, none: true }
    : { options: last.options, fits: false, none: false };
}

function withSummarizer<Output extends { fits?: boolean }, Result>(
  conversation: Conversation,
  given: CompactOptions | undefined,
  op: 'compact' | 'dryRun',
  extra: Record<string, unknown>,
  caller: string,
  finishOutput: (output: Output) => Result,
): Result | Promise<Result> {
  let options = given;
  let finish = finishOutput;
  if (given != null && typeof given === 'object' && given.tokenBudget !== undefined) {
    const choice = budgetChoice(conversation, given, caller);
    // Nothing to add: the same answer as a request whose bounds leave no turn.
    options = choice.none
      ? { ...choice.options, profile: 'default', keepLast: Number.MAX_SAFE_INTEGER }
      : { ...choice.options };
    if (choice.none) delete options.to;
    options.summarizer = given.summarizer ?? null; // async whenever the caller gave one
    finish = (output) => finishOutput({ ...output, fits: choice.fits });
  }
  const request = { op, conversation, ...compactFields(options, caller, conversation?.native != null), ...extra };
  const summarizer = options?.summarizer;
  if (summarizer == null) return finish(run<Output>(request, caller));
  if (typeof summarizer !== 'function') {
    throw new CompressError('InvalidInput', `${caller}: summarizer must be a function`,
      '/summarizer');
  }
  const summaries: Array<string | null> = [];
  const host = { summarizer: true, summaries };
  return (async () => {
    for (let round = 0; ; round++) {
      const answer = callSession<Output, { summaries: Array<{ text: string; budget: number }> }>(
        'compactionJson',
        engineRequest({ ...request, host }),
        caller,
      );
      if (answer.output !== undefined) return finish(answer.output);
      if (round >= 4) throw new CompressError('Internal', `${caller}: the engine kept asking`);
      for (const { text, budget } of answer.pending?.summaries ?? []) {
        let reply: string | null = null;
        try {
          const value = await summarizer(text, { budget });
          reply = typeof value === 'string' ? value : null;
        } catch {
          reply = null; // a failing summarizer falls back to the deterministic summary
        }
        summaries.push(reply);
      }
    }
  })();
}

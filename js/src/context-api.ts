// SPDX-License-Identifier: MIT
// The context manager (issue 7): a serialisable session whose state the session module holds by
// handle (context_json.h, "Held states"), with a copy here that toJSON() returns and re-opens it.
import { CompressError } from './errors.js';
import type { MessageFormat } from './format-shapes.js';
import { detectFormat } from './format-detect.js';
import { compactionPoint, type CachePrices } from './cache-policy.js';
import { callSession, currentSessionInstance, jsonCopy, sessionInstance } from './session-load.js';
import { NativeSession, type NativeHistory } from './session-formats.js';
import { foldChains, requestMessages, unfoldChains } from './tool-chains.js';

// ---- public shapes ------------------------------------------------------------------------------

/** One OpenAI-style tool call of an assistant message. */
export interface ChatToolCall {
  id: string;
  type?: 'function' | string;
  function: { name: string; arguments: string };
  [key: string]: unknown;
}

/**
 * A chat message in the OpenAI Chat Completions shape. `role` is required; string `content` is
 * what is counted and summarised; `tool_calls` / `tool_call_id` define the atomic tool-call groups.
 * Every other field is kept as it is in the history.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | (string & {});
  content?: unknown;
  /** Recorded in a checkpoint's `originalMessageIds` (null when absent). */
  id?: string | number;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Counts the tokens of one message (sync). Default: the built-in estimate (`tokenEstimate`). */
export type ContextTokenCounter = (message: ChatMessage) => number;

/** What a context summarizer is asked to summarise. */
export interface ContextSummaryRequest {
  /** Summary budget in tokens (set by the level). */
  budget: number;
  level: CompressionLevel;
  /** The history range `[start, end)` being summarised. */
  messageRange: MessageRange;
  /** The raw messages of that range (copies; never an earlier summary). */
  messages: ChatMessage[];
}

/**
 * An LLM summarizer: the range's transcript in, a summary out. A reply that is not a non-empty
 * string shorter than `text`, or a throw / rejection, falls back to the deterministic summary
 * (a stats line; `Artifacts: …`, the range's paths, identifiers, commands, errors, requests and
 * its tool calls' short arguments, newest first, in up to 0.8 of the budget; then sentences
 * picked from the transcript).
 */
export type ContextSummarizer = (
  text: string,
  request: ContextSummaryRequest,
) => string | Promise<string>;

/** Summary level, chosen by the size T (tokens) of the range: compact T < 2000, moderate
 * T < 8000, detailed otherwise (budgets 10 / 15 / 20 % of T, capped by 4 / 7 / 10 % of
 * `available`, at least 32 tokens). */
export type CompressionLevel = 'compact' | 'moderate' | 'detailed';

/** A stage of compress, in order, with its percentage (10, 25, 60, 75, 90, 100). */
export interface ProgressEvent {
  stage: 'identify' | 'prepare' | 'summarize' | 'createCheckpoint' | 'updateContext' | 'validate';
  percent: number;
  message: string;
}

/** The numeric configuration of a manager (what `toJSON()` stores). */
export interface ContextSettings {
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Tokens of the system prompt; default: the tokens of the leading system messages. */
  systemPromptTokens?: number;
  /** Tokens reserved for the next prompt. Default 0. */
  promptBudget?: number;
  /** Tokens kept free. Default 0. */
  safetyMargin?: number;
  /** Compress when the conversation exceeds `threshold × available`. Default 0.75 (0.9 with `cacheCost`). */
  threshold?: number;
  /** Messages kept raw at the end (moved back to a tool-call group start). Default 5. */
  keepLast?: number;
  /** Conversation messages kept raw at the start. Default 0. */
  keepFirst?: number;
  /** The summarizer's input window in tokens: the newest groups are trimmed to fit. */
  summaryInputTokens?: number;
  /** Older checkpoints are merged while more than this many are active. Default 4 (8 with `cacheCost`). */
  maxCheckpoints?: number;
  /** Checkpoints this many compressions old are re-summarised one level lower. Default 2 (8 with `cacheCost`). */
  ageAfter?: number;
  /**
   * The built-in count without a `tokenCounter`: `'script'` (default; CJK-aware, the same
   * estimate as compress's default mode, with array content priced by its parts) or `'chars'`,
   * the reference's `ceil(content.length / 3.5)`.
   */
  tokenEstimate?: 'script' | 'chars';
}

/** Callbacks of a manager; they are not serialised (give them again to `fromJSON`). */
export interface ContextCallbacks {
  /** Your token counter (sync); every message is counted once, when added. */
  tokenCounter?: ContextTokenCounter | null;
  /** Makes `compress()` return a Promise and summarise with your model. */
  summarizer?: ContextSummarizer | null;
  /** Receives every compress stage (before the summarizer runs, then the rest). */
  onProgress?: (event: ProgressEvent) => void;
  /** The `createdAt` of checkpoints and the time of log events. Default: ISO 8601 now. */
  clock?: () => string | number;
  /**
   * The provider's prompt-cache prices (`{ provider: 'anthropic' | 'openai', ... }`, as
   * `CacheCostModel` of `cce-wasm/cache`). With them `shouldCompress()` also holds, below the
   * threshold, once the view has grown by the batch that makes a compaction cheapest
   * (js/src/cache-policy.ts): fewer, larger rewrites of the cached prefix. `minFill` (default
   * 0.5) keeps that rule from compacting a view under `minFill × threshold` tokens: the
   * cheapest batch is often small, and what a view holds is what the model can use. Not
   * serialised. Given to createContextManager, it also changes the defaults of `threshold`
   * (0.9), `maxCheckpoints` (8) and `ageAfter` (8): see docs/cache-cost.md.
   */
  cacheCost?: (CachePrices & { minFill?: number }) | null;
}

/** The message format of a manager (issue 20 item 1; not serialised with the settings). */
export interface ContextFormatOptions {
  /**
   * The format `add()` takes and `view()` answers in: `'openai-chat'`, `'openai-responses'`,
   * `'anthropic'`, `'ai-sdk'`, `'ai-sdk-ui'` or `'langchain'` (the formats of `cce-wasm/formats`).
   * Absent: the manager's own OpenAI Chat messages, until a message only another format has (an
   * Anthropic block, an AI SDK part, a UIMessage, a Responses item, a LangChain instance) names
   * that format.
   */
  format?: MessageFormat;
  /** Anthropic: the request's `system` (string or text blocks), counted as the system prompt. */
  system?: unknown;
}

/** Options of {@link createContextManager}. */
export type ContextManagerConfig = ContextSettings & ContextCallbacks & ContextFormatOptions;

/** `[start, end)` indices into the full history. */
export interface MessageRange {
  start: number;
  end: number;
}

/** One compression: a summary standing for `messageRange` of the history. */
export interface Checkpoint {
  id: string;
  createdAt: string | number | null;
  summary: string;
  originalMessageIds: Array<ChatMessage['id'] | null>;
  messageRange: MessageRange;
  originalTokens: number;
  compressedTokens: number;
  /** originalTokens / compressedTokens. */
  compressionRatio: number;
  level: CompressionLevel;
  compressionNumber: number;
  summarizer: 'deterministic' | 'host';
  /** Ids of the checkpoints a merged checkpoint replaced. */
  mergedFrom?: string[];
  /** Archived checkpoints only. */
  status?: 'merged' | 'undone';
  /** Archived merged checkpoints: the checkpoint that replaced it. */
  replacedBy?: string;
}

/** Token accounting of the current view. */
export interface ContextUsage {
  system: number;
  /** Tokens of the summary messages. */
  checkpoints: number;
  /** Tokens of the raw messages sent. */
  recent: number;
  /** checkpoints + recent. */
  conversation: number;
  /** system + conversation. */
  total: number;
  /** contextWindow − system − promptBudget − safetyMargin. */
  available: number;
  /** floor(threshold × available): compression is due strictly above it. */
  threshold: number;
  /** conversation / available, in percent with one decimal. */
  percent: number;
  messages: number;
  activeCheckpoints: number;
  overThreshold: boolean;
  canCompress: boolean;
  /** overThreshold && canCompress. */
  shouldCompress: boolean;
}

/** Why a view does or does not fit. */
export interface ViewValidation {
  fits: boolean;
  underThreshold: boolean;
  tokens: number;
  available: number;
  reasons: Array<{ code: string; message: string }>;
}

/** What to send: the system block, checkpoint summaries, recent messages. */
export interface ContextView {
  /** In the manager's format: unchanged messages are the objects you added (see `format`). */
  messages: ChatMessage[];
  /** Anthropic with a `system`: the system prompt as given, to send beside `messages`. */
  system?: unknown;
  validation: ViewValidation;
  usage: ContextUsage;
}

/** The result of {@link ContextManager.compress}. */
export interface CompressOutcome {
  compressed: boolean;
  checkpoint: Checkpoint | null;
  /** Ids re-summarised one level lower. */
  aged: string[];
  /** Ids of new merged checkpoints. */
  merged: string[];
  progress: ProgressEvent[];
  validation: ViewValidation;
  usage: ContextUsage;
  /** Still over the threshold and another compress can summarise more. */
  again: boolean;
}

/** The result of {@link ContextManager.undo}. */
export interface UndoOutcome {
  checkpoint: Checkpoint;
  usage: ContextUsage;
}

/** The serialised manager (`toJSON()`): the full history, checkpoints and the session log. */
export interface ContextState {
  format: 'cce-context/1';
  config: Required<Omit<ContextSettings, 'systemPromptTokens' | 'summaryInputTokens'>> &
    Pick<ContextSettings, 'systemPromptTokens' | 'summaryInputTokens'> & {
      tokenCounter: boolean;
      summarizer: boolean;
    };
  messages: ChatMessage[];
  tokens: number[];
  checkpoints: Checkpoint[];
  archive: Checkpoint[];
  events: Array<Record<string, unknown>>;
  compressions: number;
  nextId: number;
  summaryTokens: Record<string, number>;
  /** A manager in a provider format: the messages as given (`messages` holds their views). */
  native?: NativeHistory;
}

/** Progress recovered from a visible list with a summary message (see {@link recoverProgress}). */
export interface RecoveredProgress {
  found: boolean;
  /** Position of the summary message in the list, null when there is none. */
  summaryIndex: number | null;
  coveredUntil: number;
  originalCount: number;
  target: number;
  /** `target` moved back to the start of its tool-call group, never below coveredUntil. */
  alignedTarget: number;
}

/** One API-validity problem of a message list (see {@link checkConversation}). */
export interface ConversationIssue {
  kind: 'orphanToolResult' | 'missingToolResult' | 'roleRepeat' | 'firstNotUser';
  index: number;
}

// ---- the engine protocol ------------------------------------------------------------------------

interface PendingSummary {
  key: string;
  text: string;
  budget: number;
  level: CompressionLevel;
  messageRange: MessageRange;
}

interface Pending {
  counts?: Array<{ key: string; message: ChatMessage }>;
  summaries?: PendingSummary[];
  progress?: ProgressEvent[];
}

interface Host {
  counts: Record<string, number>;
  summaries: Record<string, string | null>;
}

// Each compress needs at most two rounds (summaries, then counts); a few more absorb messages added
// while an async summarizer ran (the next round then uses the newer state).
const MAX_ROUNDS = 8;

type Step<Output> = Generator<PendingSummary[], Output, Array<string | null>>;

/** compress() is synchronous without a summarizer and returns a Promise with one. */
type Compressed<Async extends boolean> = Async extends true
  ? Promise<CompressOutcome>
  : Async extends false
    ? CompressOutcome
    : CompressOutcome | Promise<CompressOutcome>;

/**
 * The defaults of a manager created with `cacheCost` (docs/cache-cost.md): one summary message
 * per checkpoint stays byte-identical (and cached) while no merge or aging rewrites it, so the
 * cache-aware manager keeps up to 8 checkpoints and ages one only when it is 8 compressions old;
 * the rewrites that saves pay for compacting at 0.9 of the available tokens instead of 0.75,
 * a larger view with more of what the next call reuses (the replays of scripts/bench-cost.mjs:
 * 98.7 % of those strings instead of 98.0 %, at 0.45 of sending everything instead of 0.40).
 */
const CACHE_COST_SETTINGS: Readonly<Pick<ContextSettings, 'threshold' | 'maxCheckpoints' | 'ageAfter'>> = {
  threshold: 0.9,
  maxCheckpoints: 8,
  ageAfter: 8,
};

// What a first compress leaves of the conversation, for cacheCost before there is one to measure:
// summaries of 10-20 % of their range plus the kept tail (the replays of scripts/bench-cost.mjs
// left 0.2-0.35 of it).
const FIRST_COMPACTION_LEAVES = 0.3;

// The constructor is private to the module: createContextManager builds through this.
let makeManager: (
  state: ContextState,
  usage: ContextUsage,
  callbacks: ContextCallbacks,
  native: NativeSession | undefined,
) => ContextManager;

/**
 * A running conversation kept under a model's window: add messages, send `view()`, compress when
 * `shouldCompress()`. The full history is never lost: checkpoints are projections that `undo`
 * removes, and `toJSON()` / {@link ContextManager.fromJSON} persist everything.
 *
 * `Async` is true when a summarizer is configured (`compress()` then returns a Promise).
 *
 * @example
 * const chat = createContextManager({ contextWindow: 8000, promptBudget: 1000, keepLast: 6 });
 * chat.add({ role: 'user', content: 'hello' });
 * if (chat.shouldCompress()) chat.compress();
 * await callModel(chat.view().messages);
 */
export class ContextManager<Async extends boolean = boolean> {
  /**
   * The manager's copy of its state (what toJSON() returns). The engine holds the same state by
   * handle; this copy follows it by appending what add() sent and the deltas compress() / undo()
   * return, and re-opens the engine's state when the instance was lost (a trap re-creates it).
   */
  #state: ContextState;
  /** fromJSON(): the engine's normalised form of the given state, which becomes #state at the
   * first change (as the state the engine returned did before states were held by handle). */
  #normalised: ContextState | undefined;
  #usage: ContextUsage;
  readonly #callbacks: ContextCallbacks;
  /** The engine's handle of this state, and the instance it lives in. */
  #held: HeldState | undefined;
  /** The summary messages of the last view() and the engine's key for them (context_json.h):
   * a view between two compressions gets the indices only, not the summaries again. */
  #viewSummaries: { key: string; messages: ChatMessage[] } | undefined;
  /** A manager in a provider format: its messages and how they map to the history's views. */
  #native: NativeSession | undefined;
  /** No format yet and only plain messages so far: a later message may still name a format. */
  #detecting = false;
  /** cacheCost: conversation tokens right after the last compress, and view() calls since. */
  #compacted: number | undefined;
  #viewsSince = 0;

  static {
    makeManager = (state, usage, callbacks, native) => {
      const manager = new ContextManager(state, usage, callbacks);
      manager.#native = native;
      manager.#detecting = native === undefined;
      const system = native?.systemMessage();
      if (system !== undefined) manager.#append([system as ChatMessage], { messages: [system] });
      return manager;
    };
  }

  /** Use {@link createContextManager} or {@link ContextManager.fromJSON}. */
  private constructor(state: ContextState, usage: ContextUsage, callbacks: ContextCallbacks) {
    this.#state = state;
    this.#usage = usage;
    this.#callbacks = callbacks;
  }

  /**
   * Restores a manager from `toJSON()` output (an object or its JSON text). Callbacks are not
   * serialised: give the same `tokenCounter` the state was counted with (a state counted by the
   * default counter refuses one, and the other way round).
   */
  static fromJSON(
    state: ContextState | string,
    callbacks: ContextCallbacks & { summarizer: ContextSummarizer },
  ): ContextManager<true>;
  static fromJSON(
    state: ContextState | string,
    callbacks?: ContextCallbacks & { summarizer?: undefined | null },
  ): ContextManager<false>;
  static fromJSON(state: ContextState | string, callbacks?: ContextCallbacks): ContextManager;
  static fromJSON(state: ContextState | string, callbacks?: ContextCallbacks): ContextManager {
    callbacks = callbacksOf(callbacks ?? {});
    checkCallbacks(callbacks, 'fromJSON()');
    let copy: ContextState;
    try {
      copy = (typeof state === 'string' ? JSON.parse(state) : clone(state)) as ContextState;
    } catch (error) {
      throw new CompressError('InvalidInput', 'fromJSON(): the state is not JSON', '/state', {
        cause: error,
      });
    }
    if (copy === null || typeof copy !== 'object' || copy.config === null) {
      throw new CompressError(
        'InvalidInput',
        'fromJSON(): state.config must be an object',
        '/state/config',
      );
    }
    if (typeof copy.config !== 'object') {
      throw new CompressError(
        'InvalidInput',
        'fromJSON(): state.config must be an object',
        '/state/config',
      );
    }
    const counted = copy.config.tokenCounter === true;
    if (counted !== (callbacks.tokenCounter != null)) {
      throw new CompressError(
        'InvalidInput',
        counted
          ? 'fromJSON(): this state was counted with a tokenCounter; pass it again'
          : 'fromJSON(): this state was counted with the default counter; a tokenCounter would ' +
              'disagree with its counts',
        '/state/config/tokenCounter',
      );
    }
    copy.config.summarizer = callbacks.summarizer !== undefined;
    const native = copy.native;
    delete copy.native;
    const manager = new ContextManager(copy, undefined as unknown as ContextUsage, callbacks);
    if (native !== undefined) manager.#native = NativeSession.fromJSON(native);
    const opened = manager.#open(true);
    manager.#usage = opened.usage;
    manager.#normalised = opened.state;
    return manager;
  }

  /** Appends one message to the history (copied; your object is never changed). */
  add(message: ChatMessage): ContextUsage {
    if (this.#formatOf([message]) !== undefined) return this.#appendNative([message], 'add()');
    const copy = jsonCopy(message, 'add()') as ChatMessage | undefined;
    return this.#append(copy === undefined ? [] : [copy], { message: copy });
  }

  /** Appends several messages at once (one engine call). */
  addMany(messages: readonly ChatMessage[]): ContextUsage {
    if (!Array.isArray(messages)) {
      throw new CompressError('InvalidInput', 'addMany(): messages must be an array', '/messages');
    }
    if (this.#formatOf(messages) !== undefined) return this.#appendNative(messages, 'addMany()');
    const copies = jsonCopy(messages, 'addMany()') as ChatMessage[];
    return this.#append(copies, { messages: copies });
  }

  /** The manager's native session, started when these messages are the first to name a format
   * (the plain messages before them read the same in every format). */
  #formatOf(messages: readonly unknown[]): NativeSession | undefined {
    if (this.#native !== undefined || !this.#detecting) return this.#native;
    const format = detectFormat(messages);
    if (format === undefined || format === 'openai-chat') {
      const plain = (m: unknown) => {
        const o = m as ChatMessage | null;
        return o !== null && typeof o === 'object' && typeof o.content === 'string' && o.tool_calls === undefined && o.tool_call_id === undefined;
      };
      if (!messages.every(plain)) this.#detecting = false;
      return undefined;
    }
    this.#detecting = false;
    const native = new NativeSession(format, undefined);
    // The plain messages so far are their own views: the manager's copies stand for them.
    const earlier = this.#normalised?.messages ?? this.#state.messages;
    native.split(clone(earlier), clone(earlier));
    this.#native = native;
    return native;
  }

  /** Adds native messages as the views of their format. */
  #appendNative(messages: readonly unknown[], caller: string): ContextUsage {
    const copies = jsonCopy(messages, caller) as unknown as unknown[];
    const views = (this.#native as NativeSession).split(messages, copies);
    const copiesOfViews = jsonCopy(views, caller) as ChatMessage[];
    return this.#append(copiesOfViews, { messages: copiesOfViews });
  }

  /** Sends the copies (the engine appends them to its state) and appends them to the copy. */
  #append(copies: ChatMessage[], fields: Record<string, unknown>): ContextUsage {
    const output = this.#runSync<{ usage: ContextUsage; tokens: number[] }>('add', fields);
    this.#adoptNormalised();
    for (const message of copies) this.#state.messages.push(message);
    for (const n of output.tokens) this.#state.tokens.push(n);
    this.#usage = output.usage;
    return output.usage;
  }

  /** Token accounting of the current view (no engine call). */
  usage(): ContextUsage {
    return { ...this.#usage };
  }

  /** True when the view is over the threshold and a compress can reduce it. */
  shouldCompress(): boolean {
    const usage = this.#usage;
    const prices = this.#callbacks.cacheCost;
    if (usage.shouldCompress || prices == null || !usage.canCompress) return usage.shouldCompress;
    // Before the first compress, what it would leave is taken as FIRST_COMPACTION_LEAVES of the
    // conversation, and the growth per view is measured from an empty one.
    const after = this.#compacted ?? FIRST_COMPACTION_LEAVES * usage.conversation;
    const start = this.#compacted ?? 0;
    if (this.#viewsSince === 0 || usage.conversation <= (prices.minFill ?? 0.5) * usage.threshold) {
      return false;
    }
    const growth = (usage.conversation - start) / this.#viewsSince;
    return usage.conversation > compactionPoint(prices, after, growth);
  }

  /**
   * Summarises the earliest uncovered range before the kept tail into a new checkpoint, ages and
   * merges older ones, and validates the new view. Synchronous without a summarizer; a Promise
   * with one. Check `again` (or `shouldCompress()`) to know whether another call would help.
   */
  compress(): Compressed<Async> {
    const summarizer = this.#callbacks.summarizer;
    const emitted = { count: 0 };
    const steps = this.#steps<CompressOutcome>('compress', () => ({ now: this.#now() }), emitted);
    if (summarizer == null) {
      const outcome = this.#drive(steps);
      this.#finish(outcome, emitted);
      return outcome as Compressed<Async>;
    }
    return (async () => {
      let next = steps.next();
      while (!next.done) {
        const replies: Array<string | null> = [];
        for (const request of next.value) replies.push(await this.#summarize(summarizer, request));
        next = steps.next(replies);
      }
      this.#finish(next.value, emitted);
      return next.value;
    })() as Compressed<Async>;
  }

  /**
   * Compresses while `shouldCompress()` holds (each pass summarises more), then returns the
   * outcomes (empty when nothing was due).
   */
  compressIfNeeded(): Async extends true ? Promise<CompressOutcome[]> : CompressOutcome[] {
    type R = Async extends true ? Promise<CompressOutcome[]> : CompressOutcome[];
    const outcomes: CompressOutcome[] = [];
    if (this.#callbacks.summarizer == null) {
      while (this.shouldCompress()) {
        const outcome = this.compress() as CompressOutcome;
        outcomes.push(outcome);
        if (!outcome.compressed) break;
      }
      return outcomes as R;
    }
    return (async () => {
      while (this.shouldCompress()) {
        const outcome = await (this.compress() as Promise<CompressOutcome>);
        outcomes.push(outcome);
        if (!outcome.compressed) break;
      }
      return outcomes;
    })() as R;
  }

  /**
   * What to send to the model: the system block, one summary message per checkpoint
   * (`metadata.covered_until` = the history index it covers up to; a compress leaves the older
   * ones byte-identical, so a prompt cache keeps them) and the raw recent messages.
   * Valid for OpenAI and Anthropic: no orphaned tool message, roles alternate at the joints.
   */
  view(): ContextView {
    // The engine names the history messages by index and sends the summary messages when they
    // changed; the caller gets its own copies of both, made from the manager's (structurally, as
    // they are JSON values: cheaper than parsing the view's text again).
    const known = this.#viewSummaries?.key;
    const { sources, summaries, summaryKey, validation, usage } = this.#runSync<HeldView>(
      'view',
      known === undefined ? {} : { summariesKnown: known },
    );
    this.#viewsSince++;
    if (summaries !== undefined || this.#viewSummaries === undefined) {
      this.#viewSummaries = { key: summaryKey, messages: summaries ?? [] };
    }
    const history = this.#state.messages;
    const kept = this.#viewSummaries.messages;
    const native = this.#native;
    if (native !== undefined) {
      // The provider-format path reads the view as indices (negative for a summary).
      const indices: number[] = [];
      for (const source of sources) {
        if (typeof source === 'number') indices.push(source);
        else for (let i = source[0]; i <= source[1]; i++) indices.push(i);
      }
      const ranges = this.#state.checkpoints.map((c) => c.messageRange);
      const copies = kept.map((m) => copyJson(m)) as unknown as Record<string, unknown>[];
      const messages = native.view(indices, copies, undefined, ranges) as ChatMessage[];
      const answer: ContextView = { messages, validation, usage };
      if (native.system != null) answer.system = clone(native.system);
      return answer;
    }
    let summary = 0;
    const messages: ChatMessage[] = [];
    for (const source of sources) {
      if (typeof source === 'number') {
        messages.push(copyJson(source < 0 ? kept[summary++] : history[source]) as ChatMessage);
      } else {
        for (let i = source[0]; i <= source[1]; i++) {
          messages.push(copyJson(history[i] as ChatMessage));
        }
      }
    }
    return { messages, validation, usage };
  }

  /** Removes a checkpoint: its messages are sent raw again. Throws for an unknown id. */
  undo(checkpointId: string): UndoOutcome {
    return this.#change<UndoOutcome>('undo', { checkpoint: checkpointId, now: this.#now() });
  }

  /** The active checkpoints, oldest range first (copies). */
  get checkpoints(): Checkpoint[] {
    return clone(this.#state.checkpoints);
  }

  /** Merged and undone checkpoints, in the order they left (copies). */
  get archive(): Checkpoint[] {
    return clone(this.#state.archive);
  }

  /** The full history exactly as added (copies). */
  get history(): ChatMessage[] {
    if (this.#native !== undefined) return this.#native.history() as ChatMessage[];
    return clone(this.#state.messages);
  }

  /** The whole session as a JSON value: history, checkpoints, archive, log and configuration
   * (and, in a provider format, the messages as given in `native`). */
  toJSON(): ContextState {
    const state = clone(this.#state);
    if (this.#native !== undefined) state.native = this.#native.toJSON();
    return state;
  }

  #now(): string | number {
    const clock = this.#callbacks.clock;
    if (!clock) return new Date().toISOString();
    try {
      return clock();
    } catch (error) {
      throw callbackFailed('clock', error);
    }
  }

  /** Runs a state-changing op synchronously and commits its state. */
  #change<Output extends { usage: ContextUsage }>(
    op: string,
    fields: Record<string, unknown>,
  ): Output {
    const output = this.#runSync<Output & { ledger?: LedgerDelta }>(op, fields);
    this.#commit(output);
    return output;
  }

  #commit(output: { ledger?: LedgerDelta; usage: ContextUsage }): void {
    if (output.ledger) {
      this.#adoptNormalised();
      const d = output.ledger;
      const s = this.#state;
      s.checkpoints = d.checkpoints;
      for (const cp of d.archive) s.archive.push(cp);
      for (const event of d.events) s.events.push(event);
      s.compressions = d.compressions;
      s.nextId = d.nextId;
      s.summaryTokens = d.summaryTokens;
      delete output.ledger;
    }
    this.#usage = output.usage;
  }

  #adoptNormalised(): void {
    if (this.#normalised === undefined) return;
    this.#state = this.#normalised;
    this.#normalised = undefined;
  }

  /** The handle of this state in the live instance, opened (again) from the copy when needed. */
  #handle(): number {
    const instance = sessionInstance();
    if (this.#held?.instance === instance) return this.#held.handle;
    return this.#open(false).handle;
  }

  /** Opens the copy in the engine; `echo` also returns the engine's normalised state. */
  #open(echo: boolean): { handle: number; usage: ContextUsage; state?: ContextState } {
    this.#release();
    const opened = this.#drive(
      this.#steps<{ handle: number; usage: ContextUsage; state?: ContextState }>(
        'open',
        () => ({ state: this.#state, echo }),
        { count: 0 },
      ),
    );
    const held = { instance: sessionInstance(), handle: opened.handle };
    this.#held = held;
    heldStates.register(this, held, this);
    return opened;
  }

  /** Frees the engine's copy of this state (now, instead of when the manager is collected). */
  #release(): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    heldStates.unregister(this);
    closeHeld(held);
  }

  #runSync<Output>(op: string, fields: Record<string, unknown>): Output {
    return this.#drive(this.#steps<Output>(op, () => fields, { count: 0 }));
  }

  /** Drives the steps synchronously; summaries (if asked without a summarizer) fall back. */
  #drive<Output>(steps: Step<Output>): Output {
    let next = steps.next();
    while (!next.done) next = steps.next(next.value.map(() => null));
    return next.value;
  }

  /** The op's rounds: counts are answered here, summaries are yielded to the driver. */
  *#steps<Output>(
    op: string,
    fields: () => Record<string, unknown>,
    emitted: { count: number },
  ): Step<Output> {
    const host: Host = { counts: {}, summaries: {} };
    const request = fields();
    for (let round = 0; ; round++) {
      // Each round names the state's handle in the live instance (re-opened after a trap).
      const target = op === 'open' ? {} : { handle: this.#handle() };
      const answer = callSession<Output, Pending>(
        'contextJson',
        { op, ...target, ...request, host },
        op === 'open' ? 'fromJSON()' : `${op}()`,
        // JSON values already (the manager's copies, the host's counts and summaries), except
        // the clock's `now` of compress and undo, which JSON.stringify reads.
        op !== 'compress' && op !== 'undo',
      );
      if (answer.output !== undefined) return answer.output;
      if (round >= MAX_ROUNDS) {
        throw new CompressError('Internal', `${op}(): the engine kept asking for answers`);
      }
      const pending = answer.pending as Pending;
      for (const { key, message } of pending.counts ?? []) host.counts[key] = this.#count(message);
      const summaries = pending.summaries ?? [];
      if (summaries.length > 0) {
        this.#emit(pending.progress ?? [], emitted);
        const replies = yield summaries;
        summaries.forEach((s, i) => (host.summaries[s.key] = replies[i] ?? null));
      }
    }
  }

  #count(message: ChatMessage): number {
    const counter = this.#callbacks.tokenCounter;
    if (counter == null) {
      throw new CompressError('Internal', 'the engine asked for counts without a tokenCounter');
    }
    let n: unknown;
    try {
      n = counter(message);
    } catch (error) {
      throw callbackFailed('tokenCounter', error);
    }
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
      throw new CompressError(
        'CallbackFailed',
        `tokenCounter must return a finite non-negative number, got ${String(n)}`,
        '/tokenCounter',
      );
    }
    return n;
  }

  async #summarize(summarizer: ContextSummarizer, request: PendingSummary): Promise<string | null> {
    const { start, end } = request.messageRange;
    try {
      const reply = await summarizer(request.text, {
        budget: request.budget,
        level: request.level,
        messageRange: { start, end },
        messages: clone(this.#state.messages.slice(start, end)),
      });
      return typeof reply === 'string' ? reply : null;
    } catch {
      return null; // a failing summarizer falls back to the deterministic summary
    }
  }

  #emit(progress: readonly ProgressEvent[], emitted: { count: number }): void {
    const onProgress = this.#callbacks.onProgress;
    for (; emitted.count < progress.length; emitted.count++) {
      if (!onProgress) continue;
      try {
        onProgress({ ...(progress[emitted.count] as ProgressEvent) });
      } catch (error) {
        throw callbackFailed('onProgress', error);
      }
    }
  }

  /**
   * Commits the compression, then reports its remaining stages; an onProgress that throws undoes
   * the commit (the manager is as before the call, and the error is CallbackFailed).
   */
  #finish(outcome: CompressOutcome & { ledger?: LedgerDelta }, emitted: { count: number }): void {
    const state = this.#state;
    const normalised = this.#normalised;
    const usage = this.#usage;
    const { checkpoints, compressions, nextId, summaryTokens } = state;
    const archived = state.archive.length;
    const logged = state.events.length;
    const compacted = this.#compacted;
    const viewsSince = this.#viewsSince;
    this.#commit(outcome);
    if (outcome.compressed) {
      this.#compacted = outcome.usage.conversation;
      this.#viewsSince = 0;
    }
    try {
      this.#emit(outcome.progress, emitted);
    } catch (error) {
      Object.assign(state, { checkpoints, compressions, nextId, summaryTokens });
      state.archive.length = archived;
      state.events.length = logged;
      this.#state = state;
      this.#normalised = normalised;
      this.#usage = usage;
      this.#compacted = compacted;
      this.#viewsSince = viewsSince;
      this.#release(); // the engine's state has the compression: open the copy again when needed
      throw error;
    }
  }
}

/**
 * Creates a context manager. `available = contextWindow − system − promptBudget − safetyMargin`;
 * compression is due when the conversation exceeds `floor(threshold × available)` (window 6,963,
 * system 500, prompt 1,000, margin 1,000: available 4,463, due above 3,347 tokens).
 *
 * Throws CompressError `InvalidInput` for a bad setting and `BudgetTooSmall` when nothing is left
 * for the conversation.
 */
export function createContextManager(
  config: ContextManagerConfig & { summarizer: ContextSummarizer },
): ContextManager<true>;
export function createContextManager(
  config: ContextManagerConfig & { summarizer?: undefined | null },
): ContextManager<false>;
export function createContextManager(config: ContextManagerConfig): ContextManager;
export function createContextManager(config: ContextManagerConfig): ContextManager {
  if (config === null || typeof config !== 'object') {
    throw new CompressError(
      'InvalidInput',
      'createContextManager(): config must be an object',
      '/config',
    );
  }
  const { tokenCounter, summarizer, onProgress, clock, cacheCost, format, system, ...given } = config;
  const callbacks = callbacksOf({ tokenCounter, summarizer, onProgress, clock, cacheCost });
  // With cacheCost the settings you leave out default to CACHE_COST_SETTINGS (stored in the state
  // like any other setting, so fromJSON restores them without cacheCost).
  const settings: ContextSettings = { ...given };
  if (callbacks.cacheCost !== undefined) {
    settings.threshold ??= CACHE_COST_SETTINGS.threshold;
    settings.maxCheckpoints ??= CACHE_COST_SETTINGS.maxCheckpoints;
    settings.ageAfter ??= CACHE_COST_SETTINGS.ageAfter;
  }
  checkCallbacks(callbacks, 'createContextManager()');
  const native =
    format !== undefined || system != null ? new NativeSession(format ?? 'anthropic', system) : undefined;
  const answer = callSession<{ state: ContextState; usage: ContextUsage }>(
    'contextJson',
    {
      op: 'create',
      config: {
        ...settings,
        tokenCounter: callbacks.tokenCounter !== undefined,
        summarizer: callbacks.summarizer !== undefined,
      },
    },
    'createContextManager()',
  );
  const output = answer.output as { state: ContextState; usage: ContextUsage };
  return makeManager(output.state, output.usage, callbacks, native);
}

/** What compress() and undo() changed, in a state held by handle. */
interface LedgerDelta {
  checkpoints: Checkpoint[];
  /** Appended to the archive. */
  archive: Checkpoint[];
  /** Appended to the session log. */
  events: ContextState['events'];
  compressions: number;
  nextId: number;
  summaryTokens: ContextState['summaryTokens'];
}

/** view() of a held state: history indices (-1: the next summary message; [first, last]: a run
 * of consecutive ones) and the summaries (absent when they are those of `summariesKnown`). */
interface HeldView {
  sources: Array<number | [number, number]>;
  summaries?: ChatMessage[];
  summaryKey: string;
  validation: ViewValidation;
  usage: ContextUsage;
}

/** A state the engine holds for a manager: its handle in one instance of the session module. */
interface HeldState {
  instance: object;
  handle: number;
}

// States of managers that were collected without a trap of their instance are freed here. Some
// runtimes have no FinalizationRegistry (Cloudflare's workerd): there, a state lives as long as
// its instance.
const heldStates: Pick<FinalizationRegistry<HeldState>, 'register' | 'unregister'> =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<HeldState>(closeHeld)
    : { register: () => {}, unregister: () => false };

function closeHeld(held: HeldState): void {
  try {
    // A state of a trapped (dropped) instance went with it; a re-created instance has other handles.
    if (currentSessionInstance() === held.instance) {
      callSession('contextJson', { op: 'close', handle: held.handle }, 'close()');
    }
  } catch {
    // Freeing is best effort: a failing instance is re-created without the state anyway.
  }
}


// ---- stateless utilities ------------------------------------------------------------------------

/**
 * Folds each native tool-call chain (`assistant(tool_calls) → tool… → assistant`) into one
 * assistant message with `<details type="tool_calls">` blocks (Open WebUI style). The folded
 * message keeps what {@link unfoldToolChains} needs to restore the originals byte for byte.
 */
export function foldToolChains(messages: readonly ChatMessage[]): ChatMessage[] {
  sessionInstance(); // as every utility, only once the engine is loaded (its clear error if not)
  return foldChains(requestMessages('fold', messages, 'foldToolChains()')) as ChatMessage[];
}

/**
 * The inverse of {@link foldToolChains}; without its metadata (or after the text was edited) the
 * details blocks are parsed back into canonical OpenAI messages. Other messages pass through.
 */
export function unfoldToolChains(messages: readonly ChatMessage[]): ChatMessage[] {
  sessionInstance();
  return unfoldChains(requestMessages('unfold', messages, 'unfoldToolChains()')) as ChatMessage[];
}

/**
 * Recovers progress from a visible list that may contain a summary message (one whose
 * `metadata.covered_until` is a non-negative integer; the last one is used):
 * `originalCount = coveredUntil + messages after the summary`,
 * `target = max(coveredUntil, originalCount − keepLast)`. Refuses a folded list (InvalidInput).
 */
export function recoverProgress(messages: readonly ChatMessage[], keepLast = 5): RecoveredProgress {
  return listOp<RecoveredProgress>('recover', { messages, keepLast }, 'recoverProgress()');
}

/**
 * The OpenAI/Anthropic validity problems of a message list: tool results without their call,
 * calls without results, repeated user/assistant roles, a first message that is not a user's.
 * An empty array means the list can be sent as it is.
 */
export function checkConversation(messages: readonly ChatMessage[]): ConversationIssue[] {
  return listOp<{ issues: ConversationIssue[] }>('check', { messages }, 'checkConversation()')
    .issues;
}

function listOp<Output>(op: string, fields: Record<string, unknown>, caller: string): Output {
  return callSession<Output>('contextJson', { op, ...fields }, caller).output as Output;
}

/** The callbacks without null / undefined members (null means "none", as undefined). */
function callbacksOf(given: ContextCallbacks): ContextCallbacks {
  const callbacks: ContextCallbacks = {};
  for (const key of ['tokenCounter', 'summarizer', 'onProgress', 'clock', 'cacheCost'] as const) {
    if (given[key] != null) (callbacks as Record<string, unknown>)[key] = given[key];
  }
  return callbacks;
}

function checkCallbacks(callbacks: ContextCallbacks, caller: string): void {
  for (const key of ['tokenCounter', 'summarizer', 'onProgress', 'clock'] as const) {
    const value = callbacks[key];
    if (value !== undefined && typeof value !== 'function') {
      throw new CompressError('InvalidInput', `${caller}: ${key} must be a function`, `/${key}`);
    }
  }
  const prices = callbacks.cacheCost;
  if (prices != null && !(prices.provider === 'anthropic' || prices.provider === 'openai')) {
    throw new CompressError(
      'InvalidInput',
      `${caller}: cacheCost.provider must be 'anthropic' or 'openai'`,
      '/cacheCost/provider',
    );
  }
}

/** A callback of the manager threw: CallbackFailed, with the original as the cause. */
function callbackFailed(name: string, error: unknown): CompressError {
  return new CompressError(
    'CallbackFailed',
    `${name} threw: ${error instanceof Error ? error.message : String(error)}`,
    `/${name}`,
    { cause: error },
  );
}

/** A copy of a JSON value (what JSON.parse made): objects and arrays copied, the rest shared. */
function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Record<string, unknown>)[key]);
    // An own "__proto__" (JSON.parse makes one) must stay a property, not become the prototype.
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = item;
    }
  }
  return out as T;
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

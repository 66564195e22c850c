// SPDX-License-Identifier: MIT
// The public data shapes; the same names and keys as context-compression-engine v1.0.0 (spec §1).

/**
 * A chat message. Only `content` (when a string) is analysed; every other field is carried through.
 * Messages that come back unchanged are your own objects; compressed ones are shallow copies.
 */
export interface Message {
  /** Identity: the `verbatim` key and the provenance id. Required (any non-null value works). */
  id: string;
  /** Carried through untouched; never read. */
  index?: number;
  /** Role, matched against `preserve` and used to group consecutive messages. */
  role?: string;
  /**
   * The only field that is compressed. An array of content parts ({@link ContentPart}) has its text
   * parts compressed in the default mode (images and other parts stay verbatim); under
   * `compat: 'cce-1.0'` non-string content counts as empty and is preserved, as in the reference.
   */
  content?: string | ContentPart[];
  /** Carried; compressed messages get `metadata._cce_original` (see {@link CceOriginal}). */
  metadata?: Record<string, unknown>;
  /** A non-empty array keeps the message verbatim. */
  tool_calls?: unknown[];
  [key: string]: unknown;
}

/**
 * One element of an array `content`: OpenAI `{ type: 'text', text }` / `{ type: 'image_url' }`,
 * Anthropic `text` / `image` / `tool_use` / `tool_result` / `thinking` blocks, any other typed
 * part.
 * In the default mode the `text` parts are the message's text (joined with "\n") for
 * classification and summaries; a summarised message keeps its parts in order, with the summary in
 * its first text part and its other text parts dropped. For the built-in token estimates an image
 * part (`image_url`, `image`, `input_image`) costs its pixel size's price (inline data) or
 * {@link CompressOptions.imageTokens}, and any
 * other non-text part the estimate of its `JSON.stringify` text.
 */
export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** Provenance written into `metadata._cce_original` of a compressed message. */
export interface CceOriginal {
  ids: string[];
  summary_id: string;
  parent_ids?: string[];
  version: number;
}

/** A summarizer: text in, shorter text out (sync or async). Bad results fall back per request. */
export type Summarizer = (text: string) => string | Promise<string>;

/** A token counter, called on whole messages; used for `token_ratio` and every budget decision. */
export type TokenCounter = (message: Message) => number;

/**
 * `'cce-1.0'`: reproduce context-compression-engine 1.0.0 byte for byte. Without `compat` the
 * engine runs its safe mode: the same pipeline with the reference's known defects fixed (tool
 * results are never merged, forceConverge leaves untouched messages alone, statistics describe the
 * final output).
 */
export type CompatMode = 'cce-1.0';

/** The built-in token estimates (see {@link CompressOptions.tokenEstimate}). */
export type TokenEstimate = 'script' | 'chars';

/** Options of `compress` (spec §1.4); nullish values take the default. */
export interface CompressOptions {
  /** Roles that are never compressed. Default `['system']`. */
  preserve?: string[];
  /** The last N messages are kept verbatim. Default 4; 0 or less protects nothing. */
  recencyWindow?: number;
  /** Written into `_cce_original.version` and `compression.original_version`. Default 0. */
  sourceVersion?: number;
  /** Makes `compress` return a Promise; replies that are not shorter strings fall back. */
  summarizer?: Summarizer;
  /** Search the largest recency window whose output fits this many tokens. */
  tokenBudget?: number;
  /** Lower bound of the budget search. Default 0. */
  minRecencyWindow?: number;
  /** Exact deduplication (only `false` disables). Default true. */
  dedup?: boolean;
  /** Near-duplicate detection. Default false. */
  fuzzyDedup?: boolean;
  /** Jaccard threshold of `fuzzyDedup`. Default 0.85. */
  fuzzyThreshold?: number;
  /** Write `[summary#<id>: …` instead of `[summary: …`. Default false. */
  embedSummaryId?: boolean;
  /** Truncate the longest messages when the budget search cannot fit. Default false. */
  forceConverge?: boolean;
  /**
   * Counts tokens for `tokenBudget` and `token_ratio`. Default: the engine's built-in estimate
   * chosen by {@link CompressOptions.tokenEstimate} (the reference used
   * {@link defaultTokenCounter}).
   */
  tokenCounter?: TokenCounter;
  /**
   * The built-in estimate used when there is no `tokenCounter`. `'script'` counts by script (CJK
   * ideographs, kana and hangul cost about one token each, Latin words, digit groups and
   * punctuation runs as a BPE tokenizer splits them; within 4-9 % of o200k_base on real chats);
   * `'chars'` is the reference's `ceil(content.length / 3.5)`, which under-counts CJK 2-3x.
   * Default `'script'`, and `'chars'` under `compat: 'cce-1.0'`.
   */
  tokenEstimate?: TokenEstimate;
  /**
   * Default mode, built-in estimates: tokens of one image part of an array content whose size is
   * unknown (a URL, a file id, an unreadable header). Without it, an image with inline data (a
   * base64 `data:` URL or `source.data`) is priced by the pixel size in its PNG / JPEG / GIF / WebP
   * header with OpenAI's tile formula (85 in `detail: 'low'`), and any other costs 765, OpenAI's
   * price of a 1024 x 1024 image in high detail (85 + 4 tiles x 170). When given, every image
   * costs this: use 85 for low detail, or about width x height / 750 for Anthropic models.
   */
  imageTokens?: number;
  /** `'cce-1.0'`: the reference's exact behaviour (this package's addition). Default: safe mode. */
  compat?: CompatMode;
  /**
   * Requests larger than this many bytes (about the UTF-8 size of the contents and ids) are
   * rejected up front with `InputTooLarge` instead of exhausting wasm memory. Default 64 MiB
   * (67,108,864); `0` disables the limit. This package's addition.
   */
  maxInputBytes?: number;
  /**
   * Milliseconds to wait for each summarizer call; a call that has not settled by then rejects
   * `compress` with `CompressError` code `Timeout`. Default: no limit. This package's addition.
   */
  summarizerTimeoutMs?: number;
  /**
   * Replace the results of all but the newest tool uses with a short placeholder before anything
   * else runs, with or without a budget (Anthropic's `clear_tool_uses_20250919` on the caller's
   * side). `{}` takes the defaults. Reversible through `verbatim`. Not under `compat`.
   */
  clearToolResults?: ClearToolResultsOptions;
  /**
   * Drop the reasoning blocks (thinking, redacted thinking, AI SDK reasoning, Responses reasoning
   * items) of all but the newest assistant turns, whole blocks only (Anthropic's
   * `clear_thinking_20251015`). `{}` takes the defaults. Reversible through `verbatim`. Not under
   * `compat`.
   */
  clearReasoning?: ClearReasoningOptions;
}

/** Options of {@link CompressOptions.clearToolResults}. */
export interface ClearToolResultsOptions {
  /** The newest tool uses (results) kept as they are. Default 3, as Anthropic's. */
  keep?: number;
  /** Names of tools whose results are never cleared (nor counted against `keep`). Default none. */
  excludeTools?: string[];
  /** The text a cleared result becomes. Default `[cce:cleared tool result — N chars]`. */
  placeholder?: string;
  /** Also replace the cleared calls' inputs (arguments) with an empty object. Default false. */
  clearInputs?: boolean;
}

/** Options of {@link CompressOptions.clearReasoning}. */
export interface ClearReasoningOptions {
  /** The newest assistant turns with reasoning that keep it, or `'all'`. Default 1, as
   * Anthropic's. A turn still in a tool loop (the conversation's last) always keeps it. */
  keep?: number | 'all';
}


/** Options with a summarizer: `compress` returns a Promise. */
export type AsyncCompressOptions = CompressOptions & { summarizer: Summarizer };
/** Options without a summarizer: `compress` returns the result directly. */
export type SyncCompressOptions = CompressOptions & { summarizer?: undefined | null };

/** `compression` statistics of a result (spec §1.5), in this key order. */
export interface CompressionStats {
  original_version: number;
  ratio: number;
  token_ratio: number;
  messages_compressed: number;
  messages_preserved: number;
  /** Present only when greater than 0. */
  messages_deduped?: number;
  /** Present only when greater than 0. */
  messages_fuzzy_deduped?: number;
  /** forceConverge truncations; safe mode only, present only when greater than 0. */
  messages_truncated?: number;
  /** Messages replaced by `[cce:omitted …]` stubs to meet a budget; safe mode, only when > 0. */
  messages_omitted?: number;
}

/** id → original message of every message replaced by a summary, a dup reference or a truncation. */
export type VerbatimMap = Record<string, Message>;

/** The result of `compress`; `fits`, `tokenCount` and `recencyWindow` only with `tokenBudget`. */
export interface CompressResult {
  messages: Message[];
  compression: CompressionStats;
  verbatim: VerbatimMap;
  fits?: boolean;
  tokenCount?: number;
  recencyWindow?: number;
  /** Safe mode, when the budget cannot be met: ids of the protected messages that alone exceed it. */
  blockingIds?: Array<Message['id']>;
}

/** A store given as a function: the original message for an id, or a falsy value when unknown. */
export type StoreLookup = (id: string) => Message | undefined;

/** Options of `uncompress`. */
export interface UncompressOptions {
  /** Expand originals that are themselves compressed (at most 10 extra passes). */
  recursive?: boolean;
}

/** The result of `uncompress` (spec §11). */
export interface UncompressResult {
  messages: Message[];
  messages_expanded: number;
  messages_passthrough: number;
  missing_ids: string[];
}

/** Options of the LLM summarizer factories (spec §10.3). */
export interface CreateSummarizerOptions {
  /** Token limit stated in the prompt. Default 300 (halved, at least 1, in aggressive mode). */
  maxResponseTokens?: number;
  /** Prepended to the prompt, followed by a blank line. */
  systemPrompt?: string;
  /** `'aggressive'` asks for terse bullet points. Default `'normal'`. */
  mode?: 'normal' | 'aggressive';
  /** Terms to preserve besides the built-in list. */
  preserveTerms?: string[];
}

/** Options of `createEscalatingSummarizer` (it picks the mode itself). */
export type CreateEscalatingSummarizerOptions = Omit<CreateSummarizerOptions, 'mode'>;

/** What the factories call: the prompt in, the model's reply out (sync or async). */
export type CallLlm = (prompt: string) => string | Promise<string>;

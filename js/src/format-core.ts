// SPDX-License-Identifier: MIT
// Provider-native conversations: the neutral views the engine reads, and the way back.
//
// Every format adapter splits each of its messages into *views*, the engine's own message shape
// (role, string or part content, tool_calls, a tool_call_id on a tool result): an Anthropic user
// message holding N tool_result blocks and some text becomes N tool-result views and one user
// view, so every format's tool results are compressed by the same stages as OpenAI `tool`
// messages, and the engine keeps each call with its results as one atomic group. The engine's
// answer comes back view by view; the adapter rebuilds each native message from the caller's own
// message and blocks, replacing only the text the engine changed, so ids, signatures, encrypted
// content, cache_control and providerOptions are carried by reference.
import { clearOrReport, nativeVerbatim, readClearing, withoutClearing } from './clearing.js';
import { compress as compressViews } from './engine.js';
import { CompressError } from './errors.js';
import { anthropicImageTokens, inlineImageSize, openAIImageTokens } from './image-size.js';
import {
  estimateTokens,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
  toolCallTexts,
} from './token-counter.js';
import {
  SOURCE,
  type FormatAdapter,
  type FormatOptions,
  type ViewOut,
  type ViewPart,
  type ViewSpec,
} from './format-shapes.js';
import type { CompressionStats, CompressOptions, Message, TokenCounter } from './types.js';

export {
  SOURCE,
  type FormatAdapter,
  type FormatOptions,
  type FormatProblem,
  type MessageFormat,
  type ViewOut,
  type ViewPart,
  type ViewSpec,
} from './format-shapes.js';

/** @internal Which native message (and which of its views) a view is. */
const VIEW: unique symbol = Symbol('cce.view');

/** The result of compressing a provider-native conversation: `messages` are in the input's
 * format. `verbatim` is keyed by output position (see {@link restoreNative}). */
export interface NativeCompressResult<M = unknown> {
  messages: M[];
  compression: CompressionStats;
  verbatim: Record<string, M>;
  fits?: boolean;
  tokenCount?: number;
  recencyWindow?: number;
  /** Positions of the input messages that alone exceed the budget. */
  blockingIds?: number[];
}

/** The result of restoring a native conversation. */
export interface NativeUncompressResult<M = unknown> {
  messages: M[];
  messages_expanded: number;
  messages_passthrough: number;
  /** Always empty: positions never go missing. */
  missing_ids: string[];
}

type Obj = Record<string, unknown>;

interface Tag {
  n: number; // native message index, -1 for the system prompt
  j: number; // view index within it
}

/** The engine's views of a native conversation, and where each came from. */
function viewsOf<M>(adapter: FormatAdapter<M>, input: readonly M[], system: unknown) {
  const views: Message[] = [];
  const specs: ViewSpec[][] = [];
  const flat: ViewSpec[] = []; // the spec of each view
  const singles = new Map<string, ViewPart>(); // by view tag: the one text part sent as a string
  const used = new Set<string>();
  const add = (spec: ViewSpec, n: number, j: number, fallback: string) => {
    let id = spec.key !== undefined && !used.has(spec.key) ? spec.key : fallback;
    while (used.has(id)) id += "'";
    used.add(id);
    // A content of one text part reaches the engine as a string: messages with parts are never
    // merged or deduplicated, and most native text is one block. The part goes back on rebuild.
    const only = Array.isArray(spec.content) && spec.content.length === 1 ? spec.content[0] : undefined;
    const single = only && only.type === 'text' && typeof only.text === 'string' ? only : undefined;
    const content = single ? single.text : spec.content;
    const view: Message = { id, role: spec.role, content: content as Message['content'] };
    if (single) singles.set(`${n}.${j}`, single);
    if (spec.toolCalls && spec.toolCalls.length > 0) view.tool_calls = spec.toolCalls;
    if (spec.callId !== undefined) view.tool_call_id = spec.callId;
    (view as unknown as Record<symbol, Tag>)[VIEW] = { n, j };
    views.push(view);
    flat.push(spec);
  };
  if (system != null && adapter.system) {
    const content = adapter.system(system);
    if (content !== undefined) add({ role: 'system', content }, -1, 0, 'system');
  }
  for (let n = 0; n < input.length; n++) {
    const message = input[n] as M;
    if (typeof message !== 'object' || message === null) {
      throw new CompressError('InvalidInput', `compress(): messages[${n}] must be an object`, `/messages/${n}`);
    }
    const list = adapter.split(message, n, input);
    specs.push(list);
    for (let j = 0; j < list.length; j++) {
      add(list[j] as ViewSpec, n, j, list.length === 1 ? String(n) : `${n}.${j}`);
    }
  }
  return { views, specs, flat, singles };
}

// The main entry's default estimate bills the same overhead and tool calls (token-counter.ts).
export { MESSAGE_OVERHEAD_TOKENS };
/** An image given by URL or file id (its size unknown): OpenAI's 1024 x 1024 in high detail. */
export const DEFAULT_IMAGE_TOKENS = 765;
/** The same for Anthropic: a 1092 x 1092 image (1092 * 1092 / 750). */
export const DEFAULT_ANTHROPIC_IMAGE_TOKENS = 1590;

/**
 * The default estimate of a native conversation, as the provider bills it: the text by the
 * engine's script estimate (random-looking runs included), plus per view the
 * message overhead, the names and arguments of tool calls kept outside the content, and each
 * image by its pixel size (read from the header of inline data; a URL costs the documented
 * default). Other non-text parts (thinking, tool_use
 * input, server tool blocks) the engine adds itself from their JSON text.
 */
function billingCounter(flat: readonly ViewSpec[], views: readonly Message[], anthropic: boolean) {
  const cache = new Map<string, number>();
  const text = (s: string): number => {
    if (s.length === 0) return 0;
    let n = cache.get(s);
    if (n === undefined) cache.set(s, (n = estimateTokens(s)));
    return n;
  };
  const fixed: number[] = flat.map((spec) => {
    let n = MESSAGE_OVERHEAD_TOKENS;
    if (spec.countCalls) {
      for (const call of spec.toolCalls ?? []) {
        const [name, args] = toolCallTexts(call);
        n += TOOL_CALL_OVERHEAD_TOKENS + text(name) + text(args);
      }
    }
    if (Array.isArray(spec.content)) {
      for (const part of spec.content) {
        // The kinds the engine sizes as images (OpenAI Chat parts reach it as they are).
        if (part.type !== 'image' && part.type !== 'image_url' && part.type !== 'input_image') continue;
        const size = inlineImageSize(part[SOURCE] ?? part);
        n += size
          ? anthropic
            ? anthropicImageTokens(size.width, size.height)
            : openAIImageTokens(size.width, size.height)
          : anthropic
            ? DEFAULT_ANTHROPIC_IMAGE_TOKENS
            : DEFAULT_IMAGE_TOKENS;
      }
    }
    return n;
  });
  const byTag = new Map<string, number>();
  views.forEach((view, k) => {
    const tag = (view as unknown as Record<symbol, Tag>)[VIEW] as Tag;
    byTag.set(`${tag.n}.${tag.j}`, k);
  });
  // Called on views, rebuilt views and text views alike: all carry the view's tag.
  return (m: Message): number => {
    const tag = (m as unknown as Record<symbol, Tag>)[VIEW];
    const content = m.content as unknown;
    const n = typeof content === 'string' ? text(content) : 0;
    return tag ? n + (fixed[byTag.get(`${tag.n}.${tag.j}`) ?? -1] ?? 0) : n;
  };
}

/**
 * @internal The billing estimate for the engine's own dialect (OpenAI Chat messages with ids,
 * given to the engine as they are): the script estimate of the text, the per-message overhead and
 * tool-call names and arguments. The engine's own default estimate counts exactly this
 * (docs/token-counts.md). Images and other parts are priced by the engine (array content
 * reaches a counter as its text view).
 */
export function dialectCounter(): (m: Message) => number {
  const cache = new Map<string, number>();
  const text = (s: string): number => {
    if (s.length === 0) return 0;
    let n = cache.get(s);
    if (n === undefined) cache.set(s, (n = estimateTokens(s)));
    return n;
  };
  return (m: Message): number => {
    let n = MESSAGE_OVERHEAD_TOKENS + (typeof m.content === 'string' ? text(m.content) : 0);
    const calls = m.tool_calls;
    if (Array.isArray(calls)) {
      for (const call of calls) {
        const [name, args] = toolCallTexts(call);
        n += TOOL_CALL_OVERHEAD_TOKENS + text(name) + text(args);
      }
    }
    return n;
  };
}

/** The native messages of the engine's answer, with the input range each one stands for. */
function rebuildNative<M>(
  adapter: FormatAdapter<M>,
  input: readonly M[],
  specs: ViewSpec[][],
  views: readonly Message[],
  singles: ReadonlyMap<string, ViewPart>,
  out: readonly Message[],
): { messages: M[]; verbatim: Record<string, M> } {
  const built: Array<{ message: M; first: number; last: number; changed: boolean }> = [];
  const unchanged = new Set<Message>(views);
  let previous = -1; // the last input message accounted for
  for (let k = 0; k < out.length; ) {
    const tag = (out[k] as unknown as Record<symbol, Tag>)[VIEW] as Tag;
    if (tag.n < 0) {
      k++; // the system prompt is never part of the messages
      continue;
    }
    const n = tag.n;
    const list = specs[n] as ViewSpec[];
    const outs: Array<ViewOut | undefined> = new Array(list.length).fill(undefined);
    let changed = false;
    for (; k < out.length; k++) {
      const m = out[k] as Message;
      const t = (m as unknown as Record<symbol, Tag>)[VIEW] as Tag;
      if (t.n !== n) break;
      const same = unchanged.has(m);
      const single = singles.get(`${t.n}.${t.j}`);
      let content = m.content as string | ViewPart[];
      if (single && typeof content === 'string') content = [{ ...single, text: content }];
      outs[t.j] = same ? { changed: false } : { changed: true, content };
      if (!same) changed = true;
    }
    if (outs.some((o) => o === undefined) || n !== previous + 1) changed = true;
    const source = input[n] as M;
    const message = changed ? adapter.rebuild(source, outs, list) : source;
    if (message !== undefined) {
      built.push({ message, first: previous + 1, last: n, changed });
      previous = n;
    }
  }
  // A stub of the conversation's opening carried by a later message (the first one that could
  // carry it) must still open the conversation as the provider requires. The opening is what
  // follows the leading system messages of the formats that keep them in the list.
  let h = 0;
  while (h < built.length && specs[(built[h] as (typeof built)[number]).last]?.[0]?.role === 'system') h++;
  const head = built[h];
  const opening = h === 0 ? 0 : (built[h - 1] as (typeof built)[number]).last + 1;
  if (adapter.lead && head !== undefined && head.first === opening && head.last > opening && head.changed) {
    head.message = adapter.lead(head.message, input);
    const next = built[h + 1];
    const joined = next && adapter.joinLead?.(head.message, next.message);
    if (next && joined !== undefined) built.splice(h, 2, { message: joined, first: head.first, last: next.last, changed: true });
  }
  // Omitted messages after the last one left belong to it.
  if (previous < input.length - 1 && built.length > 0) {
    const tail = built[built.length - 1] as (typeof built)[number];
    tail.last = input.length - 1;
    tail.changed = true;
  }
  if (adapter.join) {
    for (let i = 1; i < built.length; ) {
      const a = built[i - 1] as (typeof built)[number];
      const b = built[i] as (typeof built)[number];
      const joined = adapter.join(a.message, b.message);
      if (joined === undefined) {
        i++;
        continue;
      }
      built.splice(i - 1, 2, { message: joined, first: a.first, last: b.last, changed: true });
    }
  }
  const messages: M[] = [];
  const verbatim: Record<string, M> = {};
  for (let k = 0; k < built.length; k++) {
    const b = built[k] as (typeof built)[number];
    messages.push(b.message);
    if (!b.changed) continue;
    for (let s = b.first; s <= b.last; s++) {
      verbatim[s === b.first ? String(k) : `${k}.${s - b.first}`] = input[s] as M;
    }
  }
  return { messages, verbatim };
}

/** Strips the format options before the engine sees them; the system view is always kept; the
 * default estimate becomes the billing one (unless the caller counts, or runs cce-1.0). */
function engineOptions(
  options: CompressOptions & FormatOptions,
  system: boolean,
  billing: () => (m: Message) => number,
): CompressOptions {
  const { format: _format, system: _system, ...rest } = withoutClearing(options);
  if (system) {
    const preserve = rest.preserve ?? ['system'];
    if (!preserve.includes('system')) rest.preserve = [...preserve, 'system'];
  }
  if (rest.tokenCounter == null && rest.compat !== 'cce-1.0' && (rest.tokenEstimate ?? 'script') === 'script') {
    rest.tokenCounter = billing() as TokenCounter;
    // Images are priced by the counter, from their pixel size.
    rest.imageTokens = 0;
  }
  return rest;
}

/**
 * @internal Compresses a native conversation through its adapter: views in, the engine's answer,
 * native messages out. Synchronous unless the options carry a summarizer.
 */
export function compressNative<M>(
  adapter: FormatAdapter<M>,
  input: readonly M[],
  options: CompressOptions & FormatOptions,
): NativeCompressResult<M> | Promise<NativeCompressResult<M>> {
  if (!Array.isArray(input)) {
    throw new CompressError('InvalidInput', 'compress(): messages must be an array', '/messages');
  }
  const clearing = readClearing(options, 'compress()');
  if (clearing && adapter.clearing) {
    // Clear first (with or without a budget), then compress the cleared conversation; verbatim
    // then leads back to the caller's messages.
    const cleared = clearOrReport(adapter.clearing, input, clearing, 'compress()');
    const back = (r: NativeCompressResult<M>): NativeCompressResult<M> => {
      const answer = { ...r, verbatim: nativeVerbatim(input, cleared, r.messages, r.verbatim) };
      if (r.blockingIds) answer.blockingIds = r.blockingIds.map((n) => (cleared.ranges[n] as [number, number])[0]);
      return answer;
    };
    const result = compressNative(adapter, cleared.messages, withoutClearing(options));
    return result instanceof Promise ? result.then(back) : back(result);
  }
  const system = options.system;
  if (system != null && !adapter.system) {
    throw new CompressError(
      'InvalidInput',
      `compress(): options.system is for the anthropic format, not ${adapter.name}`,
      '/options/system',
    );
  }
  const { views, specs, flat, singles } = viewsOf(adapter, input, system);
  const billing = () => billingCounter(flat, views, adapter.name === 'anthropic');
  const finish = (result: ReturnType<typeof compressViews>): NativeCompressResult<M> => {
    const r = result as Exclude<typeof result, Promise<unknown>>;
    const { messages, verbatim } = rebuildNative(adapter, input, specs, views, singles, r.messages);
    const answer: NativeCompressResult<M> = { messages, compression: r.compression, verbatim };
    if (r.fits !== undefined) {
      answer.fits = r.fits;
      answer.tokenCount = r.tokenCount;
      answer.recencyWindow = r.recencyWindow;
      if (r.blockingIds) {
        const blocking = new Set<number>();
        for (const id of r.blockingIds) {
          const view = views.find((v) => v.id === id);
          const tag = view && (view as unknown as Record<symbol, Tag>)[VIEW];
          if (tag && tag.n >= 0) blocking.add(tag.n);
        }
        answer.blockingIds = [...blocking];
      }
    }
    return answer;
  };
  // The engine names views; errors name the caller's messages.
  const place = (error: unknown): never => {
    if (!(error instanceof CompressError) || error.path === undefined) throw error;
    const match = /^\/messages\/(\d+)/.exec(error.path);
    const view = match ? views[Number(match[1])] : undefined;
    if (!view) throw error;
    const tag = (view as unknown as Record<symbol, Tag>)[VIEW] as Tag;
    const path = tag.n < 0 ? '/options/system' : `/messages/${tag.n}`;
    const text = error.message.replace(/messages\[\d+\](\.content\[\d+\])?/, tag.n < 0 ? 'options.system' : `messages[${tag.n}]`);
    throw new CompressError(error.code, text, path, { cause: error });
  };
  let result: ReturnType<typeof compressViews>;
  try {
    result = compressViews(views, engineOptions(options, system != null, billing));
  } catch (error) {
    return place(error);
  }
  return result instanceof Promise ? result.then(finish, place) : finish(result);
}

/**
 * @internal The input again from a compressed native conversation and its `verbatim`: the
 * message at position `k` stands for the originals under keys `"k"`, `"k.1"`, `"k.2"`, … (several
 * when omitted messages were folded into it); messages without a key pass through (those appended
 * after compress too).
 */
export function restoreNative<M>(messages: readonly M[], verbatim: Record<string, M>): NativeUncompressResult<M> {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(verbatim, key);
  const out: M[] = [];
  let expanded = 0;
  let passthrough = 0;
  for (let k = 0; k < messages.length; k++) {
    if (!has(String(k))) {
      out.push(messages[k] as M);
      passthrough++;
      continue;
    }
    out.push(verbatim[String(k)] as M);
    expanded++;
    for (let s = 1; has(`${k}.${s}`); s++) out.push(verbatim[`${k}.${s}`] as M);
  }
  return { messages: out, messages_expanded: expanded, messages_passthrough: passthrough, missing_ids: [] };
}

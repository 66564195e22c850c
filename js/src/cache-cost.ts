// SPDX-License-Identifier: MIT
// What a provider's prompt cache bills for a sequence of requests (issue 20, item 4): a pure model,
// no wasm. A request is a message list; the cache keys are its prefixes at message boundaries (a
// changed byte anywhere in message k misses every prefix from k on), identified by a running hash
// of each message's JSON. Costs are in units of one uncached input token.
//
// Published rules the defaults follow (late 2026):
// - Anthropic: caching is explicit. A `cache_control` breakpoint (at most 4 per request) writes the
//   prefix up to it at 1.25x the input price (5-minute TTL) or 2x (1-hour TTL); a later request
//   whose prefix matches a written entry reads it at 0.1x. The lookup checks the breakpoints and
//   about 20 blocks before each one. Prefixes shorter than the model's minimum (1,024 tokens for
//   Sonnet and Opus, 2,048 for Haiku; 4,096 for some newer models) are not cached.
// - OpenAI: caching is automatic for prompts of 1,024 tokens or more, in 128-token steps; cached
//   input is billed at a per-model discount (0.5x for gpt-4o, the default here; 0.25x or 0.1x for
//   newer models: pass `cachedPrice`). Writing costs nothing extra.
/** Any message object (OpenAI Chat, Anthropic, this package's Message): compared by its JSON. */
export interface CacheMessage {
  readonly role?: unknown;
  readonly content?: unknown;
  readonly metadata?: unknown;
}
type Message = CacheMessage;

export { compactionPoint } from './cache-policy.js';

/** A provider's cache pricing; every field has a documented default. */
export interface CacheCostModel {
  provider: 'anthropic' | 'openai';
  /** Anthropic: the TTL of the breakpoints written ('5m' writes at 1.25x, '1h' at 2x). */
  ttl?: '5m' | '1h';
  /** Price of a cached (read) input token, as a fraction of the input price. Default 0.1
   * (Anthropic) / 0.5 (OpenAI, gpt-4o). */
  cachedPrice?: number;
  /** Anthropic: price of a written token. Default 1.25 ('5m') / 2 ('1h'). */
  writePrice?: number;
  /** Shortest cacheable prefix in tokens. Default 1,024. */
  minCacheable?: number;
  /** Anthropic: blocks (here: messages) before a breakpoint where a read can still hit. Default 20. */
  lookback?: number;
  /** OpenAI: cache hits grow in steps of this many tokens above the minimum. Default 128. */
  increment?: number;
  /** Milliseconds an unused entry lives (refreshed by a read). Default 5 min / 1 h (Anthropic),
   * 10 min (OpenAI). Only used when requests carry a time. */
  ttlMs?: number;
}

/** A model with every default filled in. */
export type ResolvedCacheCostModel = Required<CacheCostModel>;

/** Fills in the defaults of a cost model (see {@link CacheCostModel}). */
export function cacheCostModel(model: CacheCostModel): ResolvedCacheCostModel {
  const anthropic = model.provider === 'anthropic';
  if (!anthropic && model.provider !== 'openai') {
    throw new TypeError(`cacheCostModel(): unknown provider ${String(model.provider)}`);
  }
  const ttl = model.ttl ?? '5m';
  return {
    provider: model.provider,
    ttl,
    cachedPrice: model.cachedPrice ?? (anthropic ? 0.1 : 0.5),
    writePrice: model.writePrice ?? (anthropic ? (ttl === '1h' ? 2 : 1.25) : 1),
    minCacheable: model.minCacheable ?? 1024,
    lookback: model.lookback ?? 20,
    increment: model.increment ?? 128,
    ttlMs: model.ttlMs ?? (anthropic ? (ttl === '1h' ? 3_600_000 : 300_000) : 600_000),
  };
}

/** What one request was billed. */
export interface BilledRequest {
  /** Input tokens of the request. */
  tokens: number;
  /** Tokens read from the cache. */
  cached: number;
  /** Tokens written to the cache (Anthropic; 0 for OpenAI, whose writes cost nothing extra). */
  written: number;
  /** Cost in uncached-input-token units: cached × cachedPrice + written × writePrice + the rest. */
  cost: number;
  /** Messages of the longest cached prefix. */
  cachedMessages: number;
}

/** One request: its messages, optionally its time (ms) and, for Anthropic, its breakpoints. */
export interface CacheRequest {
  messages: readonly Message[];
  /** Milliseconds (any epoch); without one, every entry is taken to be alive. */
  at?: number;
  /** Anthropic: message indices carrying a breakpoint (the prefix up to and including that
   * message is written). Default: read from `cache_control` in the messages, else the last one. */
  breakpoints?: readonly number[];
}

/** Counts one message's tokens. */
export type CacheTokenCounter = (message: Message) => number;

const messageJson = new WeakMap<object, string>();
const jsonOf = (m: Message): string => {
  let s = messageJson.get(m);
  if (s === undefined) {
    s = JSON.stringify(m) ?? 'null';
    messageJson.set(m, s);
  }
  return s;
};

/** FNV-1a over a string, continued from `seed` (two 32-bit lanes; collisions are negligible). */
function hashOn(seed: [number, number], text: string): [number, number] {
  let a = seed[0];
  let b = seed[1];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 16777619);
    b = Math.imul(b ^ c, 2246822519) ^ (b >>> 15);
  }
  // A separator between messages, so that [ab][c] and [a][bc] differ.
  a = Math.imul(a ^ 0x1f, 16777619);
  b = Math.imul(b ^ 0x1f, 2246822519);
  return [a >>> 0, b >>> 0];
}

/** The prefix keys and token sums of a request: keys[k] / sums[k] cover messages [0, k). */
function prefixes(messages: readonly Message[], count: CacheTokenCounter) {
  const keys: string[] = [''];
  const sums: number[] = [0];
  let h: [number, number] = [2166136261, 0x9e3779b9];
  for (const m of messages) {
    h = hashOn(h, jsonOf(m));
    keys.push(`${h[0]}:${h[1]}`);
    sums.push((sums[sums.length - 1] as number) + count(m));
  }
  return { keys, sums };
}

/** The breakpoints a message list carries in `cache_control` (on the message or a content block). */
export function cacheBreakpointsOf(messages: readonly Message[]): number[] {
  const out: number[] = [];
  messages.forEach((m, i) => {
    if (hasCacheControl(m)) out.push(i);
  });
  return out;
}

function hasCacheControl(m: Message): boolean {
  if (m === null || typeof m !== 'object') return false;
  if ((m as Record<string, unknown>).cache_control != null) return true;
  const content = (m as Record<string, unknown>).content;
  return (
    Array.isArray(content) &&
    content.some((p) => p !== null && typeof p === 'object' && (p as Record<string, unknown>).cache_control != null)
  );
}

/** A rough count when none is given: 4 characters of JSON a token. */
const roughCount: CacheTokenCounter = (m) => Math.ceil(jsonOf(m).length / 4);

/**
 * A provider's cache as seen from one conversation: `bill(request)` returns what the request costs
 * given the requests billed before it, and records what it leaves in the cache.
 */
export interface CacheBiller {
  bill(request: CacheRequest | readonly Message[]): BilledRequest;
  /** Sums of everything billed so far. */
  readonly totals: { requests: number; tokens: number; cached: number; written: number; cost: number };
}

/**
 * Starts a cache for one conversation (or one cache key). `tokenCounter` counts a message
 * (default: JSON length / 4; pass the provider's tokenizer for real figures).
 */
export function createCacheBiller(
  model: CacheCostModel,
  tokenCounter: CacheTokenCounter = roughCount,
): CacheBiller {
  const m = cacheCostModel(model);
  // Prefix key → time last written or read (NaN: untimed).
  const entries = new Map<string, number>();
  const totals = { requests: 0, tokens: 0, cached: 0, written: 0, cost: 0 };
  const alive = (key: string, at: number): boolean => {
    const t = entries.get(key);
    if (t === undefined) return false;
    return Number.isNaN(at) || Number.isNaN(t) || at - t <= m.ttlMs;
  };
  const bill = (input: CacheRequest | readonly Message[]): BilledRequest => {
    const request: CacheRequest = Array.isArray(input)
      ? { messages: input as readonly Message[] }
      : (input as CacheRequest);
    const messages = request.messages;
    const at = request.at ?? Number.NaN;
    const { keys, sums } = prefixes(messages, tokenCounter);
    const n = messages.length;
    const tokens = sums[n] as number;
    let hit = 0;
    let cached = 0;
    let written = 0;
    let cost: number;
    if (m.provider === 'openai') {
      for (let k = n; k > 0; k--) {
        if (alive(keys[k] as string, at)) {
          hit = k;
          break;
        }
      }
      const prefix = sums[hit] as number;
      cached = prefix >= m.minCacheable ? m.minCacheable + Math.floor((prefix - m.minCacheable) / m.increment) * m.increment : 0;
      cost = cached * m.cachedPrice + (tokens - cached);
      // Every prefix of a long enough request is left in the cache.
      for (let k = 1; k <= n; k++) {
        if ((sums[k] as number) >= m.minCacheable) entries.set(keys[k] as string, at);
      }
      if (hit > 0 && cached > 0) entries.set(keys[hit] as string, at);
    } else {
      let points = request.breakpoints ? [...request.breakpoints] : cacheBreakpointsOf(messages);
      if (points.length === 0 && n > 0) points = [n - 1];
      points = points.filter((p) => p >= 0 && p < n).sort((a, b) => a - b);
      // A read hits the longest written prefix ending at a breakpoint or up to `lookback` blocks
      // before one.
      for (const p of points) {
        for (let k = p + 1; k > hit && k >= p + 1 - m.lookback && k > 0; k--) {
          if (alive(keys[k] as string, at)) {
            hit = k;
            break;
          }
        }
      }
      cached = sums[hit] as number;
      if (hit > 0) entries.set(keys[hit] as string, at);
      let end = hit;
      for (const p of points) {
        const k = p + 1;
        if (k > hit && (sums[k] as number) >= m.minCacheable) {
          entries.set(keys[k] as string, at);
          end = k;
        }
      }
      written = (sums[end] as number) - cached;
      cost = cached * m.cachedPrice + written * m.writePrice + (tokens - cached - written);
    }
    totals.requests++;
    totals.tokens += tokens;
    totals.cached += cached;
    totals.written += written;
    totals.cost += cost;
    return { tokens, cached, written, cost, cachedMessages: hit };
  };
  return { bill, totals };
}

/** Bills a sequence of requests of one conversation (see {@link createCacheBiller}). */
export function billRequests(
  requests: ReadonlyArray<CacheRequest | readonly Message[]>,
  model: CacheCostModel,
  tokenCounter?: CacheTokenCounter,
): { requests: BilledRequest[]; cost: number; tokens: number } {
  const biller = createCacheBiller(model, tokenCounter);
  const billed = requests.map((r) => biller.bill(r));
  return { requests: billed, cost: biller.totals.cost, tokens: biller.totals.tokens };
}

/**
 * Whether compacting a prefix now pays for itself before the next forced compaction: the prefix
 * is rewritten once (`after` tokens at the write price instead of the cached price) and every one
 * of the next `calls` requests then reads `before - after` fewer cached tokens. This is what
 * Anthropic's `clear_at_least` expresses for tool-result clearing, for any compaction.
 */
export function compactionPays(
  model: CacheCostModel,
  { before, after, calls }: { before: number; after: number; calls: number },
): boolean {
  const m = cacheCostModel(model);
  const rewrite = after * (m.writePrice - m.cachedPrice);
  const saved = (before - after) * m.cachedPrice * calls;
  return saved > rewrite;
}

/**
 * The smallest saving (tokens) for which a compaction pays within `calls` requests when `after`
 * tokens remain: `clear_at_least` for this model.
 */
export function minimumSaving(model: CacheCostModel, after: number, calls: number): number {
  const m = cacheCostModel(model);
  return Math.ceil((after * (m.writePrice - m.cachedPrice)) / (m.cachedPrice * Math.max(1, calls)));
}

/** Options of {@link placeCacheBreakpoints}. */
export interface BreakpointOptions {
  /** Breakpoints a request may carry in all (existing ones count). Default 4. */
  max?: number;
  /** Written into new breakpoints: `{ type: 'ephemeral', ttl: '1h' }` for '1h'. Default '5m'. */
  ttl?: '5m' | '1h';
  /** Index of the last message of the stable (compacted) prefix, e.g. the last summary message:
   * a breakpoint there keeps it readable after the tail changes. Default: the last message whose
   * `metadata` marks a summary (`_cce_original` or `covered_until`). */
  stableUntil?: number;
  /** Length of the previous request: a breakpoint at its end keeps a read within the lookback
   * when many messages were appended since. */
  previousLength?: number;
}

/**
 * Places Anthropic `cache_control` breakpoints (at most `max`, existing ones included): the last
 * message, the end of the leading system messages, the end of the stable prefix and the end of the
 * previous request, in that order of priority. Returns new messages; the caller's objects are not
 * changed, and existing `cache_control` entries are kept as they are. A string content becomes
 * one text block, since `cache_control` lives on a block.
 */
export function placeCacheBreakpoints<M extends Message>(
  messages: readonly M[],
  options: BreakpointOptions = {},
): M[] {
  const max = options.max ?? 4;
  const out = messages.slice();
  const present = new Set(cacheBreakpointsOf(messages));
  let free = max - present.size;
  const n = messages.length;
  if (n === 0 || free <= 0) return out;
  const wanted: number[] = [n - 1];
  let system = 0;
  while (system < n && messages[system]?.role === 'system') system++;
  if (system > 0 && system < n) wanted.push(system - 1);
  let stable = options.stableUntil;
  if (stable === undefined) {
    for (let i = n - 1; i >= 0; i--) {
      const meta = messages[i]?.metadata as Record<string, unknown> | undefined;
      if (meta && (meta._cce_original !== undefined || meta.covered_until !== undefined)) {
        stable = i;
        break;
      }
    }
  }
  if (stable !== undefined) wanted.push(stable);
  if (options.previousLength !== undefined) wanted.push(options.previousLength - 1);
  const control: Record<string, string> =
    options.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  for (const i of wanted) {
    if (free <= 0) break;
    if (i < 0 || i >= n || present.has(i)) continue;
    const marked = withBreakpoint(messages[i] as M, control);
    if (marked === undefined) continue;
    out[i] = marked;
    present.add(i);
    free--;
  }
  return out;
}

/** A copy of `m` whose last content block carries `control` (undefined when it has no content). */
function withBreakpoint<M extends Message>(m: M, control: Record<string, string>): M | undefined {
  const content = (m as Record<string, unknown>).content;
  if (typeof content === 'string') {
    if (content === '') return undefined;
    return { ...m, content: [{ type: 'text', text: content, cache_control: { ...control } }] };
  }
  if (Array.isArray(content) && content.length > 0) {
    const blocks = content.slice();
    const last = blocks[blocks.length - 1];
    if (last === null || typeof last !== 'object') return undefined;
    blocks[blocks.length - 1] = { ...(last as object), cache_control: { ...control } };
    return { ...m, content: blocks };
  }
  return undefined;
}

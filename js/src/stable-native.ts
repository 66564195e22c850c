// SPDX-License-Identifier: MIT
// The integrations' cache-stable mode (issue 20, item 4): what compressStable does for one
// conversation, for a middleware that sees many. A provider's prompt cache reads a request's
// prefix at a tenth of the price (Anthropic; OpenAI a half or less) only while it is the same
// bytes as before; compressing every call to the budget rewrites it on every call once the
// conversation is over the budget (docs/cache-cost.md: 4.3x the cost of sending everything
// under Anthropic pricing). Here a call whose conversation extends one answered before is
// answered with that answer plus the new messages, byte for byte, while the engine finds that it
// fits the budget; only then is the conversation compressed again, to `target` of the budget, so
// the next calls have room to append.
//
// Stateless-safe: answers are remembered by content, not by who asked. A call reuses a
// remembered answer only when its messages start with exactly the messages (equal JSON) that
// answer was made from, and the answer for those messages does not depend on which conversation
// sent them; an unrelated conversation finds no match and is compressed as before. At most
// `conversations` answers are kept (least recently used first out).
import { compactionPoint, type CachePrices } from './cache-policy.js';
import { compressNative, type FormatAdapter, type NativeCompressResult } from './format-core.js';
import { CompressError } from './errors.js';
import type { CompressOptions } from './types.js';

/** The cache-stable mode of an integration (`cacheStable` option). */
export interface CacheStableOptions {
  /** A recompression aims at `target × budget` tokens (the whole budget when that cannot fit).
   * Default 0.5. */
  target?: number;
  /** How many conversations' last answers are kept. Default 16. */
  conversations?: number;
  /** The provider's cache prices: also recompress once a rewrite costs less than the reads it
   * saves (`compactionPoint`, docs/cache-cost.md). */
  cacheCost?: CachePrices | null;
}

/** The integrations' option: `true` (default) or settings keep each conversation's compressed
 * prefix byte-stable between calls; `false` compresses every call to the budget. */
export interface StableIntegrationOptions {
  cacheStable?: boolean | CacheStableOptions;
}

interface Remembered<M> {
  /** JSON of each input message the answer stands for. */
  input: string[];
  result: NativeCompressResult<M>;
  /** Tokens right after the last recompression, and calls since (cacheCost). */
  after: number;
  calls: number;
}

/** Compresses one conversation; remembers answers across calls. */
export type StableCompressor = <M>(
  adapter: FormatAdapter<M>,
  input: readonly M[],
  options: CompressOptions & { system?: unknown },
) => NativeCompressResult<M> | Promise<NativeCompressResult<M>>;

/** `options.cacheStable` read once, when the integration is made. */
export function stableSettings(
  value: boolean | CacheStableOptions | undefined,
  where: string,
): Required<Omit<CacheStableOptions, 'cacheCost'>> & Pick<CacheStableOptions, 'cacheCost'> | null {
  if (value === false) return null;
  const given = value === true || value === undefined ? {} : value;
  if (given === null || typeof given !== 'object') {
    throw new CompressError('InvalidInput', `${where}: cacheStable must be a boolean or an object`, '/options/cacheStable');
  }
  const target = given.target ?? 0.5;
  if (typeof target !== 'number' || !(target > 0 && target <= 1)) {
    throw new CompressError('InvalidInput', `${where}: cacheStable.target must be a number in (0, 1]`, '/options/cacheStable/target');
  }
  const conversations = given.conversations ?? 16;
  if (!Number.isInteger(conversations) || conversations < 1) {
    throw new CompressError('InvalidInput', `${where}: cacheStable.conversations must be a positive integer`, '/options/cacheStable/conversations');
  }
  return { target, conversations, cacheCost: given.cacheCost ?? null };
}

/**
 * A compressor with the cache-stable mode (`settings` from {@link stableSettings}), or plain
 * compressNative when it is off. Without a `tokenBudget` there is nothing to keep stable.
 */
export function stableCompressor(settings: ReturnType<typeof stableSettings>): StableCompressor {
  if (settings === null) return compressNative;
  const remembered: Array<Remembered<unknown>> = [];
  const { target, conversations, cacheCost } = settings;

  const remember = <M>(entry: Remembered<M>) => {
    remembered.unshift(entry as Remembered<unknown>);
    if (remembered.length > conversations) remembered.length = conversations;
  };

  return <M>(adapter: FormatAdapter<M>, input: readonly M[], options: CompressOptions & { system?: unknown }) => {
    const budget = options.tokenBudget;
    if (budget == null) return compressNative(adapter, input, options);
    const json = input.map((m) => JSON.stringify(m) ?? '');
    // The longest remembered input this one starts with (forks of one conversation may share a
    // shorter one).
    let at = -1;
    remembered.forEach((r, i) => {
      if (extendsJson(json, r.input) && (at < 0 || r.input.length > (remembered[at] as Remembered<unknown>).input.length)) at = i;
    });
    const found = at < 0 ? undefined : (remembered.splice(at, 1)[0] as Remembered<M>);
    const unchanged = (r: NativeCompressResult<M>, sent: readonly M[]) =>
      r.fits === true && r.messages.length === sent.length && r.messages.every((m, i) => m === sent[i]);

    // The whole budget first: a conversation that fits (the remembered answer plus what was added,
    // or a new one) is sent as it is.
    const sent = found ? found.result.messages.concat(input.slice(found.input.length)) : input.slice();
    const keep = (r: NativeCompressResult<M>): NativeCompressResult<M> | undefined => {
      if (!unchanged(r, sent)) return undefined;
      const calls = found ? found.calls + 1 : 0;
      const after = found ? found.after : (r.tokenCount ?? 0);
      const tokens = r.tokenCount ?? 0;
      if (found && cacheCost != null && tokens > compactionPoint(cacheCost, after, (tokens - after) / calls)) {
        return undefined;
      }
      const result: NativeCompressResult<M> = found
        ? { ...r, verbatim: found.result.verbatim, compression: found.result.compression }
        : r;
      remember({ input: json, result, after, calls });
      return result;
    };
    const recompress = (): NativeCompressResult<M> | Promise<NativeCompressResult<M>> => {
      const low = compressNative(adapter, input, { ...options, tokenBudget: Math.floor(target * budget) });
      const done = (r: NativeCompressResult<M>) => {
        const fitted = r.fits === true || target >= 1 ? r : undefined;
        const finish = (x: NativeCompressResult<M>) => {
          remember({ input: json, result: x, after: x.tokenCount ?? 0, calls: 0 });
          return x;
        };
        if (fitted) return finish(fitted);
        const whole = compressNative(adapter, input, options);
        return whole instanceof Promise ? whole.then(finish) : finish(whole);
      };
      return low instanceof Promise ? low.then(done) : done(low);
    };
    const first = compressNative(adapter, sent, options);
    if (first instanceof Promise) return first.then((r) => keep(r) ?? recompress());
    return keep(first) ?? recompress();
  };
}

/** True when `json` starts with every entry of `before`. */
function extendsJson(json: readonly string[], before: readonly string[]): boolean {
  if (before.length > json.length || before.length === 0) return false;
  for (let i = 0; i < before.length; i++) if (json[i] !== before[i]) return false;
  return true;
}

// SPDX-License-Identifier: MIT
// When a compaction pays under a provider's prompt cache (issue 20, item 4). A compaction rewrites
// the prefix once: its `after` tokens are written (Anthropic 1.25x, OpenAI 1x) instead of read
// (0.1x, 0.5x). Between compactions each request reads the whole view, which grows by about
// `growth` tokens a request. Per request, compacting when the view reaches `after + d` costs
//   reads   cachedPrice × (after + d / 2)
//   rewrite (price of a new token − cachedPrice) × after × growth / d
// (the appended tokens cost the same under every policy). The sum is least at
//   d = sqrt(2 × (newPrice − cachedPrice) × after × growth / cachedPrice),
// the economic batch size of inventory theory: compacting sooner rewrites too often, later reads
// too much. Anthropic's `clear_at_least` is the same idea for tool-result clearing.

/** The prices the rule needs, as fractions of the input price. */
export interface CachePrices {
  provider: 'anthropic' | 'openai';
  ttl?: '5m' | '1h';
  cachedPrice?: number;
  writePrice?: number;
}

/**
 * The conversation size (tokens) at which compacting is cheapest: `after` (tokens right after the
 * previous compaction) plus the batch size above, given `growth` tokens added per request.
 */
export function compactionPoint(model: CachePrices, after: number, growth: number): number {
  const anthropic = model.provider === 'anthropic';
  const cached = model.cachedPrice ?? (anthropic ? 0.1 : 0.5);
  const fresh = model.writePrice ?? (anthropic ? (model.ttl === '1h' ? 2 : 1.25) : 1);
  if (!(cached > 0 && fresh > cached)) return Infinity;
  return after + Math.sqrt((2 * (fresh - cached) * Math.max(0, after) * Math.max(0, growth)) / cached);
}

// SPDX-License-Identifier: MIT
// Compile-only type tests of cce-wasm/cache and the context manager's cacheCost.
import {
  billRequests,
  type CacheCostModel,
  compressStable,
  placeCacheBreakpoints,
  type StableCompressResult,
} from 'cce-wasm/cache';
import { createContextManager } from 'cce-wasm/context';

const history = [{ id: '1', role: 'user', content: 'hello' }];
const first: StableCompressResult = compressStable(history, { tokenBudget: 1000 });
const next = compressStable(history, { tokenBudget: 1000, previous: first, target: 0.4 });
const extended: boolean = next.extended;
void extended;
// @ts-expect-error tokenBudget is required
compressStable(history, {});

const anthropic: CacheCostModel = { provider: 'anthropic', ttl: '1h' };
// @ts-expect-error an unknown provider
const gemini: CacheCostModel = { provider: 'gemini' };
void gemini;
const cost: number = billRequests([[{ role: 'user', content: [{ type: 'text', text: 'x' }] }]], anthropic).cost;
void cost;
const plain = [{ role: 'user', content: 'hi' }];
const marked: Array<{ role: string; content: string }> = placeCacheBreakpoints(plain, { max: 2 });
void marked;

createContextManager({ contextWindow: 32000, cacheCost: { provider: 'openai', cachedPrice: 0.25 } });
// @ts-expect-error cacheCost takes a provider
createContextManager({ contextWindow: 32000, cacheCost: { cachedPrice: 0.25 } });

// SPDX-License-Identifier: MIT
// `cce-wasm/cache`: prompt-cache aware compression (issue 20, item 4). compress's cache-stable mode
// and the providers' cache cost model, in their own entry so that the default download does not
// grow for those who do not use them.
export { compressStable } from './compress-stable.js';
export type { StableCompressOptions, StableCompressResult } from './compress-stable.js';
export {
  billRequests,
  cacheBreakpointsOf,
  cacheCostModel,
  compactionPays,
  compactionPoint,
  createCacheBiller,
  minimumSaving,
  placeCacheBreakpoints,
} from './cache-cost.js';
export type {
  BilledRequest,
  BreakpointOptions,
  CacheBiller,
  CacheCostModel,
  CacheMessage,
  CacheRequest,
  CacheTokenCounter,
  ResolvedCacheCostModel,
} from './cache-cost.js';

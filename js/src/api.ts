// SPDX-License-Identifier: MIT
// The public API shared by every entry point (the entries differ only in how they load the wasm).
export { compress, uncompress } from './engine.js';
export { createEscalatingSummarizer, createSummarizer } from './summarizers.js';
export { defaultTokenCounter, estimateTokens } from './token-counter.js';
export { CompressError, ERROR_CODES, type ErrorCode } from './errors.js';
export type {
  AsyncCompressOptions,
  CallLlm,
  CceOriginal,
  CompatMode,
  CompressionStats,
  CompressOptions,
  CompressResult,
  ContentPart,
  CreateEscalatingSummarizerOptions,
  CreateSummarizerOptions,
  Message,
  StoreLookup,
  Summarizer,
  SyncCompressOptions,
  TokenCounter,
  TokenEstimate,
  UncompressOptions,
  UncompressResult,
  VerbatimMap,
} from './types.js';
export { compressStable } from './compress-stable.js';
export type { StableCompressOptions, StableCompressResult } from './compress-stable.js';
export {
  billRequests,
  cacheBreakpointsOf,
  cacheCostModel,
  compactionPays,
  createCacheBiller,
  minimumSaving,
  placeCacheBreakpoints,
} from './cache-cost.js';
export type {
  BilledRequest,
  BreakpointOptions,
  CacheBiller,
  CacheCostModel,
  CacheRequest,
  CacheTokenCounter,
  ResolvedCacheCostModel,
} from './cache-cost.js';

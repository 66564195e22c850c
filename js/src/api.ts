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

// SPDX-License-Identifier: MIT
// What a provider would bill for a request, counted with the o200k_base tokenizer (gpt-tokenizer):
// every billed string (text, thinking, tool names and arguments, tool results, reasoning
// summaries) plus 3 tokens per message (OpenAI's documented per-message overhead) plus images by
// the provider's formula. Shared by scripts/bench-formats.mjs and the formats tests, so that the
// benchmark's honest-count figure and the tests' assertion measure the same thing.
import * as lc from '@langchain/core/messages';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

import { anthropicImageTokens, inlineImageSize, openAIImageTokens } from '../../../dist/image-size.js';

const SKIP = new Set([
  'signature', 'encrypted_content', 'data', 'id', 'call_id', 'tool_use_id', 'toolCallId', 'tool_call_id',
  'type', 'role', 'cache_control', 'providerOptions', 'annotations', 'status', 'url', 'source', 'image_url',
  'media_type', 'mediaType', 'is_error', 'citations', 'index', 'metadata',
]);
const LC_SKIP = new Set(['lc_serializable', 'lc_kwargs', 'lc_namespace', 'additional_kwargs', 'response_metadata',
  'usage_metadata', 'invalid_tool_calls', 'lc_direct_tool_output', 'metadata', 'artifact', 'name']);

/** o200k tokens of every billed string under `value`. */
export function billed(value, anthropic) {
  if (typeof value === 'string') return countTokens(value);
  if (Array.isArray(value)) return value.reduce((n, v) => n + billed(v, anthropic), 0);
  if (typeof value !== 'object' || value === null) return 0;
  const type = value.type;
  if (type === 'image' || type === 'image_url' || type === 'input_image') {
    const size = inlineImageSize(value);
    if (!size) return anthropic ? 1590 : 765;
    return anthropic ? anthropicImageTokens(size.width, size.height) : openAIImageTokens(size.width, size.height);
  }
  let n = 0;
  for (const [key, v] of Object.entries(value)) {
    if (SKIP.has(key) || (lc.BaseMessage && value instanceof lc.BaseMessage && LC_SKIP.has(key))) continue;
    if ((key === 'input' || key === 'args') && typeof v === 'object') n += countTokens(JSON.stringify(v));
    else n += billed(v, anthropic);
  }
  return n;
}

/** o200k tokens of a request: the system prompt (Anthropic's separate one) and the messages. */
export function sentTokens(messages, system, format) {
  const anthropic = format === 'anthropic';
  let n = system === undefined ? 0 : billed(system, anthropic) + 3;
  for (const m of messages) n += 3 + billed(m, anthropic);
  return n;
}

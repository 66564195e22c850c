// SPDX-License-Identifier: MIT
// Which provider format a conversation is in, from its shapes (cce-wasm/formats' detectFormat; the
// context manager detects with it too, without the formats entry's compress).
import type { FormatOptions, MessageFormat } from './format-shapes.js';
import { isUiMessage } from './format-ai-sdk-ui.js';
import { isLangChainMessage } from './format-langchain.js';

type Obj = Record<string, unknown>;

const AI_SDK_PARTS = new Set(['tool-call', 'tool-result', 'reasoning', 'file', 'tool-approval-request', 'tool-approval-response']);
const RESPONSES_PARTS = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'refusal']);

const ANTHROPIC_BLOCKS = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'document',
  'server_tool_use',
  'web_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
]);

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The format of a conversation, from its shapes: LangChain message instances are `'langchain'`;
 * items with a `type` and no `role` (or `type: 'message'`, `input_text` parts) are
 * `'openai-responses'`; Anthropic blocks (`tool_use`, `tool_result`, `thinking`, an image with a
 * `source`, …) or `options.system` make it `'anthropic'`; AI SDK parts (`tool-call`,
 * `tool-result`, `reasoning`, `file`, approvals) `'ai-sdk'`; UIMessages (`parts`, no `content`)
 * `'ai-sdk-ui'`; anything else with roles is
 * `'openai-chat'` (plain string messages read the same in every format). Undefined when it is not
 * an array of messages.
 */
export function detectFormat(messages: unknown, options?: FormatOptions): MessageFormat | undefined {
  if (!Array.isArray(messages)) return undefined;
  let found: MessageFormat | undefined = options?.system != null ? 'anthropic' : undefined;
  if (messages.length > 0 && messages.every(isLangChainMessage)) return 'langchain';
  for (const m of messages) {
    if (!isObj(m)) return undefined;
    // useChat's UIMessages hold `parts` where every other format has `content`.
    if (isUiMessage(m)) {
      found ??= 'ai-sdk-ui';
      continue;
    }
    if (typeof m.role !== 'string') {
      // Responses items other than messages carry a type and no role.
      if (typeof m.type !== 'string') return undefined;
      found ??= 'openai-responses';
      continue;
    }
    if (m.type === 'message') found ??= 'openai-responses';
    if (found || !Array.isArray(m.content)) continue;
    for (const block of m.content) {
      if (!isObj(block)) continue;
      const type = block.type as string;
      if (ANTHROPIC_BLOCKS.has(type) || (type === 'image' && isObj(block.source))) found = 'anthropic';
      else if (AI_SDK_PARTS.has(type) || (type === 'image' && 'image' in block)) found = 'ai-sdk';
      else if (RESPONSES_PARTS.has(type)) found = 'openai-responses';
      if (found) break;
    }
  }
  return found ?? 'openai-chat';
}

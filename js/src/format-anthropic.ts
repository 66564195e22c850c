// SPDX-License-Identifier: MIT
// Anthropic Messages: `{role: 'user' | 'assistant', content: string | Block[]}` and the request's
// separate `system`. A user message's tool_result blocks become tool-result views (compressed like
// OpenAI tool messages), its other blocks one user view; an assistant message is one view whose
// tool_use blocks are its tool calls. Blocks are rebuilt from the caller's own objects.
import { contentSize, isReasoningPart, withoutReasoning, type ClearingShape } from './clearing.js';
import {
  jsonText,
  opaquePart,
  partsBack,
  textPart,
  type FormatAdapter,
  type FormatProblem,
  type ViewPart,
  type ViewSpec,
  problemList,
} from './format-shapes.js';

type Obj = Record<string, unknown>;

/** An Anthropic Messages message. */
export interface AnthropicMessage {
  role: 'user' | 'assistant' | string;
  content: string | Obj[];
  [key: string]: unknown;
}

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A source that names a size-bearing payload the engine should size as an image, not as text. */
function isMedia(block: Obj): boolean {
  return block.type === 'image' || block.type === 'document' || block.type === 'container_upload';
}

/** The text of a document's `text` source, or of its `content` source (a string or text
 * blocks only); undefined for base64 (PDF), URL and file sources, and for content with an image. */
function documentText(source: unknown): string | undefined {
  if (!isObj(source)) return undefined;
  const content = source.type === 'text' ? source.data : source.type === 'content' ? source.content : undefined;
  if (typeof content === 'string') return content;
  return Array.isArray(content) && content.every((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string')
    ? content.map((b) => b.text).join('')
    : undefined;
}

/** What the engine reads of one block (anything else is carried by reference). */
function viewPart(block: unknown): ViewPart {
  if (!isObj(block)) return opaquePart('opaque', block);
  if (block.type === 'text' && typeof block.text === 'string') return textPart(block.text, block);
  if (block.type === 'document') {
    // A plain-text document is billed as its text, not as a page or a picture.
    const text = documentText(block.source);
    if (text !== undefined) return opaquePart('document', block, { text });
  }
  if (isMedia(block)) return opaquePart('image', block);
  if (block.type === 'thinking') return opaquePart('thinking', block, { thinking: block.thinking });
  if (block.type === 'redacted_thinking') return opaquePart('redacted_thinking', block);
  if (block.type === 'tool_use') return opaquePart('tool_use', block, { name: block.name, input: block.input });
  return opaquePart(String(block.type), block, { ...block });
}

function resultContent(content: unknown): string | ViewPart[] {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(viewPart);
  return '';
}

const textBlock = (text: string): Obj => ({ type: 'text', text });
const withText = (block: Obj, text: string): Obj => ({ ...block, text });

function contentBack(content: string | ViewPart[]): string | Obj[] {
  return typeof content === 'string' ? content : partsBack<Obj>(content, withText, textBlock);
}

function toolCall(block: Obj): Obj {
  return { id: block.id, type: 'function', function: { name: block.name, arguments: jsonText(block.input) } };
}

/** The Anthropic Messages adapter. */
export const anthropicFormat: FormatAdapter<AnthropicMessage> = {
  name: 'anthropic',

  split(message): ViewSpec[] {
    const { role, content } = message;
    if (!Array.isArray(content)) return [{ role: String(role), content: content as string }];
    const views: ViewSpec[] = [];
    const parts: ViewPart[] = [];
    const calls: Obj[] = [];
    for (const block of content) {
      if (isObj(block) && block.type === 'tool_result' && role === 'user') {
        const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : undefined;
        const spec: ViewSpec = { role: 'tool', content: resultContent(block.content) };
        if (id !== undefined) {
          spec.callId = id;
          spec.key = id;
        }
        views.push(spec);
      } else {
        parts.push(viewPart(block));
        if (isObj(block) && block.type === 'tool_use') calls.push(toolCall(block));
      }
    }
    if (parts.length > 0 || views.length === 0) {
      const spec: ViewSpec = { role: String(role), content: parts };
      if (calls.length > 0) spec.toolCalls = calls;
      views.push(spec);
    }
    return views;
  },

  rebuild(message, outs, specs) {
    const { content } = message;
    if (!Array.isArray(content)) {
      const out = outs[0];
      if (out === undefined) return undefined;
      return out.changed ? { ...message, content: contentBack(out.content) } : message;
    }
    // The views in split order: tool results first (in block order), the rest last.
    const blocks: Obj[] = [];
    let result = 0;
    const restIndex = specs.length - 1;
    const restSpec = specs[restIndex] as ViewSpec;
    const hasRest = restSpec.role !== 'tool';
    let restPlaced = false;
    const rest = hasRest ? outs[restIndex] : undefined;
    for (const block of content) {
      if (isObj(block) && block.type === 'tool_result' && message.role === 'user') {
        const out = outs[result++];
        if (out === undefined) continue;
        if (!out.changed) blocks.push(block);
        else blocks.push({ ...block, content: contentBack(out.content) });
        continue;
      }
      if (rest === undefined || restPlaced) continue;
      if (!rest.changed) {
        blocks.push(block);
        continue;
      }
      restPlaced = true;
      blocks.push(...(contentBack(rest.content) as Obj[]));
    }
    if (blocks.length === 0) return undefined;
    return { ...message, content: blocks };
  },

  join(a, b) {
    if (a.role !== b.role) return undefined;
    const blocks = (m: AnthropicMessage): Obj[] =>
      typeof m.content === 'string' ? [textBlock(m.content)] : m.content;
    return { ...a, content: [...blocks(a), ...blocks(b)] };
  },

  lead(message) {
    // Only a stub (engine text replacing the whole content) is carried here, never a tool_use.
    return message.role === 'assistant' ? { ...message, role: 'user' } : message;
  },

  system(system) {
    if (typeof system === 'string') return system;
    if (Array.isArray(system)) return system.map(viewPart);
    return undefined;
  },

  validate(messages, system) {
    return validateAnthropic(messages, system);
  },

  clearing: {
    kind(m) {
      if (m.role === 'assistant') return 'assistant';
      if (m.role !== 'user') return 'other';
      const c = m.content;
      // A user message of tool results only continues the assistant's turn.
      return Array.isArray(c) && c.length > 0 && c.every((b) => isObj(b) && b.type === 'tool_result') ? 'tool' : 'user';
    },
    calls(m) {
      if (m.role !== 'assistant' || !Array.isArray(m.content)) return [];
      return m.content.filter((b) => isObj(b) && b.type === 'tool_use').map((b) => [String(b.id), String(b.name)]);
    },
    results(m) {
      if (m.role !== 'user' || !Array.isArray(m.content)) return [];
      return m.content
        .filter((b) => isObj(b) && b.type === 'tool_result')
        .map((b) => [String(b.tool_use_id), contentSize(b.content)]);
    },
    reasoning(m) {
      return Array.isArray(m.content) && m.content.some(isReasoningPart);
    },
    edit(m, edit) {
      if (!Array.isArray(m.content)) return m;
      const blocks = m.content.map((b) => {
        if (!isObj(b)) return b;
        const text = b.type === 'tool_result' ? edit.results.get(String(b.tool_use_id)) : undefined;
        if (text !== undefined) return { ...b, content: text };
        // Anthropic's clear_tool_inputs leaves the tool_use with an empty input.
        if (b.type === 'tool_use' && edit.inputs.has(String(b.id))) return { ...b, input: {} };
        return b;
      });
      return { ...m, content: edit.reasoning ? (withoutReasoning(blocks) ?? blocks) : blocks };
    },
  } satisfies ClearingShape<AnthropicMessage>,
};

function blank(text: unknown): boolean {
  return typeof text !== 'string' || text.trim() === '';
}

/** What the Messages API rejects: roles, alternation, tool pairing and order, empty content. */
export function validateAnthropic(messages: readonly unknown[], system?: unknown): FormatProblem[] {
  const { problems, problem } = problemList();
  if (system !== undefined && typeof system !== 'string' && !Array.isArray(system)) {
    problem('bad-system', -1, 'system must be a string or an array of text blocks');
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    problem('no-messages', -1, 'messages must be a non-empty array');
    return problems;
  }
  const seen = new Set<string>();
  let open: string[] = []; // tool_use ids of the previous assistant message, unanswered
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) {
      problem('not-an-object', i, `messages[${i}] is not an object`);
      continue;
    }
    const role = m.role;
    if (role !== 'user' && role !== 'assistant') problem('bad-role', i, `role ${String(role)} is not user or assistant`);
    if (i === 0 && role !== 'user') problem('first-not-user', 0, 'the first message must be a user message');
    const previous = i > 0 && isObj(messages[i - 1]) ? (messages[i - 1] as Obj).role : undefined;
    if (i > 0 && previous === role) problem('roles-not-alternating', i, `two ${String(role)} messages in a row`);
    const content = m.content;
    const blocks: unknown[] = typeof content === 'string' ? [] : Array.isArray(content) ? content : [];
    if (typeof content === 'string') {
      if (content === '' && !(role === 'assistant' && i === messages.length - 1)) {
        problem('empty-content', i, 'content is empty');
      }
    } else if (!Array.isArray(content)) {
      problem('bad-content', i, 'content must be a string or an array of blocks');
    } else if (content.length === 0) {
      problem('empty-content', i, 'content is an empty array');
    }
    // Results must answer the previous assistant message's calls, before any other block.
    const answered = new Set<string>();
    let other = false;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      if (!isObj(block) || typeof block.type !== 'string') {
        problem('bad-block', i, `content[${b}] is not a typed block`);
        continue;
      }
      if (block.type === 'text' && blank(block.text)) problem('empty-text', i, `content[${b}] has no text`);
      if (block.type === 'tool_result') {
        const id = String(block.tool_use_id);
        if (role !== 'user') problem('tool-result-not-user', i, 'tool_result outside a user message', id);
        if (!open.includes(id)) problem('orphan-tool-result', i, `tool_result ${id} answers no tool_use of the previous message`, id);
        if (other) problem('tool-result-not-first', i, `tool_result ${id} follows other content`, id);
        answered.add(id);
      } else {
        other = true;
      }
      if (block.type === 'tool_use') {
        const id = String(block.id);
        if (role !== 'assistant') problem('tool-use-not-assistant', i, 'tool_use outside an assistant message', id);
        if (seen.has(id)) problem('duplicate-call-id', i, `tool_use id ${id} is used twice`, id);
        seen.add(id);
      }
    }
    for (const id of open) {
      if (!answered.has(id)) problem('unanswered-tool-use', i, `tool_use ${id} has no tool_result in the next message`, id);
    }
    open = [];
    if (role === 'assistant') {
      for (const block of blocks) if (isObj(block) && block.type === 'tool_use') open.push(String(block.id));
    }
  }
  const last = messages[messages.length - 1];
  if (isObj(last) && last.role === 'assistant') {
    const content = last.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content) && isObj(content[content.length - 1])
          ? ((content[content.length - 1] as Obj).text as unknown)
          : undefined;
    if (typeof text === 'string' && text !== text.trimEnd()) {
      problem('trailing-whitespace', messages.length - 1, 'the final assistant content ends with whitespace');
    }
  }
  return problems;
}

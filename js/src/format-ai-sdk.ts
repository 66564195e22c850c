// SPDX-License-Identifier: MIT
// AI SDK ModelMessage (v5, v6, v7) and the provider-level prompt its middlewares see: `system`
// (string), `user` (text, image, file parts), `assistant` (text, file, reasoning, tool-call,
// provider-executed tool-result, tool-approval-request parts; ai 7's custom and reasoning-file
// parts) and `tool` (tool-result, tool-approval-response parts). ai 7's tagged file data
// ({ type: 'data' | 'url' | 'reference' | 'text' }) is read where it sizes a part; otherwise every
// non-text part is the caller's own object, passed through. Every tool-result part of a tool message
// is its own tool-result view; its `output` text (`text`, `error-text`, `json`, `error-json`,
// `content`; v4 `result`) is what the engine compresses. Parts are rebuilt from the caller's own.
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

/** An AI SDK `ModelMessage`. */
export interface AiSdkMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string;
  content: string | Obj[];
  providerOptions?: Obj;
  [key: string]: unknown;
}

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

function viewPart(part: unknown): ViewPart {
  if (!isObj(part)) return opaquePart('opaque', part);
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? textPart(part.text, part) : opaquePart('opaque', part);
    case 'file':
      // ai 7's inline text document ({ data: { type: 'text', text } }) is billed as its text, not
      // as a picture: sized by that text (as a part's JSON), never rewritten.
      if (isObj(part.data) && part.data.type === 'text' && typeof part.data.text === 'string') {
        return opaquePart('document', part, { text: part.data.text });
      }
      return opaquePart('image', part);
    case 'image':
    case 'reasoning-file': // ai 7: a file the model made while reasoning, sent back as input
    case 'media':
    case 'image-data':
    case 'image-url':
    case 'file-data':
    case 'file-url':
      return opaquePart('image', part);
    case 'reasoning':
      return opaquePart('reasoning', part, { text: part.text });
    case 'tool-call':
      return opaquePart('tool-call', part, { toolName: part.toolName, input: part.input ?? part.args });
    default:
      return opaquePart(String(part.type), part, { ...part, providerOptions: undefined });
  }
}

const textOf = (text: string): Obj => ({ type: 'text', text });
const withText = (part: Obj, text: string): Obj => ({ ...part, text });

/** What the engine reads of a tool-result part: its output as text or parts. */
function resultContent(part: Obj): string | ViewPart[] {
  const output = part.output;
  if (isObj(output)) {
    switch (output.type) {
      case 'text':
      case 'error-text':
        return typeof output.value === 'string' ? output.value : '';
      case 'json':
      case 'error-json':
        return jsonText(output.value);
      case 'content':
        return Array.isArray(output.value) ? output.value.map(viewPart) : '';
      default:
        return [opaquePart(String(output.type), output, { ...output })];
    }
  }
  if ('result' in part) return typeof part.result === 'string' ? part.result : jsonText(part.result);
  return '';
}

/** The tool-result part with the engine's text in place of its output. */
function resultBack(part: Obj, content: string | ViewPart[]): Obj {
  const output = part.output;
  if (isObj(output)) {
    if (typeof content !== 'string') {
      return { ...part, output: { ...output, value: partsBack<Obj>(content, withText, textOf) } };
    }
    // A json output summarised is text now; an error stays an error.
    const type = output.type === 'error-json' || output.type === 'error-text' ? 'error-text' : 'text';
    const { value: _value, type: _type, ...rest } = output;
    return { ...part, output: { ...rest, type, value: content } };
  }
  return { ...part, result: typeof content === 'string' ? content : partsBack<Obj>(content, withText, textOf) };
}

/** The AI SDK ModelMessage adapter. */
export const aiSdkFormat: FormatAdapter<AiSdkMessage> = {
  name: 'ai-sdk',

  split(message): ViewSpec[] {
    const role = String(message.role);
    const content = message.content;
    if (!Array.isArray(content)) return [{ role, content: typeof content === 'string' ? content : '' }];
    if (role === 'tool') {
      return content.map((part): ViewSpec => {
        const id = isObj(part) ? String(part.toolCallId ?? part.approvalId ?? '') : '';
        if (isObj(part) && part.type === 'tool-result') {
          return { role: 'tool', callId: id, key: id, content: resultContent(part) };
        }
        return { role: 'tool', callId: `approval:${id}`, content: [viewPart(part)] };
      });
    }
    const spec: ViewSpec = { role, content: content.map(viewPart) };
    const calls: Obj[] = [];
    for (const part of content) {
      if (isObj(part) && (part.type === 'tool-call' || part.type === 'tool-approval-request')) {
        calls.push({
          id: part.toolCallId ?? part.approvalId,
          type: 'function',
          function: { name: part.toolName ?? part.type, arguments: jsonText(part.input ?? part.args ?? {}) },
        });
      }
    }
    if (calls.length > 0) spec.toolCalls = calls;
    return [spec];
  },

  rebuild(message, outs) {
    const content = message.content;
    if (!Array.isArray(content)) {
      const out = outs[0];
      if (out === undefined) return undefined;
      return out.changed ? { ...message, content: out.content as string } : message;
    }
    if (message.role === 'tool') {
      const parts: Obj[] = [];
      content.forEach((part, j) => {
        const out = outs[j];
        if (out === undefined) return;
        parts.push(out.changed && isObj(part) && part.type === 'tool-result' ? resultBack(part, out.content) : part);
      });
      return parts.length > 0 ? { ...message, content: parts } : undefined;
    }
    const out = outs[0];
    if (out === undefined) return undefined;
    if (!out.changed) return message;
    const next = out.content;
    return { ...message, content: typeof next === 'string' ? next : partsBack<Obj>(next, withText, textOf) };
  },

  lead(message) {
    // Only a stub (engine text replacing the whole content) is carried here, never a tool call.
    // Anthropic (and Gemini) refuse a conversation that an assistant opens; as a user message
    // the stub opens it for every provider (joinLead then makes it one with the next user message).
    return message.role === 'assistant' ? { ...message, role: 'user' } : message;
  },

  joinLead(led, next) {
    // One user message, the stub first: no provider sees two user messages in a row.
    if (led.role !== 'user' || next.role !== 'user') return undefined;
    const parts = (m: AiSdkMessage): Obj[] => (typeof m.content === 'string' ? [textOf(m.content)] : m.content);
    return { ...next, content: [...parts(led), ...parts(next)] };
  },

  validate(messages) {
    return validateAiSdk(messages);
  },

  clearing: {
    kind(m) {
      const role = m.role;
      return role === 'user' || role === 'assistant' || role === 'tool' ? role : 'other';
    },
    calls(m) {
      if (m.role !== 'assistant' || !Array.isArray(m.content)) return [];
      return m.content
        .filter((p) => isObj(p) && p.type === 'tool-call')
        .map((p) => [String(p.toolCallId), String(p.toolName)]);
    },
    results(m) {
      if (m.role !== 'tool' || !Array.isArray(m.content)) return [];
      return m.content.filter((p) => isObj(p) && p.type === 'tool-result').map((p) => [String(p.toolCallId), resultSize(p)]);
    },
    reasoning(m) {
      return m.role === 'assistant' && Array.isArray(m.content) && m.content.some(isReasoningPart);
    },
    edit(m, edit) {
      if (!Array.isArray(m.content)) return m;
      const parts = m.content.map((p) => {
        if (!isObj(p)) return p;
        const text = p.type === 'tool-result' && m.role === 'tool' ? edit.results.get(String(p.toolCallId)) : undefined;
        if (text !== undefined) return clearedResult(p, text);
        if (p.type === 'tool-call' && edit.inputs.has(String(p.toolCallId))) {
          return p.input === undefined && 'args' in p ? { ...p, args: {} } : { ...p, input: {} };
        }
        return p;
      });
      return { ...m, content: edit.reasoning ? (withoutReasoning(parts) ?? parts) : parts };
    },
  } satisfies ClearingShape<AiSdkMessage>,
};

/** The size of a tool-result part's output, as the engine reads it. */
function resultSize(part: Obj): number {
  const content = resultContent(part);
  return typeof content === 'string' ? content.length : contentSize(content);
}

/** A tool-result part whose output is the placeholder text (an error stays an error). */
function clearedResult(part: Obj, text: string): Obj {
  const output = part.output;
  if (!isObj(output)) return { ...part, result: text };
  const type = output.type === 'error-json' || output.type === 'error-text' ? 'error-text' : 'text';
  const { value: _value, type: _type, ...rest } = output;
  return { ...part, output: { ...rest, type, value: text } };
}

/** What providers reject once the SDK converts the messages: roles, tool-call / tool-result
 * pairing, duplicate call ids, empty content. */
export function validateAiSdk(messages: readonly unknown[]): FormatProblem[] {
  const { problems, problem } = problemList();
  if (!Array.isArray(messages) || messages.length === 0) {
    problem('no-messages', -1, 'messages must be a non-empty array');
    return problems;
  }
  const seen = new Set<string>();
  let open: string[] = [];
  let openAt = -1;
  // Calls awaiting approval may be answered later (or denied), so they are never unanswered.
  let awaiting = new Set<string>();
  const close = () => {
    for (const id of open) {
      if (!awaiting.has(id)) problem('unanswered-tool-call', openAt, `tool call ${id} has no tool-result`, id);
    }
    open = [];
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) {
      problem('not-an-object', i, `messages[${i}] is not an object`);
      continue;
    }
    const role = m.role;
    const content = m.content;
    if (!['system', 'user', 'assistant', 'tool'].includes(String(role))) problem('bad-role', i, `role ${String(role)}`);
    if (role === 'system' && typeof content !== 'string') problem('bad-content', i, 'a system message has string content');
    if (typeof content !== 'string' && !Array.isArray(content)) {
      problem('bad-content', i, 'content must be a string or an array of parts');
      continue;
    }
    if (content.length === 0 && role !== 'assistant') problem('empty-content', i, 'content is empty');
    if (role === 'tool') {
      for (const part of content as unknown[]) {
        if (!isObj(part)) continue;
        if (part.type === 'tool-result') {
          const id = String(part.toolCallId);
          if (!open.includes(id)) problem('orphan-tool-result', i, `tool-result ${id} answers no open tool-call`, id);
          else open = open.filter((x) => x !== id);
        } else if (part.type !== 'tool-approval-response') {
          problem('bad-part', i, `a tool message holds a ${String(part.type)} part`);
        }
      }
      continue;
    }
    close();
    if (role !== 'assistant' || typeof content === 'string') continue;
    const executed = new Set<string>();
    const approval = new Set<string>();
    for (const part of content as unknown[]) {
      if (!isObj(part)) continue;
      if (part.type === 'tool-result') executed.add(String(part.toolCallId));
      if (part.type === 'tool-approval-request') approval.add(String(part.toolCallId));
    }
    for (const part of content as unknown[]) {
      if (!isObj(part) || part.type !== 'tool-call') continue;
      const id = String(part.toolCallId);
      if (seen.has(id)) problem('duplicate-call-id', i, `tool call id ${id} is used twice`, id);
      seen.add(id);
      if (!part.providerExecuted && !executed.has(id)) open.push(id);
    }
    awaiting = approval;
    openAt = i;
  }
  close();
  return problems;
}

// SPDX-License-Identifier: MIT
// OpenAI Chat Completions messages without ids: one view per message (`developer` read as a
// system message, legacy `function_call` / `function` messages as a call and its result).
// Messages that all carry an `id` go to the engine as they are (its own dialect, `verbatim` keyed
// by id, `_cce_original` provenance); this adapter serves the others.
import { chatClearing, type ClearingShape } from './clearing.js';
import { problemList, type FormatAdapter, type FormatProblem, type ViewSpec } from './format-shapes.js';

type Obj = Record<string, unknown>;

/** An OpenAI Chat Completions message. */
export interface OpenAIChatMessage {
  role: string;
  content?: string | Obj[] | null;
  tool_calls?: Obj[];
  tool_call_id?: string;
  [key: string]: unknown;
}

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The OpenAI Chat Completions adapter. */
export const openaiChatFormat: FormatAdapter<OpenAIChatMessage> = {
  name: 'openai-chat',

  split(message): ViewSpec[] {
    const role = String(message.role);
    const content = message.content;
    const spec: ViewSpec = {
      role: role === 'developer' ? 'system' : role,
      content: typeof content === 'string' || Array.isArray(content) ? (content as ViewSpec['content']) : null,
    };
    if (Array.isArray(message.tool_calls)) spec.toolCalls = message.tool_calls;
    else if (isObj(message.function_call)) {
      const call = message.function_call;
      spec.toolCalls = [{ id: `function:${String(call.name)}`, type: 'function', function: call }];
    }
    spec.countCalls = true;
    if (typeof message.tool_call_id === 'string') {
      spec.callId = message.tool_call_id;
      spec.key = message.tool_call_id;
    } else if (role === 'function') spec.callId = `function:${String(message.name)}`;
    return [spec];
  },

  rebuild(message, outs) {
    const out = outs[0];
    if (out === undefined) return undefined;
    // Parts come back as the caller's own parts, or shallow copies with new text.
    return out.changed ? { ...message, content: out.content as OpenAIChatMessage['content'] } : message;
  },

  validate(messages) {
    return validateOpenAIChat(messages);
  },

  clearing: chatClearing as ClearingShape<OpenAIChatMessage>,
};

/** What Chat Completions rejects: roles, unanswered or orphan tool calls, duplicate call ids,
 * an assistant message with neither content nor calls. */
export function validateOpenAIChat(messages: readonly unknown[]): FormatProblem[] {
  const { problems, problem } = problemList();
  if (!Array.isArray(messages) || messages.length === 0) {
    problem('no-messages', -1, 'messages must be a non-empty array');
    return problems;
  }
  const roles = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
  const seen = new Set<string>();
  let open: string[] = [];
  let openAt = -1;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) {
      problem('not-an-object', i, `messages[${i}] is not an object`);
      continue;
    }
    const role = m.role;
    if (!roles.has(String(role))) problem('bad-role', i, `role ${String(role)} is not a Chat Completions role`);
    if (role === 'tool') {
      const id = String(m.tool_call_id);
      if (!open.includes(id)) problem('orphan-tool-result', i, `tool message ${id} answers no open tool call`, id);
      else open = open.filter((x) => x !== id);
      continue;
    }
    for (const id of open) {
      problem('unanswered-tool-call', openAt, `tool call ${id} has no tool message after it`, id);
    }
    open = [];
    const content = m.content;
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    if (role === 'assistant' && content == null && calls.length === 0 && !isObj(m.function_call)) {
      problem('empty-content', i, 'an assistant message needs content or tool_calls');
    }
    if (content != null && typeof content !== 'string' && !Array.isArray(content)) {
      problem('bad-content', i, 'content must be a string, an array of parts or null');
    }
    if (role !== 'assistant' && calls.length > 0) problem('tool-calls-not-assistant', i, 'tool_calls outside an assistant message');
    for (const call of calls) {
      const id = isObj(call) ? String(call.id) : 'undefined';
      if (seen.has(id)) problem('duplicate-call-id', i, `tool call id ${id} is used twice`, id);
      seen.add(id);
      open.push(id);
    }
    openAt = i;
  }
  for (const id of open) problem('unanswered-tool-call', openAt, `tool call ${id} has no tool message after it`, id);
  return problems;
}

// SPDX-License-Identifier: MIT
// LangChain.js messages (`HumanMessage`, `AIMessage`, `SystemMessage`, `ToolMessage`,
// `ChatMessage`, … instances of @langchain/core, or plain objects of the same fields): the role is
// read from `type` (`human`, `ai`, `system`, `tool`, `generic` + `role`), so `preserve:
// ['system']` protects a SystemMessage; `tool_calls` are the calls, `tool_call_id` pairs a
// ToolMessage. A rewritten message is a new instance of the caller's own class, made from the
// caller's fields with only `content` replaced. This file imports nothing from LangChain.
import {
  jsonText,
  opaquePart,
  partsBack,
  textPart,
  type FormatAdapter,
  type FormatProblem,
  type ViewPart,
  type ViewSpec,
} from './format-core.js';
import { validateOpenAIChat } from './format-openai-chat.js';

type Obj = Record<string, unknown>;

/** A LangChain.js message (a BaseMessage instance, or a plain object of its fields). */
export interface LangChainMessage {
  content: string | Obj[];
  [key: string]: unknown;
}

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

const ROLES: Record<string, string> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
};

/** The message's type: `type` (own field in @langchain/core 0.3+ and 1.x), else `_getType()`. */
function typeOf(message: Obj): string {
  if (typeof message.type === 'string') return message.type;
  const getType = (message as { _getType?: unknown })._getType;
  return typeof getType === 'function' ? String((getType as () => unknown).call(message)) : '';
}

/** The provider-neutral role of a LangChain message. */
export function langChainRole(message: Obj): string {
  const type = typeOf(message);
  if (type === 'generic' || type === 'chat') return String(message.role ?? 'user');
  return ROLES[type] ?? type;
}

/** A LangChain message: an instance with LangChain's serialisation fields, or `_getType`. */
export function isLangChainMessage(value: unknown): boolean {
  return (
    isObj(value) &&
    (Array.isArray(value.lc_namespace) || typeof (value as { _getType?: unknown })._getType === 'function')
  );
}

function viewPart(part: unknown): ViewPart {
  if (!isObj(part)) return typeof part === 'string' ? textPart(part, part) : opaquePart('opaque', part);
  if (part.type === 'text' && typeof part.text === 'string') return textPart(part.text, part);
  if (part.type === 'image_url' || part.type === 'image' || part.type === 'file' || part.type === 'input_image') {
    return opaquePart('image', part);
  }
  return opaquePart(String(part.type), part, { ...part });
}

const withText = (part: Obj, text: string): Obj => ({ ...part, text });
const textOf = (text: string): Obj => ({ type: 'text', text });

/** A copy of `message` with new content: the same class, built from the caller's own fields. */
function withContent(message: LangChainMessage, content: unknown): LangChainMessage {
  const fields: Obj = {};
  for (const key of Object.keys(message)) {
    if (!key.startsWith('lc_') && key !== 'type') fields[key] = message[key];
  }
  fields.content = content;
  const Class = (message as { constructor?: unknown }).constructor;
  if (typeof Class === 'function' && Class !== Object && isLangChainMessage(message)) {
    return new (Class as new (fields: Obj) => LangChainMessage)(fields);
  }
  return { ...message, content } as LangChainMessage;
}

/** The LangChain.js adapter. */
export const langChainFormat: FormatAdapter<LangChainMessage> = {
  name: 'langchain',

  split(message): ViewSpec[] {
    const m = message as Obj;
    const role = langChainRole(m);
    const content = message.content;
    const spec: ViewSpec = {
      role,
      content: typeof content === 'string' ? content : Array.isArray(content) ? content.map(viewPart) : '',
    };
    if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      spec.toolCalls = m.tool_calls.map((call) => {
        const c = isObj(call) ? call : {};
        return { id: c.id, type: 'function', function: { name: c.name, arguments: jsonText(c.args ?? {}) } };
      });
    }
    spec.countCalls = true;
    if (role === 'tool') {
      const id = String(m.tool_call_id ?? `function:${String(m.name)}`);
      spec.callId = id;
      spec.key = id;
    }
    return [spec];
  },

  rebuild(message, outs) {
    const out = outs[0];
    if (out === undefined) return undefined;
    if (!out.changed) return message;
    const content = out.content;
    return withContent(message, typeof content === 'string' ? content : partsBack<Obj>(content, withText, textOf));
  },

  validate(messages) {
    return validateLangChain(messages);
  },
};

/** Chat Completions' rules, over the roles and calls LangChain messages stand for. */
export function validateLangChain(messages: readonly unknown[]): FormatProblem[] {
  if (!Array.isArray(messages)) return validateOpenAIChat(messages);
  return validateOpenAIChat(
    messages.map((m) => {
      if (!isObj(m)) return m;
      const role = langChainRole(m);
      const view: Obj = { role, content: m.content };
      if (role === 'tool') view.tool_call_id = m.tool_call_id;
      if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) view.tool_calls = m.tool_calls;
      if (view.role === 'system' || !['user', 'assistant', 'tool'].includes(role)) view.role = 'system';
      return view;
    }),
  );
}

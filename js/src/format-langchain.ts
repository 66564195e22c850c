// SPDX-License-Identifier: MIT
// LangChain.js messages (`HumanMessage`, `AIMessage`, `SystemMessage`, `ToolMessage`,
// `ChatMessage`, … instances of @langchain/core, or plain objects of the same fields): the role is
// read from `type` (`human`, `ai`, `system`, `tool`, `generic` + `role`), so `preserve:
// ['system']` protects a SystemMessage; `tool_calls` are the calls, `tool_call_id` pairs a
// ToolMessage. A rewritten message is a new instance of the caller's own class, made from the
// caller's fields with only `content` replaced. This file imports nothing from LangChain.
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
} from './format-shapes.js';
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
  return withFields(message, { content });
}

/** A copy of `message` with some fields replaced: the same class, from the caller's own fields. */
function withFields(message: LangChainMessage, patch: Obj): LangChainMessage {
  const fields: Obj = {};
  for (const key of Object.keys(message)) {
    if (!key.startsWith('lc_') && key !== 'type') fields[key] = message[key];
  }
  Object.assign(fields, patch);
  const Class = (message as { constructor?: unknown }).constructor;
  if (typeof Class === 'function' && Class !== Object && isLangChainMessage(message)) {
    return new (Class as new (fields: Obj) => LangChainMessage)(fields);
  }
  return { ...message, ...patch } as LangChainMessage;
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

  lead(message, input) {
    // Only a stub (engine text replacing the whole content) is carried here, never a tool call.
    // An AI message would open the conversation (ChatAnthropic sends it first, which Anthropic
    // refuses): the stub becomes a human message, of the class of the caller's own human
    // messages (the package is never imported), or of their plain shape.
    if (langChainRole(message as Obj) !== 'assistant') return message;
    const human = input.find((m) => isObj(m) && langChainRole(m as Obj) === 'user') as LangChainMessage | undefined;
    const content = message.content;
    const id = (message as Obj).id;
    const fields: Obj = id === undefined ? { content } : { content, id };
    if (human !== undefined && isLangChainMessage(human)) {
      const Class = (human as { constructor?: unknown }).constructor;
      if (typeof Class === 'function' && Class !== Object) return new (Class as new (f: Obj) => LangChainMessage)(fields);
    }
    if (isLangChainMessage(message)) return message; // no class to make a human message with
    // A plain message: its role and type fields (whichever it has) say human.
    const { tool_calls: _calls, ...rest } = message as Obj;
    const led: Obj = { ...rest, ...fields };
    if ('role' in rest) led.role = 'user';
    if ('type' in rest || !('role' in rest)) led.type = 'human';
    return led as unknown as LangChainMessage;
  },

  joinLead(led, next) {
    // ChatAnthropic sends two human messages in a row as they are: one message, the stub first,
    // of the next message's class and fields.
    if (langChainRole(led as Obj) !== 'user' || langChainRole(next as Obj) !== 'user') return undefined;
    const parts = (content: unknown): unknown[] => (typeof content === 'string' ? [textOf(content)] : Array.isArray(content) ? content : []);
    return withContent(next, [...parts(led.content), ...parts(next.content)]);
  },

  validate(messages) {
    return validateLangChain(messages);
  },

  clearing: {
    kind(m) {
      const role = langChainRole(m as Obj);
      return role === 'user' || role === 'assistant' || role === 'tool' ? role : 'other';
    },
    calls(m) {
      const calls = (m as Obj).tool_calls;
      if (langChainRole(m as Obj) !== 'assistant' || !Array.isArray(calls)) return [];
      return calls.filter(isObj).map((c) => [String(c.id), String(c.name)]);
    },
    results(m) {
      const id = (m as Obj).tool_call_id;
      return langChainRole(m as Obj) === 'tool' && typeof id === 'string' ? [[id, contentSize(m.content)]] : [];
    },
    reasoning(m) {
      return langChainRole(m as Obj) === 'assistant' && Array.isArray(m.content) && m.content.some(isReasoningPart);
    },
    edit(m, edit) {
      const patch: Obj = {};
      const id = (m as Obj).tool_call_id;
      const text = typeof id === 'string' ? edit.results.get(id) : undefined;
      if (text !== undefined) patch.content = text;
      const calls = (m as Obj).tool_calls;
      if (edit.inputs.size > 0 && Array.isArray(calls)) {
        patch.tool_calls = calls.map((c) => (isObj(c) && edit.inputs.has(String(c.id)) ? { ...c, args: {} } : c));
        // Anthropic's tool_use blocks in the content carry the same input.
        if (Array.isArray(m.content)) {
          patch.content = m.content.map((b) =>
            isObj(b) && b.type === 'tool_use' && edit.inputs.has(String(b.id)) ? { ...b, input: {} } : b,
          );
        }
      }
      if (edit.reasoning && Array.isArray(m.content)) {
        const content = (patch.content ?? m.content) as Obj[];
        patch.content = withoutReasoning(content) ?? content;
      }
      return withFields(m, patch);
    },
  } satisfies ClearingShape<LangChainMessage>,
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

// SPDX-License-Identifier: MIT
// Converts conversations in the normalised OpenAI Chat shape of data/real, data/native/openai and
// the bench scenarios ({id, role, content, tool_calls?, tool_call_id?}) into each provider's own
// message format, the way each SDK's documentation writes them. Ids are dropped: none of these
// formats has message ids. Deterministic; used by formats.test.mjs and scripts/bench-formats.mjs.

const parse = (text) => {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { value };
  } catch {
    return { text };
  }
};

/** OpenAI Chat Completions without ids (and without the data sets' `index`). */
export function toOpenAIChat(conversation) {
  return conversation.map(({ id: _id, index: _index, ...rest }) => rest);
}

/** AI SDK ModelMessage v5: consecutive tool messages become one `tool` message of tool-result
 * parts (JSON-object results as `json` outputs, the rest as `text`). */
export function toAiSdk(conversation) {
  const out = [];
  const names = new Map();
  for (const m of conversation) {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'system') out.push({ role: 'system', content: text });
    else if (m.role === 'user') out.push({ role: 'user', content: [{ type: 'text', text }] });
    else if (m.role === 'assistant') {
      const content = [];
      if (text) content.push({ type: 'text', text });
      for (const call of m.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        content.push({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.function.name,
          input: parse(call.function.arguments),
        });
      }
      out.push({ role: 'assistant', content: content.length > 0 ? content : [{ type: 'text', text: ' ' }] });
    } else if (m.role === 'tool') {
      let value = null;
      if (text.startsWith('{')) {
        try {
          value = JSON.parse(text);
        } catch {
          value = null;
        }
      }
      const part = {
        type: 'tool-result',
        toolCallId: m.tool_call_id,
        toolName: names.get(m.tool_call_id) ?? 'tool',
        output: value !== null && typeof value === 'object' ? { type: 'json', value } : { type: 'text', value: text },
      };
      const last = out[out.length - 1];
      if (last?.role === 'tool') last.content.push(part);
      else out.push({ role: 'tool', content: [part] });
    }
  }
  return out;
}

/** OpenAI Responses input items: message items with input_text / output_text parts,
 * function_call and function_call_output items, and before every assistant step with calls a
 * reasoning item with encrypted content (as a stateless, store: false client sends them back). */
export function toResponses(conversation) {
  const out = [];
  let step = 0;
  for (const m of conversation) {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'system') out.push({ type: 'message', role: 'developer', content: text });
    else if (m.role === 'user') out.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    else if (m.role === 'assistant') {
      const calls = m.tool_calls ?? [];
      if (calls.length > 0) {
        step++;
        out.push({ type: 'reasoning', id: `rs_${step}`, summary: [], encrypted_content: `gAAAAB${step}x`.repeat(8) });
      }
      if (text) {
        out.push({
          type: 'message',
          role: 'assistant',
          id: `msg_${out.length}`,
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [] }],
        });
      }
      for (const call of calls) {
        out.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
      }
    } else if (m.role === 'tool') {
      out.push({ type: 'function_call_output', call_id: m.tool_call_id, output: text });
    }
  }
  return out;
}

/** AI SDK UIMessages as `useChat` stores them: one assistant message per run of steps (a step
 * per assistant message of the source, each opening with `step-start`), every tool call a tool
 * part that holds its result (`output-available`; JSON-object results as objects, the rest as
 * text; a call without a result stays `input-available`). Ids are positional. */
export function toAiSdkUi(conversation) {
  const out = [];
  const parts = new Map(); // call id -> its tool part
  let assistant;
  conversation.forEach((m, i) => {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'tool') {
      const part = parts.get(m.tool_call_id);
      if (!part) return; // a result without its call: useChat has no such part
      const value = parse(text);
      part.state = 'output-available';
      part.output = text.startsWith('{') && !('text' in value && Object.keys(value).length === 1) ? value : text;
      return;
    }
    if (m.role !== 'assistant') {
      assistant = undefined;
      out.push({ id: `m${i}`, role: m.role === 'system' ? 'system' : 'user', parts: [{ type: 'text', text }] });
      return;
    }
    if (assistant === undefined) {
      assistant = { id: `m${i}`, role: 'assistant', parts: [] };
      out.push(assistant);
    }
    assistant.parts.push({ type: 'step-start' });
    if (text) assistant.parts.push({ type: 'text', text });
    for (const call of m.tool_calls ?? []) {
      const part = { type: `tool-${call.function.name}`, toolCallId: call.id, state: 'input-available', input: parse(call.function.arguments) };
      parts.set(call.id, part);
      assistant.parts.push(part);
    }
  });
  return out;
}

/** The characters of tool-result text in a conversation of the given format. */
export function toolResultChars(messages, format) {
  let n = 0;
  const parts = (value) => {
    if (typeof value === 'string') n += value.length;
    else if (Array.isArray(value)) for (const p of value) if (typeof p?.text === 'string') n += p.text.length;
  };
  for (const m of messages) {
    if (format === 'openai-chat' && m.role === 'tool') parts(m.content);
    if (format === 'anthropic' && Array.isArray(m.content)) {
      for (const b of m.content) if (b.type === 'tool_result') parts(b.content);
    }
    if (format === 'ai-sdk' && m.role === 'tool') {
      for (const p of m.content) {
        const o = p.output;
        if (!o) continue;
        if (o.type === 'json' || o.type === 'error-json') n += JSON.stringify(o.value).length;
        else if (o.type === 'content') parts(o.value);
        else parts(o.value);
      }
    }
    if (format === 'openai-responses' && m.type === 'function_call_output') parts(m.output);
    if (format === 'ai-sdk-ui' && m.role === 'assistant') {
      for (const p of m.parts) {
        if (p.state === 'output-available') n += typeof p.output === 'string' ? p.output.length : JSON.stringify(p.output).length;
      }
    }
    if (format === 'langchain' && m.type === 'tool') parts(m.content);
  }
  return n;
}

/** LangChain.js message instances, made with the classes of `messages` (@langchain/core/messages):
 * SystemMessage, HumanMessage, AIMessage with `tool_calls`, ToolMessage with `tool_call_id`. */
export function toLangChain(conversation, messages) {
  return conversation.map((m) => {
    const content = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'system') return new messages.SystemMessage({ content });
    if (m.role === 'user') return new messages.HumanMessage({ content });
    if (m.role === 'tool') return new messages.ToolMessage({ content, tool_call_id: m.tool_call_id });
    const tool_calls = (m.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      args: parse(call.function.arguments),
      type: 'tool_call',
    }));
    return new messages.AIMessage({ content, tool_calls });
  });
}

/** The five formats' cases of a selection of data/native: the Anthropic conversations as they are
 * (with their separate system), and their OpenAI twins converted into each other format. */
export function nativeCases(anthropic, twins, lc) {
  return [
    ['anthropic', anthropic.map((c) => ({ messages: c.messages, system: c.system }))],
    ['openai-chat', twins.map((c) => ({ messages: toOpenAIChat(c) }))],
    ['ai-sdk', twins.map((c) => ({ messages: toAiSdk(c) }))],
    ['ai-sdk-ui', twins.map((c) => ({ messages: toAiSdkUi(c) }))],
    ['openai-responses', twins.map((c) => ({ messages: toResponses(c) }))],
    ['langchain', twins.map((c) => ({ messages: toLangChain(c, lc) }))],
  ];
}

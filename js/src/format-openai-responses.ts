// SPDX-License-Identifier: MIT
// OpenAI Responses input items: `message` items (or easy messages without `type`), calls
// (`function_call`, `custom_tool_call`, any `*_call` with a `call_id`), their outputs
// (`function_call_output`, `custom_tool_call_output`, any `*_output` with a `call_id`),
// `reasoning` (with `encrypted_content`), and any other item, carried untouched. One view per
// item: a call opens a step, and the reasoning items, parallel calls and outputs after it stay in
// it (the engine keeps a step whole), so a reasoning item is never separated from the item it
// belongs to. Outputs are compressed like tool messages.
import { contentSize, type ClearingShape } from './clearing.js';
import {
  opaquePart,
  partsBack,
  problemList,
  textPart,
  type FormatAdapter,
  type FormatProblem,
  type ViewPart,
  type ViewSpec,
} from './format-shapes.js';

type Obj = Record<string, unknown>;

/** An OpenAI Responses input item. */
export interface ResponsesItem {
  type?: string;
  [key: string]: unknown;
}

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

const isMessage = (item: Obj) => item.type === 'message' || (item.type === undefined && 'role' in item);
const isCall = (item: Obj) =>
  typeof item.type === 'string' && item.type.endsWith('_call') && item.call_id !== undefined;
const isOutput = (item: Obj) =>
  typeof item.type === 'string' && item.type.endsWith('_output') && item.call_id !== undefined;

function viewPart(part: unknown): ViewPart {
  if (!isObj(part)) return opaquePart('opaque', part);
  if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') {
    return textPart(part.text, part);
  }
  if (part.type === 'input_image' || part.type === 'input_file' || part.type === 'input_audio') {
    return opaquePart('image', part);
  }
  return opaquePart(String(part.type), part, { ...part });
}

const withText = (part: Obj, text: string): Obj => ({ ...part, text });

// Per input array: whether some call before index i still waits for its output. Responses logs
// interleave parallel calls, outputs, reasoning and text; an item while calls are open continues
// their step, so that the engine keeps the whole step together. One pass, cached per array and
// carried on where it stopped when the array has grown (the context manager's history, appended
// to item by item, is scanned once in all rather than once per add).
const openCalls = new WeakMap<readonly unknown[], { open: number[]; waiting: Set<string> }>();
function callsOpenAt(items: readonly unknown[], index: number): boolean {
  let scan = openCalls.get(items);
  if (scan === undefined) {
    scan = { open: [], waiting: new Set<string>() };
    openCalls.set(items, scan);
  }
  const { open, waiting } = scan;
  for (let i = open.length; i <= index && i < items.length; i++) {
    open.push(waiting.size > 0 ? 1 : 0);
    const item = items[i];
    if (!isObj(item) || item.call_id === undefined) continue;
    if (isCall(item)) waiting.add(String(item.call_id));
    else if (isOutput(item)) waiting.delete(String(item.call_id));
  }
  return open[index] === 1;
}

/** The OpenAI Responses adapter. */
export const openaiResponsesFormat: FormatAdapter<ResponsesItem> = {
  name: 'openai-responses',

  split(item, index, items): ViewSpec[] {
    const it = item as Obj;
    if (isMessage(it)) {
      const role = String(it.role);
      const content = it.content;
      const spec: ViewSpec = {
        role: role === 'developer' ? 'system' : role,
        content: typeof content === 'string' ? content : Array.isArray(content) ? content.map(viewPart) : '',
      };
      // An assistant message while calls still wait for their outputs belongs to their step.
      if (role === 'assistant' && callsOpenAt(items, index)) spec.callId = `step:item:${index}`;
      return [spec];
    }
    if (isOutput(it)) {
      const output = it.output;
      const id = String(it.call_id);
      return [
        {
          role: 'tool',
          callId: id,
          key: id,
          content: typeof output === 'string' ? output : Array.isArray(output) ? output.map(viewPart) : [opaquePart('output', output)],
        },
      ];
    }
    // Calls, reasoning and every other item: kept as they are, each a step of its own or, after a
    // call or reasoning item, a continuation of that step (a tool_call_id joins the engine's group).
    const id = isCall(it) ? String(it.call_id) : `item:${index}`;
    const payload: Obj =
      it.type === 'reasoning'
        ? { summary: it.summary }
        : isCall(it)
          ? { name: it.name, arguments: it.arguments ?? it.input }
          : { ...it };
    const spec: ViewSpec = {
      role: 'assistant',
      content: [opaquePart(String(it.type), it, payload)],
      toolCalls: [{ id, type: 'function', function: { name: String(it.name ?? it.type), arguments: '' } }],
    };
    const previous = index > 0 ? items[index - 1] : undefined;
    if ((isObj(previous) && !isMessage(previous) && !isOutput(previous)) || callsOpenAt(items, index)) {
      spec.callId = `step:${id}`;
    }
    return [spec];
  },

  rebuild(item, outs) {
    const out = outs[0];
    if (out === undefined) return undefined;
    if (!out.changed) return item;
    const it = item as Obj;
    const content = out.content;
    if (isMessage(it)) {
      const assistant = it.role === 'assistant';
      const newText = (text: string): Obj =>
        assistant ? { type: 'output_text', text, annotations: [] } : { type: 'input_text', text };
      const next = typeof content === 'string' ? content : partsBack<Obj>(content, withText, newText);
      // Every text of the message emptied (a budget's last resort) leaves no content, and a message
      // item needs some: the item is left out, and uncompress restores it like any omitted item.
      if (Array.isArray(next) && next.length === 0 && !(Array.isArray(it.content) && it.content.length === 0)) {
        return undefined;
      }
      return { ...it, content: next };
    }
    if (isOutput(it)) {
      return {
        ...it,
        output:
          typeof content === 'string'
            ? content
            : partsBack<Obj>(content, withText, (text) => ({ type: 'input_text', text })),
      };
    }
    return item; // calls, reasoning and unknown items are never changed
  },

  validate(items) {
    return validateResponses(items);
  },

  clearing: {
    kind(item) {
      const it = item as Obj;
      if (isOutput(it)) return 'tool';
      if (!isMessage(it)) return 'assistant'; // calls, reasoning, other model items
      return it.role === 'user' ? 'user' : it.role === 'assistant' ? 'assistant' : 'other';
    },
    calls(item) {
      const it = item as Obj;
      return isCall(it) ? [[String(it.call_id), String(it.name ?? it.type)]] : [];
    },
    results(item) {
      const it = item as Obj;
      // Outputs of function and custom tools; a computer call's screenshot and the like stay.
      const clearable = it.type === 'function_call_output' || it.type === 'custom_tool_call_output';
      return clearable ? [[String(it.call_id), contentSize(it.output)]] : [];
    },
    reasoning(item) {
      return (item as Obj).type === 'reasoning';
    },
    edit(item, edit) {
      const it = item as Obj;
      if (it.type === 'reasoning' && edit.reasoning) return undefined; // the whole item goes
      const text = isOutput(it) ? edit.results.get(String(it.call_id)) : undefined;
      if (text !== undefined) return { ...it, output: text };
      // A custom tool's input is free text, not an object: only function arguments are cleared.
      if (it.type === 'function_call' && edit.inputs.has(String(it.call_id))) return { ...it, arguments: '{}' };
      return item;
    },
  } satisfies ClearingShape<ResponsesItem>,
};

/** What the Responses API rejects: outputs without their call, calls without output, duplicate
 * call ids, a reasoning item without the item it belongs to, empty messages. */
export function validateResponses(items: readonly unknown[]): FormatProblem[] {
  const { problems, problem } = problemList();
  if (!Array.isArray(items) || items.length === 0) {
    problem('no-messages', -1, 'input must be a non-empty array');
    return problems;
  }
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (!isObj(it)) {
      problem('not-an-object', i, `input[${i}] is not an object`);
      continue;
    }
    if (isMessage(it)) {
      if (!['user', 'assistant', 'system', 'developer'].includes(String(it.role))) problem('bad-role', i, `role ${String(it.role)}`);
      const content = it.content;
      if (Array.isArray(content) ? content.length === 0 : typeof content !== 'string') {
        problem('empty-content', i, 'a message needs content');
      }
    } else if (isCall(it)) {
      const id = String(it.call_id);
      if (calls.has(id)) problem('duplicate-call-id', i, `call_id ${id} is used twice`, id);
      calls.set(id, i);
    } else if (isOutput(it)) {
      const id = String(it.call_id);
      if (!calls.has(id)) problem('orphan-tool-result', i, `no call for output ${id}`, id);
      answered.add(id);
    } else if (it.type === 'reasoning') {
      const next = items[i + 1];
      if (!isObj(next) || (isMessage(next) && next.role !== 'assistant') || isOutput(next)) {
        problem('reasoning-without-item', i, 'a reasoning item must be followed by the item it produced');
      }
    }
  }
  for (const [id, i] of calls) {
    const item = items[i] as Obj;
    if (!answered.has(id) && (item.type === 'function_call' || item.type === 'custom_tool_call')) {
      problem('unanswered-tool-call', i, `no output for call ${id}`, id);
    }
  }
  return problems;
}

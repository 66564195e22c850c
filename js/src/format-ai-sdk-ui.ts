// SPDX-License-Identifier: MIT
// AI SDK UIMessage (v5, v6, v7): what `useChat` holds and sends, `{ id, role, parts }`. The views
// are what `convertToModelMessages` makes of it, so the engine counts and groups what the model
// will read: a system or user message is one view of its parts; an assistant message is one step
// per `step-start`, each an assistant view (text, reasoning, files, and its tool parts as calls)
// followed by a tool view per tool part that has an output (`output-available`: its output;
// `output-error`: its errorText). A tool part holds its call and its result, so it is never split:
// the engine keeps a step and its results together, and a rebuilt part keeps every field but the
// output text it was given. Every other part (`source-*`, `data-*`, `step-start`, files) is the
// caller's own object, passed through.
import { contentSize, isReasoningPart, withoutReasoning, type ClearingShape } from './clearing.js';
import {
  jsonText,
  opaquePart,
  partsBack,
  problemList,
  SOURCE,
  textPart,
  type FormatAdapter,
  type FormatProblem,
  type ViewOut,
  type ViewPart,
  type ViewSpec,
} from './format-shapes.js';

type Obj = Record<string, unknown>;

/** An AI SDK `UIMessage`. */
export interface AiSdkUiMessage {
  id?: string;
  role: 'system' | 'user' | 'assistant' | string;
  parts: Obj[];
  metadata?: unknown;
  [key: string]: unknown;
}

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** A tool part: `tool-<name>` (static tools) or `dynamic-tool`. */
export const isToolPart = (part: unknown): boolean =>
  isObj(part) &&
  typeof part.type === 'string' &&
  (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) &&
  part.toolCallId !== undefined;

const toolName = (part: Obj): string =>
  part.type === 'dynamic-tool' ? String(part.toolName) : String(part.type).slice('tool-'.length);

/** A part convertToModelMessages leaves out (step boundaries, sources, data parts, a tool call
 * whose input is still streaming): never in a view, so it costs no tokens, and put back where it
 * was when the message is rebuilt. */
const isUiOnly = (part: unknown): boolean =>
  isObj(part) &&
  (part.type === 'step-start' ||
    part.type === 'source-url' ||
    part.type === 'source-document' ||
    (typeof part.type === 'string' && part.type.startsWith('data-')) ||
    (isToolPart(part) && part.state === 'input-streaming'));

/** Whether the part carries a result the model reads (convertToModelMessages' tool-result; a
 * denied call's is the denial). */
const hasResult = (part: Obj): boolean =>
  part.state === 'output-available' || part.state === 'output-error' || part.state === 'output-denied';

/** What the model reads for a denied call: the reason given, or the SDK's default. */
const denial = (part: Obj): string =>
  isObj(part.approval) && typeof part.approval.reason === 'string' ? part.approval.reason : 'Tool call execution denied.';

/** A message with string content and no parts. */
const isPlain = (m: Obj): boolean => !Array.isArray(m.parts) && typeof m.content === 'string';

/** A UIMessage: `parts` and no `content` (a ModelMessage has `content`). */
export const isUiMessage = (m: unknown): boolean => isObj(m) && Array.isArray(m.parts) && m.content === undefined;

function viewPart(part: unknown): ViewPart {
  if (!isObj(part)) return opaquePart('opaque', part);
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? textPart(part.text, part) : opaquePart('opaque', part);
    case 'reasoning':
      return opaquePart('reasoning', part, { text: part.text });
    case 'file':
      return opaquePart('image', part);
    default:
      if (isToolPart(part)) return opaquePart('tool-call', part, { toolName: toolName(part), input: part.input });
      return opaquePart(String(part.type), part, { ...part, providerMetadata: undefined });
  }
}

/** The text the model reads of a tool part's result. */
function resultText(part: Obj): string {
  if (part.state === 'output-denied') return denial(part);
  if (part.state === 'output-error') return typeof part.errorText === 'string' ? part.errorText : '';
  return typeof part.output === 'string' ? part.output : jsonText(part.output);
}

/** The tool part with the engine's text as its result (an error stays an error). */
function withResult(part: Obj, content: string | ViewPart[]): Obj {
  if (part.state === 'output-denied') return part; // its text is the approval's reason, not ours
  const text = typeof content === 'string' ? content : content.map((p) => p.text ?? '').join('\n');
  return part.state === 'output-error' ? { ...part, errorText: text } : { ...part, output: text };
}

/** The steps of an assistant message: runs of parts, a new one at each `step-start` after a part
 * the model reads (a message of UI-only parts is one step). */
function stepsOf(parts: readonly unknown[]): unknown[][] {
  let step: unknown[] = [];
  const steps: unknown[][] = [step];
  let read = false;
  for (const part of parts) {
    if (read && isObj(part) && part.type === 'step-start') {
      steps.push((step = []));
      read = false;
    }
    step.push(part);
    if (!isUiOnly(part)) read = true;
  }
  return steps;
}

/** The view parts of a message or step: the parts the model reads. */
const viewParts = (parts: readonly unknown[]): ViewPart[] => parts.filter((p) => !isUiOnly(p)).map(viewPart);

const textOf = (text: string): Obj => ({ type: 'text', text });
const withText = (part: Obj, text: string): Obj => ({ ...part, text });

/** The parts a view gives back: the engine's text parts rebuilt, the other parts the caller's,
 * and the UI-only parts where they were among them. */
function partsOf(out: ViewOut, original: readonly unknown[]): unknown[] {
  if (!out.changed) return [...original];
  if (typeof out.content === 'string') return [textOf(out.content)];
  const given = out.content;
  const parts: unknown[] = [];
  let next = 0;
  const take = (to: number) => {
    for (; next < to; next++) parts.push(...partsBack<Obj>(given.slice(next, next + 1), withText, textOf));
  };
  for (const part of original) {
    if (isUiOnly(part)) {
      parts.push(part);
      continue;
    }
    let at = next;
    while (at < given.length && given[at]?.[SOURCE] !== part) at++;
    if (at < given.length) take(at + 1); // else the engine left it out
  }
  take(given.length);
  return parts;
}

/** The AI SDK UIMessage adapter. */
export const aiSdkUiFormat: FormatAdapter<AiSdkUiMessage> = {
  name: 'ai-sdk-ui',

  split(message): ViewSpec[] {
    const role = String(message.role);
    // A plain string message (read the same in every format) is its own view.
    if (isPlain(message)) return [{ role, content: message.content as string }];
    const parts: unknown[] = Array.isArray(message.parts) ? message.parts : [];
    if (role !== 'assistant') return [{ role, content: viewParts(parts) }];
    const specs: ViewSpec[] = [];
    for (const step of stepsOf(parts)) {
      const spec: ViewSpec = { role, content: viewParts(step) };
      const tools = step.filter((p) => isToolPart(p) && !isUiOnly(p)) as Obj[];
      if (tools.length > 0) {
        spec.toolCalls = tools.map((part) => ({
          id: String(part.toolCallId),
          type: 'function',
          function: { name: toolName(part), arguments: jsonText(part.input ?? {}) },
        }));
      }
      specs.push(spec);
      for (const part of tools) {
        if (!hasResult(part)) continue;
        const id = String(part.toolCallId);
        // A denial is sized but never rewritten (its text lives in the approval).
        const content = part.state === 'output-denied' ? [opaquePart('denied', part, { text: denial(part) })] : resultText(part);
        specs.push({ role: 'tool', callId: id, key: id, content });
      }
    }
    return specs;
  },

  rebuild(message, outs) {
    if (isPlain(message)) {
      const out = outs[0];
      if (out === undefined) return undefined;
      return out.changed ? { ...message, content: out.content as string } : message;
    }
    const parts: unknown[] = Array.isArray(message.parts) ? message.parts : [];
    if (message.role !== 'assistant') {
      const out = outs[0];
      if (out === undefined) return undefined;
      return out.changed ? { ...message, parts: partsOf(out, parts) as Obj[] } : message;
    }
    let changed = false;
    const rebuilt: unknown[] = [];
    let k = 0;
    for (const step of stepsOf(parts)) {
      const out = outs[k++];
      // The results of this step's tool parts, by call id (a dropped result leaves the part as it
      // was: a call without its result would be a request no provider takes).
      const results = new Map<string, ViewOut | undefined>();
      for (const part of step.filter(isToolPart) as Obj[]) {
        if (hasResult(part)) results.set(String(part.toolCallId), outs[k++]);
      }
      if (out === undefined) {
        changed = true;
        continue;
      }
      if (out.changed) changed = true;
      for (const part of partsOf(out, step)) {
        const result = isToolPart(part) ? results.get(String((part as Obj).toolCallId)) : undefined;
        if (result?.changed) {
          changed = true;
          rebuilt.push(withResult(part as Obj, result.content));
        } else rebuilt.push(part);
      }
    }
    if (!changed) return message;
    // A message left with step-starts only carries nothing the model reads.
    if (!rebuilt.some((p) => !(isObj(p) && p.type === 'step-start'))) return undefined;
    return { ...message, parts: rebuilt as Obj[] };
  },

  lead(message) {
    // Only a stub (engine text replacing the whole message) is carried here, never a tool part:
    // as a user message it opens the conversation for every provider.
    return message.role === 'assistant' ? { ...message, role: 'user' } : message;
  },

  joinLead(led, next) {
    // One user message, the stub first: no provider sees two user messages in a row.
    if (led.role !== 'user' || next.role !== 'user') return undefined;
    return { ...next, parts: [...led.parts, ...next.parts] };
  },

  validate(messages) {
    return validateAiSdkUi(messages);
  },

  clearing: {
    kind(m) {
      const role = m.role;
      return role === 'user' || role === 'assistant' ? role : 'other';
    },
    calls(m) {
      if (m.role !== 'assistant' || !Array.isArray(m.parts)) return [];
      return (m.parts.filter(isToolPart) as Obj[]).map((p) => [String(p.toolCallId), toolName(p)]);
    },
    results(m) {
      // A tool part holds its result: the call and its result are in the same message.
      if (m.role !== 'assistant' || !Array.isArray(m.parts)) return [];
      return (m.parts.filter((p) => isToolPart(p) && hasResult(p as Obj)) as Obj[]).map((p) => [
        String(p.toolCallId),
        contentSize(resultText(p)),
      ]);
    },
    reasoning(m) {
      return m.role === 'assistant' && Array.isArray(m.parts) && m.parts.some(isReasoningPart);
    },
    edit(m, edit) {
      if (!Array.isArray(m.parts)) return m;
      const parts = m.parts.map((p) => {
        if (!isToolPart(p)) return p;
        const id = String(p.toolCallId);
        const text = hasResult(p) ? edit.results.get(id) : undefined;
        let next = text === undefined ? p : withResult(p, text);
        if (edit.inputs.has(id)) next = { ...next, input: {} };
        return next;
      });
      return { ...m, parts: edit.reasoning ? (withoutReasoning(parts) ?? parts) : parts };
    },
  } satisfies ClearingShape<AiSdkUiMessage>,
};

/** What `convertToModelMessages` and then the providers reject: roles, parts that are not an
 * array or hold no part, tool parts without a call id or with one used twice, results that do
 * not match their state. */
export function validateAiSdkUi(messages: readonly unknown[]): FormatProblem[] {
  const { problems, problem } = problemList();
  if (!Array.isArray(messages) || messages.length === 0) {
    problem('no-messages', -1, 'messages must be a non-empty array');
    return problems;
  }
  const seen = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) {
      problem('not-an-object', i, `messages[${i}] is not an object`);
      continue;
    }
    if (!['system', 'user', 'assistant'].includes(String(m.role))) problem('bad-role', i, `role ${String(m.role)}`);
    if (!Array.isArray(m.parts)) {
      problem('bad-content', i, 'parts must be an array');
      continue;
    }
    if (m.parts.length === 0) problem('empty-content', i, 'a message needs parts');
    for (const part of m.parts as unknown[]) {
      if (!isObj(part) || typeof part.type !== 'string') {
        problem('bad-part', i, 'a part is an object with a type');
        continue;
      }
      if (part.type === 'text' && typeof part.text !== 'string') problem('bad-part', i, 'a text part needs its text');
      if (!(part.type === 'dynamic-tool' || part.type.startsWith('tool-'))) continue;
      if (m.role !== 'assistant') problem('bad-part', i, `a ${String(m.role)} message holds a tool part`);
      if (typeof part.toolCallId !== 'string') {
        problem('bad-part', i, 'a tool part needs its toolCallId');
        continue;
      }
      const id = part.toolCallId;
      if (seen.has(id)) problem('duplicate-call-id', i, `tool call id ${id} is used twice`, id);
      seen.add(id);
      if (part.state === 'output-available' && !('output' in part)) {
        problem('bad-part', i, `tool part ${id} is output-available without an output`, id);
      }
      if (part.state === 'output-error' && typeof part.errorText !== 'string') {
        problem('bad-part', i, `tool part ${id} is output-error without an errorText`, id);
      }
    }
  }
  return problems;
}

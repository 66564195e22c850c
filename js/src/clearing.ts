// SPDX-License-Identifier: MIT
// `clearToolResults` and `clearReasoning` (issue 18 item 5): Anthropic's context-editing
// strategies (`clear_tool_uses_20250919`, `clear_thinking_20251015`) done on the caller's side,
// in every format, before the engine runs and without a budget.
//
// Clearing is a pass over the native messages: the results of all but the newest `keep` tool
// uses become a placeholder (and, with `clearInputs`, their calls' inputs an empty object), the
// reasoning of all but the newest `keep` assistant turns is dropped, whole blocks only (an
// Anthropic signature, a Responses `encrypted_content` is never edited). The engine then compresses
// the cleared conversation as usual, and the result's `verbatim` is rewritten to point at the
// caller's originals: a cleared message left as it is by the engine gets a `verbatim` entry of its
// own, so `uncompress` restores the input exactly. Each format describes its messages to the pass
// through a `ClearingShape` (the adapter's `clearing`, `chatClearing` for the engine's dialect).
import { CompressError } from './errors.js';
import type { CompressOptions, CompressResult, Message } from './types.js';

type Obj = Record<string, unknown>;

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** @internal What a clearing pass does, read and checked once. */
export interface Clearing {
  results?: { keep: number; exclude: Set<string>; placeholder?: string; inputs: boolean };
  reasoning?: { keep: number };
}

/** The edits of one message (see {@link ClearingShape}). */
export interface ClearingEdit {
  /** Ids of the results to replace, with their placeholder. */
  results: ReadonlyMap<string, string>;
  /** Ids of the calls whose input becomes `{}`. */
  inputs: ReadonlySet<string>;
  /** Drop the reasoning blocks (never all of a message's content). */
  reasoning: boolean;
}

/** How one format's messages look to the clearing pass of `clearToolResults` / `clearReasoning`. */
export interface ClearingShape<M> {
  /** `user` opens an assistant turn (a message of tool results only is `tool`). */
  kind(message: M): 'user' | 'assistant' | 'tool' | 'other';
  /** The tool calls a message makes: [id, tool name]. */
  calls(message: M): Array<[string, string]>;
  /** The tool results a message holds: [call id, size in UTF-16 units], in order. */
  results(message: M): Array<[string, number]>;
  /** Whether the message holds reasoning (or is a reasoning item). */
  reasoning(message: M): boolean;
  /** The message with `edit` applied (a new object), or undefined to drop it (a reasoning item). */
  edit(message: M, edit: ClearingEdit): M | undefined;
}

const RESULT_KEYS = new Set(['keep', 'excludeTools', 'placeholder', 'clearInputs']);
const REASONING_KEYS = new Set(['keep']);

function bad(api: string, path: string, text: string): CompressError {
  return new CompressError('InvalidInput', `${api}: options.${path} ${text}`, `/options/${path.replace(/\./g, '/')}`);
}

function readKeep(value: unknown, api: string, path: string, fallback: number, all: boolean): number {
  if (value === undefined) return fallback;
  if (all && value === 'all') return Infinity;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw bad(api, path, `must be a non-negative integer${all ? " or 'all'" : ''}`);
  }
  return value;
}

function checkKeys(value: Obj, keys: Set<string>, api: string, name: string): void {
  for (const key of Object.keys(value)) {
    if (!keys.has(key)) throw bad(api, `${name}.${key}`, `is not an option (${[...keys].join(', ')})`);
  }
}

/**
 * @internal The clearing options of `options`, checked, each field read once; undefined when
 * neither is given. Bad values and use under `compat: 'cce-1.0'` are InvalidInput.
 */
export function readClearing(options: object | undefined, api: string): Clearing | undefined {
  if (options == null) return undefined;
  const { clearToolResults: results, clearReasoning: reasoning, compat } = options as Obj;
  if (results == null && reasoning == null) return undefined;
  if (compat === 'cce-1.0') {
    const name = results != null ? 'clearToolResults' : 'clearReasoning';
    throw bad(api, name, "is not available under compat: 'cce-1.0'");
  }
  const clearing: Clearing = {};
  if (results != null) {
    if (!isObj(results)) throw bad(api, 'clearToolResults', 'must be an object');
    checkKeys(results, RESULT_KEYS, api, 'clearToolResults');
    const keep = readKeep(results.keep, api, 'clearToolResults.keep', 3, false);
    const exclude = results.excludeTools;
    if (exclude !== undefined && !(Array.isArray(exclude) && exclude.every((x) => typeof x === 'string'))) {
      throw bad(api, 'clearToolResults.excludeTools', 'must be an array of tool names');
    }
    const placeholder = results.placeholder;
    if (placeholder !== undefined && (typeof placeholder !== 'string' || placeholder.trim() === '')) {
      throw bad(api, 'clearToolResults.placeholder', 'must be a non-empty string');
    }
    const inputs = results.clearInputs;
    if (inputs !== undefined && typeof inputs !== 'boolean') {
      throw bad(api, 'clearToolResults.clearInputs', 'must be a boolean');
    }
    clearing.results = { keep, exclude: new Set(exclude as string[] | undefined), placeholder, inputs: inputs === true };
  }
  if (reasoning != null) {
    if (!isObj(reasoning)) throw bad(api, 'clearReasoning', 'must be an object');
    checkKeys(reasoning, REASONING_KEYS, api, 'clearReasoning');
    clearing.reasoning = { keep: readKeep(reasoning.keep, api, 'clearReasoning.keep', 1, true) };
  }
  return clearing;
}

/** @internal The options without the clearing ones (what the engine gets after the pass). */
export function withoutClearing<T extends object>(options: T): T {
  const { clearToolResults: _r, clearReasoning: _t, ...rest } = options as T & Obj;
  return rest as T;
}

/** The default placeholder: the engine's marker family, with the size of what it replaces. */
const defaultPlaceholder = (size: number) => `[cce:cleared tool result — ${size} chars]`;

/** @internal The cleared conversation, and for each of its messages the originals it stands for. */
export interface Cleared<M> {
  messages: M[];
  /** Per cleared message: [first, last] input index (a dropped reasoning item joins the next). */
  ranges: Array<[number, number]>;
  /** The cleared messages that are not the caller's objects. */
  changed: Set<M>;
}

/** @internal The clearing pass over `input`; the caller's objects are never changed. */
export function clearMessages<M>(shape: ClearingShape<M>, input: readonly M[], clearing: Clearing): Cleared<M> {
  const n = input.length;
  const whole = (): Cleared<M> => ({ messages: [...input], ranges: input.map((_, i) => [i, i]), changed: new Set() });
  // What is not an object is left to the engine or the adapter, which report it.
  if (!input.every((m) => typeof m === 'object' && m !== null)) return whole();
  const edits: Array<{ results: Map<string, string>; inputs: Set<string>; reasoning: boolean }> = [];
  for (let i = 0; i < n; i++) edits.push({ results: new Map(), inputs: new Set(), reasoning: false });
  const plan = clearing.results;
  if (plan) {
    const names = new Map<string, string>();
    const callAt = new Map<string, number>();
    const found: Array<[number, string, number]> = []; // message, call id, size
    input.forEach((m, i) => {
      for (const [id, name] of shape.calls(m)) {
        names.set(id, name);
        callAt.set(id, i);
      }
      for (const [id, size] of shape.results(m)) found.push([i, id, size]);
    });
    const candidates = found.filter(([, id]) => !plan.exclude.has(names.get(id) ?? ''));
    const placeholder = plan.placeholder === undefined ? defaultPlaceholder : () => plan.placeholder as string;
    for (const [i, id, size] of candidates.slice(0, Math.max(0, candidates.length - plan.keep))) {
      const text = placeholder(size);
      // A result no longer than its placeholder stays: clearing it would cost more.
      if (size <= text.length) continue;
      edits[i]!.results.set(id, text);
      const at = callAt.get(id);
      if (plan.inputs && at !== undefined) edits[at]!.inputs.add(id);
    }
  }
  const thinking = clearing.reasoning;
  if (thinking && thinking.keep !== Infinity) {
    // Turns: the assistant's messages between two user messages (a tool loop is one turn).
    const turnOf: number[] = [];
    let turn = 0;
    let lastTurnCalls = false;
    for (const m of input) {
      const kind = shape.kind(m);
      if (kind === 'user') {
        turn++;
        lastTurnCalls = false;
      }
      turnOf.push(turn);
      if (kind === 'assistant' && shape.calls(m).length > 0) lastTurnCalls = true;
    }
    const withReasoning: number[] = [];
    input.forEach((m, i) => {
      if (shape.kind(m) === 'assistant' && shape.reasoning(m) && withReasoning[withReasoning.length - 1] !== turnOf[i]) {
        withReasoning.push(turnOf[i] as number);
      }
    });
    const kept = new Set(withReasoning.slice(Math.max(0, withReasoning.length - thinking.keep)));
    // The API needs the reasoning of a turn whose tool use is still in progress.
    if (lastTurnCalls) kept.add(turn);
    input.forEach((m, i) => {
      if (shape.kind(m) === 'assistant' && shape.reasoning(m) && !kept.has(turnOf[i] as number)) edits[i]!.reasoning = true;
    });
  }
  const messages: M[] = [];
  const ranges: Array<[number, number]> = [];
  const changed = new Set<M>();
  let pending = -1; // the first of dropped items waiting for the next kept one
  for (let i = 0; i < n; i++) {
    const m = input[i] as M;
    const e = edits[i]!;
    const touched = e.results.size > 0 || e.inputs.size > 0 || e.reasoning;
    const out = touched ? shape.edit(m, e) : m;
    if (out === undefined) {
      if (pending < 0) pending = i;
      continue;
    }
    messages.push(out);
    ranges.push([pending < 0 ? i : pending, i]);
    if (out !== m || pending >= 0) changed.add(out);
    pending = -1;
  }
  if (pending >= 0) {
    // Dropped items at the end belong to the message before them (never all: reasoning alone is
    // not a conversation, so the pass keeps such an input whole).
    if (messages.length === 0) return whole();
    const last = messages.length - 1;
    (ranges[last] as [number, number])[1] = n - 1;
    changed.add(messages[last] as M);
  }
  return { messages, ranges, changed };
}

/**
 * @internal A provider-native result of the cleared conversation, pointed back at the caller's
 * messages: each `verbatim` original that is a cleared message becomes the originals it stands
 * for, and an output message that is a cleared message the engine left alone gets its own entry.
 */
export function nativeVerbatim<M>(
  input: readonly M[],
  cleared: Cleared<M>,
  messages: readonly M[],
  verbatim: Record<string, M>,
): Record<string, M> {
  const rangeOf = new Map<M, [number, number]>();
  cleared.messages.forEach((m, k) => {
    if (cleared.changed.has(m)) rangeOf.set(m, cleared.ranges[k] as [number, number]);
  });
  if (rangeOf.size === 0) return verbatim;
  const has = (key: string) => Object.prototype.hasOwnProperty.call(verbatim, key);
  const out: Record<string, M> = {};
  for (let k = 0; k < messages.length; k++) {
    const stands: M[] = [];
    if (has(String(k))) {
      stands.push(verbatim[String(k)] as M);
      for (let s = 1; has(`${k}.${s}`); s++) stands.push(verbatim[`${k}.${s}`] as M);
    } else if (rangeOf.has(messages[k] as M)) {
      stands.push(messages[k] as M);
    } else continue;
    const originals: M[] = [];
    for (const m of stands) {
      const range = rangeOf.get(m);
      if (range === undefined) originals.push(m);
      else for (let i = range[0]; i <= range[1]; i++) originals.push(input[i] as M);
    }
    originals.forEach((m, s) => {
      out[s === 0 ? String(k) : `${k}.${s}`] = m;
    });
  }
  return out;
}

/**
 * @internal The engine-dialect result of the cleared conversation (messages with ids, cleared one
 * for one), pointed back at the caller's messages: `verbatim` entries holding a cleared message
 * hold its original, and a cleared message the engine left alone gets `_cce_original` provenance
 * and its entry, as the engine writes for a message it replaces on its own.
 */
export function dialectResult(
  input: readonly Message[],
  cleared: Cleared<Message>,
  result: CompressResult,
  version: number,
): CompressResult {
  if (cleared.changed.size === 0) return result;
  const originalOf = new Map<Message, Message>();
  const byId = new Map<unknown, Message>();
  cleared.messages.forEach((m, k) => {
    if (!cleared.changed.has(m)) return;
    const original = input[k] as Message;
    originalOf.set(m, original);
    byId.set(m.id, m);
  });
  const verbatim: Record<string, Message> = {};
  for (const key of Object.keys(result.verbatim)) {
    const value = result.verbatim[key] as Message;
    verbatim[key] = originalOf.get(value) ?? value;
  }
  const messages = result.messages.map((m) => {
    const clearedMessage = byId.get(m.id);
    if (clearedMessage === undefined || (isObj(m.metadata) && m.metadata._cce_original)) return m;
    // The engine's own copy of an unchanged message shares its content.
    if (m !== clearedMessage && m.content !== clearedMessage.content) return m;
    verbatim[String(m.id)] = originalOf.get(clearedMessage) as Message;
    const provenance = { ids: [m.id], summary_id: `cce_clear_${String(m.id)}`, version };
    return { ...m, metadata: { ...(isObj(m.metadata) ? m.metadata : {}), _cce_original: provenance } };
  });
  return { ...result, messages, verbatim };
}

/**
 * @internal `compress` of the engine's dialect with clearing: the pass, then `run` (the engine's
 * compress) on the cleared messages, then the result pointed back at the caller's messages.
 */
export function clearThenCompress<R extends CompressResult | Promise<CompressResult>>(
  messages: Message[],
  options: CompressOptions,
  clearing: Clearing,
  run: (messages: Message[], options: CompressOptions) => R,
): R {
  const rest = withoutClearing(options);
  if (!Array.isArray(messages)) return run(messages, rest); // the engine reports it
  const cleared = clearOrReport(chatClearing as unknown as ClearingShape<Message>, messages, clearing, 'compress()');
  const version = typeof options.sourceVersion === 'number' ? options.sourceVersion : 0;
  const result = run(cleared.messages, rest);
  return (
    result instanceof Promise
      ? result.then((r) => dialectResult(messages, cleared, r, version))
      : dialectResult(messages, cleared, result as CompressResult, version)
  ) as R;
}

/** @internal The clearing pass; a getter or Proxy trap of the caller's that throws is InvalidInput. */
export function clearOrReport<M>(shape: ClearingShape<M>, input: readonly M[], clearing: Clearing, api: string): Cleared<M> {
  try {
    return clearMessages(shape, input, clearing);
  } catch (error) {
    if (error instanceof CompressError) throw error;
    const text = error instanceof Error ? error.message : String(error);
    throw new CompressError('InvalidInput', `${api}: reading the messages to clear threw: ${text}`, '/messages', { cause: error });
  }
}

// ---- the shape of OpenAI Chat messages (the engine's dialect, the openai-chat format) ---------

const REASONING_PARTS = new Set(['thinking', 'redacted_thinking', 'reasoning', 'reasoning-file']);

/** @internal Whether a content part is a reasoning block (Anthropic thinking, AI SDK reasoning). */
export const isReasoningPart = (part: unknown): boolean => isObj(part) && REASONING_PARTS.has(part.type as string);

/** @internal The size of a result's content: its text, or its JSON text for other values. */
export function contentSize(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (Array.isArray(content)) {
    let n = 0;
    for (const part of content) n += isObj(part) && typeof part.text === 'string' ? part.text.length : jsonLength(part);
    return n;
  }
  return jsonLength(content);
}

function jsonLength(value: unknown): number {
  try {
    return (JSON.stringify(value) ?? '').length;
  } catch {
    return 0;
  }
}

/** @internal Content without its reasoning parts, or undefined when nothing else would be left. */
export function withoutReasoning<P>(content: readonly P[]): P[] | undefined {
  const rest = content.filter((part) => !isReasoningPart(part));
  return rest.length > 0 ? rest : undefined;
}

/** @internal OpenAI Chat messages: `tool_calls`, `tool` messages, reasoning content parts. */
export const chatClearing: ClearingShape<Obj> = {
  kind(m) {
    const role = m.role;
    if (role === 'user') return 'user';
    if (role === 'assistant') return 'assistant';
    return role === 'tool' ? 'tool' : 'other';
  },
  calls(m) {
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) return [];
    const calls: Array<[string, string]> = [];
    for (const call of m.tool_calls) {
      if (isObj(call) && isObj(call.function)) calls.push([String(call.id), String(call.function.name)]);
    }
    return calls;
  },
  results(m) {
    return m.role === 'tool' && typeof m.tool_call_id === 'string' ? [[m.tool_call_id, contentSize(m.content)]] : [];
  },
  reasoning(m) {
    return Array.isArray(m.content) && m.content.some(isReasoningPart);
  },
  edit(m, edit) {
    const out: Obj = { ...m };
    const text = typeof m.tool_call_id === 'string' ? edit.results.get(m.tool_call_id) : undefined;
    if (text !== undefined) out.content = text;
    if (edit.inputs.size > 0 && Array.isArray(m.tool_calls)) {
      out.tool_calls = m.tool_calls.map((call) =>
        isObj(call) && isObj(call.function) && edit.inputs.has(String(call.id))
          ? { ...call, function: { ...call.function, arguments: '{}' } }
          : call,
      );
    }
    if (edit.reasoning && Array.isArray(m.content)) out.content = withoutReasoning(m.content) ?? m.content;
    return out;
  },
};

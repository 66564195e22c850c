// SPDX-License-Identifier: MIT
// foldToolChains / unfoldToolChains of cce-wasm/context, done here rather than in the session
// module: they only move JSON values and text around, which JavaScript does natively, and they
// were 3.6 KB gzip of cce-context.wasm (docs/boundary.md "Session module size"). The folded form
// is documented in src/context/tool_groups.h, whose C++ twin the native tests and cce-session.wasm
// keep; js/test/context-fold.test.mjs checks that both give the same messages.
import { CompressError } from './errors.js';
import { jsonTextOf } from './session-load.js';

type Obj = Record<string, unknown>;

const DETAILS_OPEN = '<details type="tool_calls"';
const SUMMARY_LINE = '<summary>Tool Executed</summary>';
const DETAILS_CLOSE = '</details>';
/** The session module's JSON reader refuses deeper nesting (src/json_io.h kMaxJsonDepth). */
const MAX_JSON_DEPTH = 512;

const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringField = (o: Obj, key: string): string | undefined =>
  typeof o[key] === 'string' ? (o[key] as string) : undefined;
const isRole = (m: Obj, role: string): boolean => m.role === role;
const hasToolCalls = (m: Obj): boolean => Array.isArray(m.tool_calls) && m.tool_calls.length > 0;
const isAssistantWithCalls = (m: Obj): boolean => isRole(m, 'assistant') && hasToolCalls(m);

/** A copy of a JSON value (objects and arrays copied; an own "__proto__" kept as a property). */
function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: Obj = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: copy((value as Obj)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * @internal The messages of a fold / unfold request as the session module read them: the JSON of
 * `{op, messages}` (so its errors, including its nesting limit, with the same texts and paths),
 * each element an object.
 */
export function requestMessages(op: 'fold' | 'unfold', messages: unknown, caller: string): Obj[] {
  const text = jsonTextOf({ op, messages }, caller) as string;
  checkNesting(text);
  const list = (JSON.parse(text) as { messages?: unknown }).messages;
  if (!Array.isArray(list)) {
    throw new CompressError('InvalidInput', `${op}(): messages must be an array`, '/messages');
  }
  list.forEach((m, i) => {
    if (!isObject(m)) {
      throw new CompressError(
        'InvalidInput',
        `${op}(): messages[${i}] must be an object`,
        `/messages/${i}`,
      );
    }
  });
  return list as Obj[];
}

/** InputTooLarge at the first container nested deeper than the module's reader allows. */
function checkNesting(text: string): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string (JSON.stringify escapes every quote and backslash inside it).
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) {
        const offset = new TextEncoder().encode(text.slice(0, i)).length;
        throw new CompressError(
          'InputTooLarge',
          `JSON nesting is deeper than the limit of ${MAX_JSON_DEPTH} levels (at byte offset ${offset})`,
          '',
        );
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
const unescapeHtml = (text: string): string =>
  text.replace(/&(amp|lt|gt|quot);/g, (_, name: string) =>
    name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : '"',
  );

/** The call's `function` object, when the call and it are objects. */
function callFunction(call: unknown): Obj | undefined {
  if (!isObject(call)) return undefined;
  const fn = call.function;
  return isObject(fn) ? fn : undefined;
}
const callId = (call: unknown): string | undefined =>
  isObject(call) ? stringField(call, 'id') : undefined;
const callName = (call: unknown): string => {
  const fn = callFunction(call);
  return (fn && stringField(fn, 'name')) ?? '';
};
/** Arguments as text: OpenAI sends a JSON string; anything else is written as its JSON. */
function callArguments(call: unknown): string {
  const fn = callFunction(call);
  if (fn === undefined || !has(fn, 'arguments') || fn.arguments === null) return '';
  return typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments);
}

/** [start, end) is a maximal a(calls) t.. [a(calls) t..].. [a] run. */
function chainEnd(m: readonly Obj[], start: number): number {
  let j = start;
  while (j < m.length && isAssistantWithCalls(m[j] as Obj)) {
    ++j;
    while (j < m.length && isRole(m[j] as Obj, 'tool')) ++j;
  }
  if (j < m.length && isRole(m[j] as Obj, 'assistant') && !hasToolCalls(m[j] as Obj)) ++j;
  return j;
}

const blockHead = (done: boolean, id: string, name: string, args: string): string =>
  `${DETAILS_OPEN} done="${done}" id="${escapeHtml(id)}" name="${escapeHtml(name)}" ` +
  `arguments="${escapeHtml(args)}">\n${SUMMARY_LINE}`;

/** One chain as one folded assistant message; `m` is the caller's JSON copy (its own objects). */
function foldChain(m: readonly Obj[], start: number, end: number): Obj {
  let text = '';
  let first = true;
  const append = (piece: string): number => {
    if (!first) text += '\n';
    first = false;
    const at = text.length;
    text += piece;
    return at;
  };
  const skeletons = m.slice(start, end);
  const parts: Array<[number, number] | null> = skeletons.map(() => null);
  const assistantText = (k: number): void => {
    const content = (m[k] as Obj).content;
    if (typeof content !== 'string') return; // the part stays null: the skeleton keeps it
    const at = content.length === 0 ? 0 : append(content);
    parts[k - start] = [at, content.length];
    (skeletons[k - start] as Obj).content = null;
  };

  let k = start;
  while (k < end) {
    assistantText(k);
    const message = m[k] as Obj;
    if (!isAssistantWithCalls(message)) {
      k++;
      continue;
    }
    const calls = message.tool_calls as unknown[];
    const answered = calls.map(() => false);
    let j = k + 1;
    for (let position = 0; j < end && isRole(m[j] as Obj, 'tool'); j++, position++) {
      const tool = m[j] as Obj;
      const toolCallId = stringField(tool, 'tool_call_id');
      let call: unknown;
      let found = false;
      if (toolCallId !== undefined) {
        const c = calls.findIndex((candidate) => callId(candidate) === toolCallId);
        if (c >= 0) {
          call = calls[c];
          answered[c] = found = true;
        }
      } else if (position < calls.length) {
        call = calls[position];
        answered[position] = found = true;
      }
      const id = toolCallId ?? (found ? callId(call) : undefined) ?? '';
      let block = `${blockHead(true, id, found ? callName(call) : '', found ? callArguments(call) : '')}\n`;
      const stringContent = typeof tool.content === 'string';
      const body = stringContent
        ? escapeHtml(tool.content as string)
        : has(tool, 'content')
          ? escapeHtml(JSON.stringify(tool.content))
          : '';
      const bodyAt = block.length;
      block += `${body}\n${DETAILS_CLOSE}`;
      const at = append(block);
      if (stringContent) {
        parts[j - start] = [at + bodyAt, body.length];
        (skeletons[j - start] as Obj).content = null;
      }
    }
    calls.forEach((call, c) => {
      if (!answered[c]) {
        append(`${blockHead(false, callId(call) ?? '', callName(call), callArguments(call))}\n${DETAILS_CLOSE}`);
      }
    });
    k = j;
  }

  const out: Obj = {};
  const head = m[start] as Obj;
  if (has(head, 'id')) out.id = copy(head.id); // the skeleton keeps its own
  out.role = 'assistant';
  out.content = text;
  out.metadata = { cce_fold: { messages: skeletons, parts, length: text.length } };
  return out;
}

/** @internal Folds the chains of `messages` (the request's own copies, which the result takes
 * over). */
export function foldChains(messages: readonly Obj[]): Obj[] {
  const out: Obj[] = [];
  for (let i = 0; i < messages.length; ) {
    if (!isAssistantWithCalls(messages[i] as Obj)) {
      out.push(messages[i++] as Obj);
      continue;
    }
    const end = chainEnd(messages, i);
    out.push(foldChain(messages, i, end));
    i = end;
  }
  return out;
}

function isFolded(m: Obj): boolean {
  if (isObject(m.metadata) && has(m.metadata, 'cce_fold')) return true;
  const content = stringField(m, 'content');
  return isRole(m, 'assistant') && content !== undefined && content.includes(DETAILS_OPEN);
}

const wholeNumber = (v: unknown, limit: number): v is number =>
  typeof v === 'number' && v >= 0 && v <= limit && Math.floor(v) === v;

/** The originals from metadata.cce_fold; undefined when it is missing or does not match. */
function unfoldExact(folded: Obj): Obj[] | undefined {
  const fold = isObject(folded.metadata) ? folded.metadata.cce_fold : undefined;
  const content = stringField(folded, 'content');
  if (!isObject(fold) || content === undefined) return undefined;
  const { messages: skeletons, parts, length } = fold;
  const size = content.length;
  if (
    !Array.isArray(skeletons) ||
    !Array.isArray(parts) ||
    parts.length !== skeletons.length ||
    length !== size
  ) {
    return undefined;
  }
  const restored: Obj[] = [];
  for (let k = 0; k < skeletons.length; k++) {
    const skeleton: unknown = skeletons[k];
    const part: unknown = parts[k];
    if (!isObject(skeleton)) return undefined;
    // A copy: an unfolding that fails further on must leave the folded message as it was.
    const message = copy(skeleton) as Obj;
    restored.push(message);
    if (part === null) continue;
    if (
      !Array.isArray(part) ||
      part.length !== 2 ||
      !wholeNumber(part[0], size) ||
      !wholeNumber(part[1], size) ||
      part[0] + part[1] > size
    ) {
      return undefined;
    }
    const slice = content.slice(part[0], part[0] + part[1]);
    message.content = isRole(skeleton, 'tool') ? unescapeHtml(slice) : slice;
  }
  return restored;
}

interface Block {
  done: boolean;
  id: string;
  name: string;
  arguments: string;
  result: string;
}

/** Parses the block at `at` (where DETAILS_OPEN starts); its end, or -1. */
function parseBlock(s: string, at: number, block: Block): number {
  let p = at + DETAILS_OPEN.length;
  const attribute = (key: string): string | undefined => {
    while (p < s.length && s[p] === ' ') p++;
    if (!s.startsWith(`${key}="`, p)) return undefined;
    const begin = p + key.length + 2;
    const close = s.indexOf('"', begin);
    if (close < 0) return undefined;
    p = close + 1;
    return unescapeHtml(s.slice(begin, close));
  };
  const done = attribute('done');
  const id = done === undefined ? undefined : attribute('id');
  const name = id === undefined ? undefined : attribute('name');
  const args = name === undefined ? undefined : attribute('arguments');
  if (args === undefined) return -1;
  Object.assign(block, { done: done === 'true', id, name, arguments: args });
  const head = `>\n${SUMMARY_LINE}\n`;
  if (!s.startsWith(head, p)) return -1;
  p += head.length;
  if (block.done) {
    const close = s.indexOf(`\n${DETAILS_CLOSE}`, p);
    if (close < 0) return -1;
    block.result = unescapeHtml(s.slice(p, close));
    return close + 1 + DETAILS_CLOSE.length;
  }
  return s.startsWith(DETAILS_CLOSE, p) ? p + DETAILS_CLOSE.length : -1;
}

/** Canonical messages rebuilt from the folded text alone. */
function unfoldParsed(s: string, out: Obj[]): void {
  const items: Array<string | Block> = [];
  const pushText = (t: string): void => {
    if (t.startsWith('\n')) t = t.slice(1);
    if (t.endsWith('\n')) t = t.slice(0, -1);
    if (t.length > 0) items.push(t);
  };
  for (let p = 0; ; ) {
    const at = s.indexOf(DETAILS_OPEN, p);
    const block: Block = { done: false, id: '', name: '', arguments: '', result: '' };
    const end = at < 0 ? -1 : parseBlock(s, at, block);
    if (end < 0) {
      pushText(s.slice(p));
      break;
    }
    pushText(s.slice(p, at));
    items.push(block);
    p = end;
  }
  for (let i = 0; i < items.length; ) {
    const assistant: Obj = { role: 'assistant' };
    const item = items[i];
    if (typeof item === 'string') {
      assistant.content = item;
      i++;
      if (i >= items.length || typeof items[i] === 'string') {
        out.push(assistant);
        continue;
      }
    } else {
      assistant.content = null;
    }
    const calls: Obj[] = [];
    const results: Obj[] = [];
    const seen = new Set<string>();
    for (; i < items.length && typeof items[i] !== 'string'; i++) {
      const b = items[i] as Block;
      if (!seen.has(b.id)) {
        seen.add(b.id);
        calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: b.arguments } });
      }
      if (b.done) results.push({ role: 'tool', tool_call_id: b.id, content: b.result });
    }
    assistant.tool_calls = calls;
    out.push(assistant, ...results);
  }
}

/** @internal The inverse of foldChains; other messages pass through. */
export function unfoldChains(messages: readonly Obj[]): Obj[] {
  const out: Obj[] = [];
  for (const m of messages) {
    if (!isFolded(m)) {
      out.push(m);
      continue;
    }
    const exact = unfoldExact(m);
    if (exact !== undefined) {
      out.push(...exact);
    } else if (typeof m.content === 'string') {
      unfoldParsed(m.content, out);
    } else {
      out.push(m);
    }
  }
  return out;
}

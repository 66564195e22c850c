// SPDX-License-Identifier: MIT
// OpenAI and Anthropic message arrays <-> compaction's conversation documents (fromOpenAI,
// toAnthropic...). The JS layer does this, as it does compress's provider formats
// (format-*.ts), so that cce-compaction.wasm carries only the compaction engine (issue 20 item 5:
// 6.3 KB gzip less wasm for 3.2 KB of minified JS; docs/boundary.md, Session module size).
//
// Events: OpenAI messages give system (system/developer), user, reasoning (`reasoning_content` or
// a string `reasoning`), assistant, one toolRequest per `tool_calls` item and toolResponse (role
// tool). Anthropic messages give one event per content block: text (user or assistant by role),
// thinking and redacted_thinking (reasoning), tool_use (toolRequest), tool_result (toolResponse,
// ok = !is_error) and anything else (images, documents, server tools) as an opaque "other" event;
// a top-level `system` becomes a system event in turn 0. A new turn starts at a user event (or a
// user-role opaque part) that follows an assistant-side event or a tool response, so tool results
// never open a turn and leading system messages belong to turn 0.
//
// Round trip: everything the events do not carry is kept in the document's "source" member (the
// message with its payload keys set to null, and which keys were moved out) and in each event's
// "source" ({"message": index, "block": the item or block with its payload set to null}). The
// same-format conversion rebuilds each message from that record and from its surviving events, so
// toOpenAI(fromOpenAI(m)) and toAnthropic(fromAnthropic(m)) reproduce m exactly
// (JSON.stringify-equal), and a projection converts back into the caller's format with unchanged
// messages byte-identical. Events without a usable record (synthetic summary events, native
// events, events from the other provider) get a standard rendering; opaque "other" parts only
// survive in their own format. Messages whose events were all removed are dropped; a message that
// lost only some (omitted tool calls) drops those keys (an empty `tool_calls` is removed).
//
// Provider notes: reasoning without a signature cannot be sent to Anthropic and is dropped there;
// to OpenAI, reasoning goes into `reasoning_content`. Consecutive same-role messages are not
// merged (Anthropic merges consecutive user turns itself).
//
// Every function works on JSON values as JSON.parse makes them (the callers hand it a JSON copy of
// the caller's input, as the engine's requests were), and answers values that share nothing with
// its input: a value taken from a record or an event is copied, as the engine's answer was fresh.

import { CompressError } from './errors.js';

/** A JSON value as JSON.parse makes it. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}
type EventType = 'user' | 'assistant' | 'reasoning' | 'toolRequest' | 'toolResponse' | 'system' | 'other';
/** An event of a validated conversation: its type is one of EventType. */
type Event = JsonObject & { type: EventType };

const own = Object.prototype.hasOwnProperty;

function isObject(v: Json | undefined): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A member of `v` when `v` is an object that has it (a JSON key such as "__proto__" included). */
function get(v: Json | undefined, key: string): Json | undefined {
  return isObject(v) && own.call(v, key) ? v[key] : undefined;
}

function stringMember(v: Json | undefined, key: string): string | undefined {
  const s = get(v, key);
  return typeof s === 'string' ? s : undefined;
}

/** JavaScript assignment `object[key] = value` for any JSON key: in place, or appended. */
function set(object: JsonObject, key: string, value: Json): void {
  if (own.call(object, key)) object[key] = value;
  else Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

function erase(object: JsonObject, key: string): void {
  if (own.call(object, key)) delete object[key];
}

function copy<T extends Json>(v: T): T {
  return v === null || typeof v !== 'object' ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function isContent(v: Json | undefined): boolean {
  return typeof v === 'string' || Array.isArray(v);
}

function invalid(message: string, path: string): CompressError {
  return new CompressError('InvalidInput', message, path);
}

/** The text of a `content` value: a string, or the text parts of an array (strings, or objects
 * with a string "text"), joined with "\n". Other values have no text. */
function contentText(content: Json | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    const text = typeof part === 'string' ? part : stringMember(part, 'text');
    if (text !== undefined) texts.push(text);
  }
  return texts.join('\n');
}

// ---- provider messages -> conversation --------------------------------------------------------

// Moves `key` out of a message or block template: the event takes the value, the template keeps
// a null placeholder so that the key's position survives.
function moveOut(template: JsonObject, key: string, moved: Json[]): void {
  set(template, key, null);
  moved.push(key);
}

// Appends events, opening a new turn at a user event (or user-role opaque part, e.g. an image)
// that follows a response-side event.
class TurnBuilder {
  readonly turns: JsonObject[] = [];
  count = 0;
  private sawResponse = false;

  add(type: EventType, event: JsonObject): void {
    const role = stringMember(event, 'role');
    const userPart = type === 'user' || (type === 'other' && role === 'user');
    if (this.turns.length === 0 || (userPart && this.sawResponse)) {
      this.turns.push({ events: [] });
      this.sawResponse = false;
    }
    const response =
      type === 'other'
        ? role === 'assistant'
        : type === 'assistant' || type === 'reasoning' || type === 'toolRequest' || type === 'toolResponse';
    this.sawResponse = this.sawResponse || response;
    (this.turns[this.turns.length - 1]!.events as Json[]).push(event);
    this.count++;
  }
}

function sourceOf(message: number, block?: Json): JsonObject {
  return block === undefined ? { message } : { message, block };
}

function document(turns: TurnBuilder, format: string, records: Json[]): JsonObject {
  return { turns: turns.turns, compactions: [], source: { format, messages: records } };
}

function record(template: JsonObject, moved: Json[], stringContent: boolean): JsonObject {
  const r: JsonObject = { template, moved };
  if (stringContent) r.string = true;
  return r;
}

function messagesArray(messages: Json | undefined, path: string): Json[] {
  if (messages === undefined) throw invalid('messages is required', path);
  if (!Array.isArray(messages)) throw invalid('messages must be an array', path);
  return messages;
}

/** OpenAI Chat Completions `messages` (a JSON copy) -> conversation document. */
export function conversationFromOpenAI(given: Json | undefined, path = '/messages'): JsonObject {
  const messages = messagesArray(given, path);
  const turns = new TurnBuilder();
  const records: Json[] = [];
  messages.forEach((m, k) => {
    if (!isObject(m)) throw invalid('a message must be an object', `${path}/${k}`);
    const template = copy(m);
    const moved: Json[] = [];
    const before = turns.count;
    const role = stringMember(m, 'role');
    const contentEvent = (type: EventType): void => {
      const content = get(m, 'content');
      if (!isContent(content)) return;
      moveOut(template, 'content', moved);
      turns.add(type, { type, content: content!, source: sourceOf(k) });
    };
    if (role === 'system' || role === 'developer') {
      contentEvent('system');
    } else if (role === 'user') {
      contentEvent('user');
    } else if (role === 'assistant') {
      for (const key of ['reasoning_content', 'reasoning']) {
        const text = stringMember(m, key);
        if (text === undefined) continue;
        moveOut(template, key, moved);
        turns.add('reasoning', { type: 'reasoning', content: text, source: sourceOf(k) });
        break;
      }
      contentEvent('assistant');
      const calls = get(m, 'tool_calls');
      if (Array.isArray(calls) && calls.length > 0) {
        moveOut(template, 'tool_calls', moved);
        for (const item of calls) {
          const fn = get(item, 'function');
          const name = stringMember(fn, 'name');
          if (name === undefined) {
            turns.add('other', { type: 'other', role: 'assistant', source: sourceOf(k, item) });
            continue;
          }
          const e: JsonObject = { type: 'toolRequest' };
          const id = stringMember(item, 'id');
          if (id !== undefined) e.id = id;
          e.name = name;
          const block = copy(item);
          const args = get(fn, 'arguments');
          if (args !== undefined) {
            e.arguments = args;
            set(get(block, 'function') as JsonObject, 'arguments', null);
          }
          e.source = sourceOf(k, block);
          turns.add('toolRequest', e);
        }
      }
    } else if (role === 'tool') {
      const e: JsonObject = { type: 'toolResponse' };
      const id = stringMember(m, 'tool_call_id');
      if (id !== undefined) e.id = id;
      const name = stringMember(m, 'name');
      if (name !== undefined) e.name = name;
      e.ok = true;
      const content = get(m, 'content');
      if (isContent(content)) {
        e.content = content!;
        moveOut(template, 'content', moved);
      }
      e.source = sourceOf(k);
      turns.add('toolResponse', e);
    }
    if (turns.count === before) {
      // Nothing to compact in this message (unknown role, or no content): keep its place.
      const e: JsonObject = { type: 'other' };
      if (role !== undefined) e.role = role;
      e.source = sourceOf(k);
      turns.add('other', e);
    }
    records.push(record(template, moved, false));
  });
  return document(turns, 'openai', records);
}

/** Anthropic Messages `messages` and the top-level `system` (JSON copies) -> conversation. */
export function conversationFromAnthropic(
  given: Json | undefined,
  system: Json | undefined,
  path = '/messages',
): JsonObject {
  const messages = messagesArray(given, path);
  const turns = new TurnBuilder();
  if (system !== undefined && system !== null) {
    if (!isContent(system)) throw invalid('system must be a string or an array', '/system');
    turns.add('system', { type: 'system', content: system, source: { system: true } });
  }
  const records: Json[] = [];
  messages.forEach((m, k) => {
    if (!isObject(m)) throw invalid('a message must be an object', `${path}/${k}`);
    const assistant = stringMember(m, 'role') === 'assistant';
    const textType: EventType = assistant ? 'assistant' : 'user';
    const template = copy(m);
    const moved: Json[] = [];
    const before = turns.count;
    const content = get(m, 'content');
    const stringContent = typeof content === 'string';
    if (stringContent) {
      moveOut(template, 'content', moved);
      turns.add(textType, { type: textType, content, source: sourceOf(k) });
    } else if (Array.isArray(content)) {
      moveOut(template, 'content', moved);
      for (const block of content) {
        const t = stringMember(block, 'type') ?? '';
        const blockTemplate = copy(block);
        let type: EventType = 'other';
        const e: JsonObject = {};
        const payload = (key: string, as: string): void => {
          const v = get(block, key);
          if (v === undefined) return;
          e[as] = v;
          set(blockTemplate as JsonObject, key, null);
        };
        if (t === 'text' && stringMember(block, 'text') !== undefined) {
          e.type = type = textType;
          payload('text', 'content');
        } else if (t === 'thinking' && stringMember(block, 'thinking') !== undefined) {
          e.type = type = 'reasoning';
          payload('thinking', 'content');
        } else if (t === 'redacted_thinking') {
          e.type = type = 'reasoning';
        } else if (t === 'tool_use' && stringMember(block, 'name') !== undefined) {
          e.type = type = 'toolRequest';
          const id = stringMember(block, 'id');
          if (id !== undefined) e.id = id;
          e.name = stringMember(block, 'name')!;
          payload('input', 'arguments');
        } else if (t === 'tool_result') {
          e.type = type = 'toolResponse';
          const id = stringMember(block, 'tool_use_id');
          if (id !== undefined) e.id = id;
          e.ok = !get(block, 'is_error');
          if (isContent(get(block, 'content'))) payload('content', 'content');
        } else {
          e.type = type;
          e.role = assistant ? 'assistant' : 'user';
        }
        e.source = sourceOf(k, blockTemplate);
        turns.add(type, e);
      }
    }
    if (turns.count === before) {
      turns.add('other', { type: 'other', role: assistant ? 'assistant' : 'user', source: sourceOf(k) });
    }
    records.push(record(template, moved, stringContent));
  });
  return document(turns, 'anthropic', records);
}

// ---- conversation -> provider messages --------------------------------------------------------

/** The events of a validated conversation or view, in stream order. */
function eventsOf(document: JsonObject): Event[] {
  const events: Event[] = [];
  for (const turn of document.turns as JsonObject[]) events.push(...(turn.events as Event[]));
  return events;
}

// The records of `source` when it was written by the `format` converter.
function recordsFor(source: Json | undefined, format: string): Json[] | undefined {
  const records = get(source, 'messages');
  return stringMember(source, 'format') === format && Array.isArray(records) ? records : undefined;
}

// The message index an event was converted from, when its record is usable.
function messageIndex(e: Event, records: Json[] | undefined): number | undefined {
  if (records === undefined) return undefined;
  const m = get(get(e, 'source'), 'message');
  if (typeof m !== 'number' || m < 0 || !Number.isInteger(m) || m >= records.length) return undefined;
  return isObject(get(records[m], 'template')) ? m : undefined;
}

function blockOf(e: Event): JsonObject | undefined {
  const b = get(get(e, 'source'), 'block');
  return isObject(b) ? b : undefined;
}

// Content for a standard rendering: arrays from another provider's format are reduced to text.
function renderedContent(e: Event): Json {
  const c = get(e, 'content');
  if (c === undefined || c === null) return '';
  if (Array.isArray(c) && own.call(e, 'source')) return contentText(c);
  return copy(c);
}

function argumentsText(args: Json | undefined): string {
  if (args === undefined) return '{}';
  return typeof args === 'string' ? args : JSON.stringify(args);
}

function argumentsObject(args: Json | undefined): JsonObject {
  if (isObject(args)) return copy(args);
  if (typeof args === 'string') {
    try {
      const parsed = JSON.parse(args) as Json;
      if (isObject(parsed)) return parsed;
    } catch {
      // not JSON: no input object
    }
  }
  return {};
}

function isUserSide(e: Event): boolean {
  if (e.type === 'user' || e.type === 'toolResponse') return true;
  return e.type === 'other' && stringMember(e, 'role') !== 'assistant';
}

// Consecutive events that belong to one output message: the events of one record, or a standard
// rendering.
interface Group {
  kind: 'none' | 'record' | 'standard';
  message: number;
  userSide: boolean;
  events: Event[];
}

function emptyGroup(): Group {
  return { kind: 'none', message: 0, userSide: false, events: [] };
}

function firstOf(g: Group, types: readonly EventType[]): Event | undefined {
  return g.events.find((e) => types.includes(e.type));
}

// `withRecord`: the event's block template is an OpenAI tool call item (same-format rebuild).
function openAiToolCall(e: Event, withRecord: boolean): Json {
  const block = withRecord ? blockOf(e) : undefined;
  if (block !== undefined) {
    const item = copy(block);
    const fn = get(item, 'function');
    const args = get(e, 'arguments');
    if (e.type === 'toolRequest' && isObject(fn) && args !== undefined && own.call(fn, 'arguments')) {
      set(fn, 'arguments', copy(args));
    }
    return item;
  }
  return {
    id: stringMember(e, 'id') ?? '',
    type: 'function',
    function: { name: e.name as string, arguments: argumentsText(get(e, 'arguments')) },
  };
}

function openAiFromRecord(g: Group, rec: Json): JsonObject {
  const msg = copy(get(rec, 'template') as JsonObject);
  const moved = get(rec, 'moved');
  if (!Array.isArray(moved)) return msg;
  for (const key of moved) {
    if (typeof key !== 'string') continue;
    if (key === 'tool_calls') {
      const calls = g.events
        .filter((e) => e.type === 'toolRequest' || (e.type === 'other' && blockOf(e) !== undefined))
        .map((e) => openAiToolCall(e, true));
      if (calls.length === 0) erase(msg, key);
      else set(msg, key, calls);
      continue;
    }
    const e =
      key !== 'content'
        ? firstOf(g, ['reasoning'])
        : firstOf(g, ['system', 'user', 'assistant', 'toolResponse']);
    const content = e !== undefined ? get(e, 'content') : undefined;
    if (content === undefined) erase(msg, key);
    else set(msg, key, copy(content));
  }
  return msg;
}

/** The events of a validated conversation or view -> OpenAI messages. `source` is the document's
 * "source" member. */
export function openAIMessagesOf(document: JsonObject, source: Json | undefined): Json[] {
  const records = recordsFor(source, 'openai');
  const out: Json[] = [];
  let group = emptyGroup();
  let rank = -1;
  const flush = (): void => {
    if (group.kind === 'record') {
      out.push(openAiFromRecord(group, records![group.message]!));
    } else if (group.kind === 'standard') {
      const text = firstOf(group, ['assistant']);
      const m: JsonObject = { role: 'assistant', content: text !== undefined ? renderedContent(text) : null };
      const r = firstOf(group, ['reasoning']);
      const reasoning = r !== undefined ? contentText(get(r, 'content')) : '';
      if (reasoning !== '') m.reasoning_content = reasoning;
      const calls = group.events.filter((e) => e.type === 'toolRequest').map((e) => openAiToolCall(e, false));
      if (calls.length > 0) m.tool_calls = calls;
      out.push(m);
    }
    group = emptyGroup();
    rank = -1;
  };
  for (const e of eventsOf(document)) {
    const k = messageIndex(e, records);
    if (k !== undefined) {
      if (group.kind !== 'record' || group.message !== k) {
        flush();
        group.kind = 'record';
        group.message = k;
      }
      group.events.push(e);
      continue;
    }
    switch (e.type) {
      case 'system':
      case 'user':
        flush();
        out.push({ role: e.type, content: renderedContent(e) });
        break;
      case 'toolResponse':
        flush();
        out.push({ role: 'tool', tool_call_id: stringMember(e, 'id') ?? '', content: renderedContent(e) });
        break;
      case 'reasoning':
      case 'assistant':
      case 'toolRequest': {
        // One assistant message holds reasoning, then content, then tool calls.
        const eventRank = e.type === 'reasoning' ? 0 : e.type === 'assistant' ? 1 : 2;
        if (group.kind !== 'standard' || eventRank < rank || (eventRank < 2 && eventRank === rank)) {
          flush();
          group.kind = 'standard';
        }
        rank = eventRank;
        group.events.push(e);
        break;
      }
      default:
        break; // opaque parts of another format have no OpenAI rendering
    }
  }
  flush();
  return out;
}

// The standard block for an event, or null when it has none (unsigned reasoning, empty text,
// opaque parts of another format).
function anthropicBlock(e: Event): JsonObject | null {
  switch (e.type) {
    case 'user':
    case 'assistant': {
      const text = contentText(get(e, 'content'));
      return text === '' ? null : { type: 'text', text };
    }
    case 'reasoning': {
      const signature = stringMember(e, 'signature');
      if (signature === undefined) return null;
      return { type: 'thinking', thinking: contentText(get(e, 'content')), signature };
    }
    case 'toolRequest':
      return {
        type: 'tool_use',
        id: stringMember(e, 'id') ?? '',
        name: e.name as string,
        input: argumentsObject(get(e, 'arguments')),
      };
    case 'toolResponse': {
      const b: JsonObject = { type: 'tool_result', tool_use_id: stringMember(e, 'id') ?? '' };
      const c = get(e, 'content');
      if (c !== undefined && c !== null) b.content = renderedContent(e);
      if (get(e, 'ok') === false) b.is_error = true;
      return b;
    }
    default:
      return null;
  }
}

// The payload key a block template holds for an event of `type`, and the event's member for it.
const PAYLOAD: Partial<Record<EventType, [key: string, from: string]>> = {
  user: ['text', 'content'],
  assistant: ['text', 'content'],
  reasoning: ['thinking', 'content'],
  toolRequest: ['input', 'arguments'],
  toolResponse: ['content', 'content'],
};

function anthropicFromRecord(g: Group, rec: Json): JsonObject {
  const msg = copy(get(rec, 'template') as JsonObject);
  if (get(rec, 'string')) {
    const e = firstOf(g, ['user', 'assistant']);
    const content = e !== undefined ? get(e, 'content') : undefined;
    set(msg, 'content', content !== undefined ? copy(content) : '');
    return msg;
  }
  const blocks: Json[] = [];
  for (const e of g.events) {
    const template = blockOf(e);
    if (template === undefined) {
      if (e.type === 'other') continue; // a placeholder for a message without parts
      const b = anthropicBlock(e);
      if (b !== null) blocks.push(b);
      continue;
    }
    const b = copy(template);
    const payload = PAYLOAD[e.type];
    if (payload !== undefined && own.call(b, payload[0])) {
      const value = get(e, payload[1]);
      if (value !== undefined) set(b, payload[0], copy(value));
    }
    blocks.push(b);
  }
  set(msg, 'content', blocks);
  return msg;
}

/** The events of a validated conversation or view -> {system?, messages} in the Anthropic
 * Messages format. */
export function anthropicRequestOf(document: JsonObject, source: Json | undefined): JsonObject {
  const records = recordsFor(source, 'anthropic');
  const messages: Json[] = [];
  let group = emptyGroup();
  const flush = (): void => {
    if (group.kind === 'record') {
      messages.push(anthropicFromRecord(group, records![group.message]!));
    } else if (group.kind === 'standard') {
      const blocks = group.events.map(anthropicBlock).filter((b): b is JsonObject => b !== null);
      if (blocks.length > 0) {
        const oneText = blocks.length === 1 && blocks[0]!.type === 'text';
        messages.push({ role: group.userSide ? 'user' : 'assistant', content: oneText ? blocks[0]!.text! : blocks });
      }
    }
    group = emptyGroup();
  };
  const system: Event[] = [];
  for (const e of eventsOf(document)) {
    if (e.type === 'system') {
      system.push(e);
      continue;
    }
    const k = messageIndex(e, records);
    if (k !== undefined) {
      if (group.kind !== 'record' || group.message !== k) {
        flush();
        group.kind = 'record';
        group.message = k;
      }
      group.events.push(e);
      continue;
    }
    const user = isUserSide(e);
    if (group.kind !== 'standard' || group.userSide !== user) {
      flush();
      group.kind = 'standard';
      group.userSide = user;
    }
    group.events.push(e);
  }
  flush();
  const out: JsonObject = {};
  if (system.length === 1 && records !== undefined) {
    const content = get(system[0], 'content');
    if (get(get(system[0], 'source'), 'system') && content !== undefined) out.system = copy(content);
  }
  if (out.system === undefined && system.length > 0) {
    let text = '';
    for (const e of system) {
      if (text !== '') text += '\n\n';
      text += contentText(get(e, 'content'));
    }
    out.system = text;
  }
  out.messages = messages;
  return out;
}

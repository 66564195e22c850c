// SPDX-License-Identifier: MIT
// The context manager in every provider format (issue 20 item 1): a native message goes in as the
// views the format's adapter splits it into (the neutral model `compress` reads too, so a call and
// its results form the session engine's atomic groups), and a view comes back as native messages:
// the caller's own objects where every view of a message is there unchanged, the adapter's rebuild
// where the checkpoint boundary took some of its views, and each summary as a native text message.
import { anthropicFormat } from './format-anthropic.js';
import { aiSdkFormat } from './format-ai-sdk.js';
import { aiSdkUiFormat } from './format-ai-sdk-ui.js';
import type { ClearingEdit } from './clearing.js';
import type { FormatAdapter, MessageFormat, ViewOut, ViewSpec } from './format-shapes.js';
import { isLangChainMessage, langChainFormat, langChainRole } from './format-langchain.js';
import { openaiChatFormat } from './format-openai-chat.js';
import { openaiResponsesFormat } from './format-openai-responses.js';
import { CompressError } from './errors.js';

type Obj = Record<string, unknown>;

const ADAPTERS: Record<MessageFormat, FormatAdapter<never>> = {
  'openai-chat': openaiChatFormat as FormatAdapter<never>,
  'openai-responses': openaiResponsesFormat as FormatAdapter<never>,
  anthropic: anthropicFormat as FormatAdapter<never>,
  'ai-sdk': aiSdkFormat as FormatAdapter<never>,
  'ai-sdk-ui': aiSdkUiFormat as FormatAdapter<never>,
  langchain: langChainFormat as FormatAdapter<never>,
};

/** What `toJSON()` stores of a manager in a provider format (`state.native`): the format, the
 * Anthropic `system`, every message as given (JSON) and how many history views each one became. */
export interface NativeHistory {
  format: MessageFormat;
  system?: unknown;
  messages: unknown[];
  views: number[];
}

/** @internal The adapter of a format name, or a typed error naming the option. */
export function adapterOf(format: unknown, path: string): FormatAdapter<unknown> {
  const adapter = typeof format === 'string' ? ADAPTERS[format as MessageFormat] : undefined;
  if (adapter === undefined) {
    throw new CompressError('InvalidInput', `unknown format ${String(format)}`, path);
  }
  return adapter as FormatAdapter<unknown>;
}

/** @internal The engine message of one view: a tool result, or an item continuing a step (a
 * `callId`), is a `tool` message, which the session engine keeps with the call before it.
 * `callArguments`: keep every call's arguments (compaction counts and summarises them; its
 * content parts count only their text). */
export function sessionMessage(spec: ViewSpec, callArguments = false): Obj {
  const m: Obj = { role: spec.callId !== undefined ? 'tool' : spec.role, content: spec.content ?? '' };
  if (spec.toolCalls && spec.toolCalls.length > 0) {
    // Calls that are also content parts (Anthropic tool_use, AI SDK tool-call) are counted there.
    m.tool_calls = spec.countCalls || callArguments
      ? spec.toolCalls
      : spec.toolCalls.map((call) => {
          const fn = ((call as Obj).function ?? {}) as Obj;
          return { ...(call as Obj), function: { name: String(fn.name ?? ''), arguments: '' } };
        });
  }
  if (spec.callId !== undefined) m.tool_call_id = spec.callId;
  return m;
}

/** @internal The native side of a context manager in a provider format. */
export class NativeSession {
  readonly adapter: FormatAdapter<unknown>;
  /** The messages to answer with: the caller's own objects (the state's copies after fromJSON). */
  readonly #originals: unknown[] = [];
  /** JSON copies of the messages as given (what toJSON stores). */
  readonly #stored: unknown[] = [];
  /** History index of each message's first view, and its number of views. */
  readonly #starts: number[] = [];
  readonly #counts: number[] = [];
  /** History views before the first message: the Anthropic system prompt. */
  readonly offset: number;

  constructor(
    readonly format: MessageFormat,
    readonly system: unknown,
    /** Where the options are, for error paths ('/config' for the context manager). */
    where = '/config',
  ) {
    this.adapter = adapterOf(format, `${where}/format`);
    if (system != null && !this.adapter.system) {
      throw new CompressError('InvalidInput', `system is for the anthropic format, not ${format}`, `${where}/system`);
    }
    if (system != null && typeof system !== 'string' && !Array.isArray(system)) {
      throw new CompressError('InvalidInput', 'system must be a string or an array of text blocks', `${where}/system`);
    }
    this.offset = system != null ? 1 : 0;
  }

  /** The system prompt as a leading system message of the history (counted as the system). */
  systemMessage(): Obj | undefined {
    if (this.system == null) return undefined;
    const content = (this.adapter.system as (s: unknown) => unknown)(this.system);
    return content === undefined ? undefined : { role: 'system', content };
  }

  /** The history messages of `messages` (plain JSON), recording them; `stored` are their copies.
   * `seen` is told each view's spec and history index (counted after the offset). */
  split(
    messages: readonly unknown[],
    stored: readonly unknown[],
    seen?: (spec: ViewSpec, h: number) => void,
    caller = 'add()',
  ): Obj[] {
    const out: Obj[] = [];
    for (let k = 0; k < messages.length; k++) {
      const message = messages[k];
      if (typeof message !== 'object' || message === null) {
        throw new CompressError('InvalidInput', `${caller}: a message must be an object`, '/message');
      }
      const n = this.#originals.length;
      // Responses reads the items before this one (is a call still waiting?): the list itself, so
      // that its per-list scan carries on from where the last add stopped (never a copy, which
      // would scan the whole history again on every add).
      this.#originals.push(message);
      let specs: ViewSpec[];
      try {
        specs = this.adapter.split(message, n, this.#originals);
      } catch (error) {
        this.#originals.pop();
        throw error;
      }
      this.#stored.push(stored[k]);
      if (seen) specs.forEach((spec, i) => seen(spec, this.#history() + i));
      this.#starts.push(this.#history());
      this.#counts.push(specs.length);
      for (const spec of specs) out.push(sessionMessage(spec));
    }
    return out;
  }

  #history(): number {
    const last = this.#counts.length - 1;
    return last < 0 ? 0 : (this.#starts[last] as number) + (this.#counts[last] as number);
  }

  /** Index of the message of history view `h` (counted from the history's start), or -1 for the
   * system prompt. */
  messageOf(h: number): number {
    return h < this.offset ? -1 : this.#messageAt(h - this.offset);
  }

  /** Index of the message whose views include history view `h` (h counted after the offset). */
  #messageAt(h: number): number {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.#starts[mid] as number) <= h) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The native messages of a view: `sources` are history indices, -1 the next summary;
   * `edits` what compaction strips of a kept message (by message index), through the adapter's
   * clearing shape (the formats entry's clearToolResults / clearReasoning edits). */
  view(
    sources: readonly number[],
    summaries: readonly Obj[],
    edits?: ReadonlyMap<number, ClearingEdit>,
    ranges?: ReadonlyArray<{ start: number; end: number }>,
  ): unknown[] {
    const built: Array<{ message: unknown; made: boolean }> = [];
    let summary = 0;
    for (let k = 0; k < sources.length; ) {
      const source = sources[k] as number;
      if (source < 0) {
        built.push({ message: this.#summary(summaries[summary++] as Obj, ranges), made: true });
        k++;
        continue;
      }
      if (source < this.offset) {
        k++; // the system prompt goes separately
        continue;
      }
      const n = this.#messageAt(source - this.offset);
      const outs: Array<ViewOut | undefined> = new Array(this.#counts[n]).fill(undefined);
      for (; k < sources.length; k++) {
        const s = (sources[k] as number) - this.offset;
        if (s < 0 || this.#messageAt(s) !== n) break;
        outs[s - (this.#starts[n] as number)] = { changed: false };
      }
      const original = this.#originals[n];
      const edit = edits?.get(n);
      const clearing = this.adapter.clearing;
      if (outs.every((o) => o !== undefined)) {
        if (edit === undefined || clearing === undefined) built.push({ message: original, made: false });
        else {
          const edited = clearing.edit(original, edit);
          if (edited !== undefined) built.push({ message: edited, made: true });
        }
        continue;
      }
      const specs = this.adapter.split(original, n, this.#originals);
      let rebuilt = this.adapter.rebuild(original, outs, specs);
      if (rebuilt !== undefined && edit !== undefined && clearing !== undefined) rebuilt = clearing.edit(rebuilt, edit);
      if (rebuilt !== undefined) built.push({ message: rebuilt, made: true });
    }
    // Two neighbours a provider needs as one (Anthropic alternation), where one is new.
    const join = this.adapter.join;
    for (let i = 1; join && i < built.length; ) {
      const a = built[i - 1] as (typeof built)[number];
      const b = built[i] as (typeof built)[number];
      const joined = a.made || b.made ? join(a.message, b.message) : undefined;
      if (joined === undefined) i++;
      else built.splice(i - 1, 2, { message: joined, made: true });
    }
    return built.map((b) => b.message);
  }

  /** A summary as a text message of the format (OpenAI Chat keeps the engine's own message). */
  #summary(m: Obj, ranges?: ReadonlyArray<{ start: number; end: number }>): unknown {
    const text = this.#numbered(typeof m.content === 'string' ? m.content : '', ranges);
    const role = m.role === 'assistant' || m.role === 'system' ? m.role : 'user';
    switch (this.format) {
      case 'openai-chat':
        return m;
      case 'anthropic':
        return { role: role === 'assistant' ? 'assistant' : 'user', content: [{ type: 'text', text }] };
      case 'ai-sdk':
        return role === 'system' ? { role, content: text } : { role, content: [{ type: 'text', text }] };
      case 'ai-sdk-ui':
        // A UIMessage needs its id; the summary's provenance goes in its metadata.
        return { id: String(m.id), role, parts: [{ type: 'text', text }], metadata: m.metadata };
      case 'openai-responses':
        return {
          type: 'message',
          role,
          content: [role === 'assistant' ? { type: 'output_text', text, annotations: [] } : { type: 'input_text', text }],
        };
      case 'langchain': {
        // A new instance of the caller's own class for that role, when the history has one.
        const like = this.#originals.find((o) => isLangChainMessage(o) && langChainRole(o as Obj) === role);
        const Class = (like as { constructor?: unknown } | undefined)?.constructor;
        if (typeof Class === 'function' && Class !== Object) {
          return new (Class as new (fields: Obj) => unknown)({ content: text });
        }
        return { role, content: text };
      }
    }
  }

  /**
   * The engine heads each checkpoint's section "[Summary of messages A-B]" in history views; the
   * caller counts its own messages. Only headers of a checkpoint's range are renumbered (a
   * summary body that quotes some other header is left alone).
   */
  #numbered(text: string, ranges?: ReadonlyArray<{ start: number; end: number }>): string {
    if (!ranges || ranges.length === 0 || this.format === 'openai-chat') return text;
    const known = new Set(ranges.map((r) => `${r.start + 1}-${r.end}`));
    return text.replace(/(^|\n\n)\[Summary of messages (\d+)-(\d+)\]\n/g, (whole, lead: string, a: string, b: string) => {
      const first = Number(a) - 1 - this.offset;
      const last = Number(b) - 1 - this.offset;
      if (!known.has(`${a}-${b}`) || first < 0 || last < first) return whole;
      return `${lead}[Summary of messages ${this.#messageAt(first) + 1}-${this.#messageAt(last) + 1}]\n`;
    });
  }

  /** The messages as given (copies). */
  history(): unknown[] {
    return JSON.parse(JSON.stringify(this.#stored)) as unknown[];
  }

  toJSON(): NativeHistory {
    const h: NativeHistory = { format: this.format, messages: this.#stored, views: this.#counts };
    if (this.system != null) h.system = this.system;
    return JSON.parse(JSON.stringify(h)) as NativeHistory;
  }

  static fromJSON(h: NativeHistory): NativeSession {
    if (h === null || typeof h !== 'object' || !Array.isArray(h.messages) || !Array.isArray(h.views)) {
      throw new CompressError('InvalidInput', 'fromJSON(): state.native is malformed', '/state/native');
    }
    const session = new NativeSession(h.format, h.system);
    for (let n = 0; n < h.messages.length; n++) {
      const count = h.views[n];
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
        throw new CompressError('InvalidInput', 'fromJSON(): state.native.views is malformed', '/state/native/views');
      }
      session.#originals.push(h.messages[n]);
      session.#stored.push(JSON.parse(JSON.stringify(h.messages[n])));
      session.#starts.push(session.#history());
      session.#counts.push(count);
    }
    return session;
  }
}

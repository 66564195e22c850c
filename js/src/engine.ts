// SPDX-License-Identifier: MIT
// compress / uncompress over the boundary: slim requests, the pending loop, rebuilt outputs.
import { CompressError } from './errors.js';
import { defaultTokenCounter } from './token-counter.js';
import { callEngine, timings, type Answer } from './transport.js';
import type {
  AsyncCompressOptions,
  CceOriginal,
  CompressionStats,
  CompressOptions,
  CompressResult,
  Message,
  StoreLookup,
  Summarizer,
  SyncCompressOptions,
  TokenCounter,
  UncompressOptions,
  UncompressResult,
  VerbatimMap,
} from './types.js';

// ---- wire shapes (docs/boundary.md) -------------------------------------------------------------

/** How to build one output message from the caller's objects. */
interface Entry {
  s: number;
  c?: string;
  m?: 1;
  o?: CceOriginal;
}

interface CompressPlan {
  messages: Entry[];
  compression: CompressionStats;
  verbatim: Array<[string, number, boolean]>;
  fits?: boolean;
  tokenCount?: number;
  recencyWindow?: number;
  blockingIds?: Array<Message['id']>;
  blocking?: number[];
  fastPath?: boolean;
}

interface CompressPending {
  summaries?: Array<{ text: string; budget: number }>;
  counts?: Array<{ key: string; message: Entry }>;
}

interface CompressHost {
  summarizer?: true;
  summaries?: Array<string | null>;
  tokenCounter?: true;
  inputCounts?: number[];
  counts?: Record<string, number>;
}

type Obj = Record<string, unknown>;

// The options the engine reads, by how JavaScript would read them.
const NUMBER_OPTIONS = [
  'recencyWindow',
  'sourceVersion',
  'tokenBudget',
  'minRecencyWindow',
  'fuzzyThreshold',
] as const;
const TRUTHY_OPTIONS = ['fuzzyDedup', 'embedSummaryId', 'forceConverge'] as const;
const PLAIN_OPTIONS = ['preserve', 'dedup', 'compat'] as const;

// ---- slim requests: only what the engine reads crosses the boundary ---------------------------

/** What JSON can carry of a non-object element (the engine then reports the reference's error). */
function jsonScalar(value: unknown): unknown {
  const type = typeof value;
  return type === 'undefined' || type === 'function' || type === 'symbol' || type === 'bigint'
    ? null
    : value;
}

const zeroArrays: number[][] = [];
/** `tool_calls` as the engine sees it: only its length matters. */
function zeros(length: number): number[] {
  if (length > 64) return new Array<number>(length).fill(0);
  return (zeroArrays[length] ??= new Array<number>(length).fill(0));
}

/** `metadata` with the same truthiness, reduced to the `_cce_original` fields the engine reads. */
function slimMetadata(metadata: unknown): unknown {
  if (typeof metadata !== 'object') return true; // a truthy primitive or a function
  if (Array.isArray(metadata)) return []; // truthy, but not an object to the engine
  const original = (metadata as Obj)._cce_original as unknown;
  if (!original) return {};
  const slim: Obj = {};
  if (typeof original === 'object' || typeof original === 'function') {
    const { summary_id: summaryId, ids } = original as Obj;
    if (typeof summaryId === 'string') slim.summary_id = summaryId;
    if (Array.isArray(ids)) slim.ids = ids;
  }
  return { _cce_original: slim };
}

function slimMessage(message: unknown): unknown {
  if (typeof message !== 'object' || message === null) return jsonScalar(message);
  const m = message as Obj;
  const slim: Obj = { id: m.id, role: m.role };
  const content = m.content;
  if (typeof content === 'string') slim.content = content;
  const toolCalls = m.tool_calls;
  if (Array.isArray(toolCalls)) slim.tool_calls = zeros(toolCalls.length);
  const toolCallId = m.tool_call_id; // only its presence (non-null) is read
  if (toolCallId != null) slim.tool_call_id = typeof toolCallId === 'string' ? toolCallId : true;
  const metadata = m.metadata;
  if (metadata) slim.metadata = slimMetadata(metadata);
  return slim;
}

function slimOptions(options: CompressOptions): Obj {
  const out: Obj = {};
  for (const key of NUMBER_OPTIONS) {
    const value = options[key];
    if (value == null) continue;
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new CompressError(
        'InvalidInput',
        `compress(): options.${key} must be a finite number`,
        `/options/${key}`,
      );
    }
    out[key] = value;
  }
  for (const key of TRUTHY_OPTIONS) {
    const value = options[key] as unknown;
    if (value != null) out[key] = jsonScalar(value) === null ? Boolean(value) : value;
  }
  for (const key of PLAIN_OPTIONS) {
    const value = options[key];
    if (value != null) out[key] = value;
  }
  return out;
}

/** The reference's synchronous validation (spec §1.3) passes: counting inputs is then safe. */
function validMessages(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as unknown;
    if (typeof m !== 'object' || m === null || (m as Obj).id == null) return false;
  }
  return true;
}

// ---- rebuilding outputs from the caller's objects ---------------------------------------------

function cloneWithMetadata(m: Message): Message {
  return { ...m, metadata: m.metadata ? { ...m.metadata } : {} };
}

function build(input: readonly Message[], entry: Entry): Message {
  const source = input[entry.s] as Message;
  if (entry.c === undefined) return entry.m ? cloneWithMetadata(source) : source;
  const base = entry.m ? cloneWithMetadata(source) : source;
  if (entry.o === undefined) return { ...base, content: entry.c };
  return { ...base, content: entry.c, metadata: { ...base.metadata, _cce_original: entry.o } };
}

// ---- compress ----------------------------------------------------------------------------------

class CompressRun {
  private readonly request: { messages: unknown; options: Obj; plan: true; host?: CompressHost };
  private readonly host: CompressHost = {};
  private readonly counter: TokenCounter | undefined;
  /** Objects the counter saw, reused in the result so it sees exactly what is returned. */
  private readonly counted = new Map<string, Message>();

  constructor(
    private readonly input: Message[],
    options: CompressOptions,
    private readonly summarizer: Summarizer | undefined,
  ) {
    let slim: unknown = null;
    if (Array.isArray(input)) {
      const list: unknown[] = [];
      for (let i = 0; i < input.length; i++) list.push(slimMessage(input[i]));
      slim = list;
    }
    const counter = options.tokenCounter;
    // defaultTokenCounter is the reference's estimate, which the engine applies natively in
    // cce-1.0 mode (safe mode may estimate differently, so there it is called like any counter).
    const native = counter === defaultTokenCounter && options.compat === 'cce-1.0';
    this.counter = counter == null || native ? undefined : counter;
    this.request = { messages: slim, options: slimOptions(options), plan: true };
    if (summarizer) {
      this.host.summarizer = true;
      this.host.summaries = [];
    }
    if (this.counter) this.host.tokenCounter = true;
    if (summarizer || this.counter) this.request.host = this.host;
  }

  /** Throws the engine's validation error when the reference would throw synchronously. */
  validate(): void {
    if (validMessages(this.input)) return;
    this.step(); // the engine reports the reference's TypeError text
  }

  private step(): Answer<CompressPlan, CompressPending> {
    return callEngine<CompressPlan, CompressPending>('compress', this.request);
  }

  private count(message: Message): number {
    const counter = this.counter as TokenCounter;
    const value = counter(message);
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new CompressError(
        'InvalidInput',
        'compress(): tokenCounter must return a finite number',
        '/options/tokenCounter',
      );
    }
    return value;
  }

  private countInputs(): void {
    if (!this.counter || !validMessages(this.input)) return;
    const counts: number[] = [];
    for (let i = 0; i < this.input.length; i++) counts.push(this.count(this.input[i] as Message));
    this.host.inputCounts = counts;
    this.host.counts = {};
  }

  private message(entry: Entry): Message {
    if (!this.counter || (entry.c === undefined && !entry.m)) return build(this.input, entry);
    const key = JSON.stringify(entry);
    let m = this.counted.get(key);
    if (m === undefined) this.counted.set(key, (m = build(this.input, entry)));
    return m;
  }

  private answerCounts(pending: CompressPending): void {
    const counts = this.host.counts as Record<string, number>;
    if (!pending.summaries?.length && pending.counts?.every(({ key }) => key in counts)) {
      throw new CompressError('Internal', 'cce-wasm: the engine asked again for answered counts');
    }
    for (const { key, message } of pending.counts ?? [])
      counts[key] = this.count(this.message(message));
  }

  runSync(): CompressResult {
    this.countInputs();
    for (let answer = this.step(); ; answer = this.step()) {
      if (answer.plan) return this.result(answer.plan);
      const pending = expectPending(answer);
      if (pending.summaries?.length) {
        throw new CompressError(
          'Internal',
          'cce-wasm: the engine asked for summaries without a summarizer',
        );
      }
      this.answerCounts(pending);
    }
  }

  async runAsync(): Promise<CompressResult> {
    this.countInputs();
    const summarizer = this.summarizer as Summarizer;
    const summaries = this.host.summaries as Array<string | null>;
    for (let answer = this.step(); ; answer = this.step()) {
      if (answer.plan) return this.result(answer.plan);
      const pending = expectPending(answer);
      // In request order, one at a time, like the reference's sequential awaits.
      for (const { text } of pending.summaries ?? []) {
        let reply: unknown = null;
        try {
          reply = await summarizer(text);
        } catch {
          // a throwing or rejecting summarizer falls back to the deterministic summary
        }
        summaries.push(typeof reply === 'string' ? reply : null);
      }
      this.answerCounts(pending);
    }
  }

  private result(plan: CompressPlan): CompressResult {
    const t0 = timings.enabled ? performance.now() : 0;
    let messages = this.input;
    if (!plan.fastPath) {
      messages = [];
      for (const entry of plan.messages) messages.push(this.message(entry));
    }
    const verbatim: VerbatimMap = {};
    for (const [key, source, ensureMetadata] of plan.verbatim) {
      const original = this.input[source] as Message;
      verbatim[key] = ensureMetadata ? cloneWithMetadata(original) : original;
    }
    const result: CompressResult = { messages, compression: plan.compression, verbatim };
    if (plan.fits !== undefined) {
      result.fits = plan.fits;
      result.tokenCount = plan.tokenCount;
      result.recencyWindow = plan.recencyWindow;
      // The engine names blocking messages by id, or by input index when it had no objects.
      if (plan.blockingIds) result.blockingIds = plan.blockingIds;
      else if (plan.blocking) result.blockingIds = plan.blocking.map((i) => (this.input[i] as Message).id);
    }
    if (timings.enabled) timings.rebuildMs += performance.now() - t0;
    return result;
  }
}

function expectPending<P extends CompressPending | UncompressPending>(
  answer: Answer<unknown, P>,
): P {
  const pending = answer.pending;
  const empty =
    !pending ||
    (!('ids' in pending && pending.ids?.length) &&
      !('summaries' in pending && pending.summaries?.length) &&
      !('counts' in pending && pending.counts?.length));
  if (empty)
    throw new CompressError('Internal', 'cce-wasm: the engine answered neither a plan nor work');
  return pending as P;
}

/**
 * Compresses a conversation: the same behaviour, options and result shape as
 * context-compression-engine 1.0.0. Synchronous without a summarizer, a Promise with one.
 * Unchanged messages are your own objects; compressed ones are shallow copies of them.
 *
 * @throws {CompressError} `InvalidInput` for the reference's TypeErrors (same message text), e.g.
 *   `compress(): messages[2] must be an object` — thrown synchronously even with a summarizer.
 * @example
 * const { messages, compression, verbatim } = compress(history, { recencyWindow: 4 });
 * const budgeted = await compress(history, { tokenBudget: 4000, summarizer: mySummarizer });
 */
export function compress(messages: Message[], options?: SyncCompressOptions): CompressResult;
export function compress(
  messages: Message[],
  options: AsyncCompressOptions,
): Promise<CompressResult>;
export function compress(
  messages: Message[],
  options?: CompressOptions,
): CompressResult | Promise<CompressResult>;
export function compress(
  messages: Message[],
  options?: CompressOptions,
): CompressResult | Promise<CompressResult> {
  const opts = options ?? {};
  const summarizer = opts.summarizer ? (opts.summarizer as Summarizer) : undefined;
  const counter = opts.tokenCounter as unknown;
  if (counter != null && typeof counter !== 'function') {
    throw new CompressError(
      'InvalidInput',
      'compress(): options.tokenCounter must be a function',
      '/options/tokenCounter',
    );
  }
  const run = new CompressRun(messages, opts, summarizer);
  run.validate();
  return summarizer ? run.runAsync() : run.runSync();
}

// ---- uncompress --------------------------------------------------------------------------------

interface UncompressPlan {
  messages: Array<{ i?: number; k?: string }>;
  messages_expanded: number;
  messages_passthrough: number;
  missing_ids: string[];
}

interface UncompressPending {
  ids?: string[];
}

/** Only `metadata._cce_original.ids` matters to uncompress. */
function slimOriginal(message: unknown): unknown {
  if (typeof message !== 'object' || message === null) return jsonScalar(message);
  const metadata = (message as Obj).metadata as Obj | undefined;
  const original = metadata ? (metadata._cce_original as Obj | undefined) : undefined;
  const ids = original ? original.ids : undefined;
  return Array.isArray(ids) && ids.length > 0 ? { metadata: { _cce_original: { ids } } } : {};
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Restores the originals of compressed messages from a `verbatim` map (or a lookup function).
 * Originals are returned as the very objects the store holds.
 *
 * @example
 * const restored = uncompress(result.messages, result.verbatim).messages;
 */
export function uncompress(
  messages: Message[],
  store: VerbatimMap | StoreLookup,
  options?: UncompressOptions,
): UncompressResult {
  const storeValue = store as unknown;
  let lookup: ((id: unknown) => unknown) | undefined;
  if (typeof storeValue === 'function') {
    lookup = (id) => (storeValue as (id: unknown) => unknown)(id);
  } else if (typeof storeValue === 'object' && storeValue !== null) {
    // Own keys only: the native build cannot see prototype members either.
    lookup = (id) =>
      hasOwn.call(storeValue, String(id)) ? (storeValue as Obj)[String(id)] : undefined;
  }
  const input: unknown[] | null = Array.isArray(messages) ? [] : null;
  if (input) for (let i = 0; i < messages.length; i++) input.push(slimOriginal(messages[i]));
  // The store crosses lazily: the engine names the ids it needs (pending), the host answers them.
  const slimStore: Obj = Object.create(null) as Obj;
  const request = {
    messages: input,
    store: lookup ? slimStore : jsonScalar(storeValue),
    options: { recursive: Boolean(options?.recursive) },
    plan: true,
    host: lookup ? { lookup: true } : undefined,
  };
  const found = new Map<string, unknown>();
  for (;;) {
    const answer = callEngine<UncompressPlan, UncompressPending>('uncompress', request);
    if (answer.plan) {
      const plan = answer.plan;
      const out: Message[] = [];
      for (const e of plan.messages)
        out.push((e.i !== undefined ? messages[e.i] : found.get(e.k as string)) as Message);
      return {
        messages: out,
        messages_expanded: plan.messages_expanded,
        messages_passthrough: plan.messages_passthrough,
        missing_ids: plan.missing_ids,
      };
    }
    const pending = expectPending(answer);
    if (pending.ids?.every((id) => String(id) in slimStore)) {
      throw new CompressError('Internal', 'cce-wasm: the engine asked again for answered ids');
    }
    for (const id of pending.ids ?? []) {
      const key = String(id);
      const value = (lookup as (id: unknown) => unknown)(id);
      if (value) {
        found.set(key, value);
        slimStore[key] = slimOriginal(value);
      } else {
        slimStore[key] = null;
      }
    }
  }
}

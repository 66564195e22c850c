// SPDX-License-Identifier: MIT
// Compile-only type tests of cce-wasm/context, cce-wasm/compaction and cce-wasm/session/init.
import {
  checkConversation,
  type ChatMessage,
  type Checkpoint,
  type CompressOutcome,
  ContextManager,
  type ContextState,
  type ContextUsage,
  createContextManager,
  foldToolChains,
  recoverProgress,
  unfoldToolChains,
} from 'cce-wasm/context';
import {
  compact,
  type CompactResult,
  type Conversation,
  dryRun,
  type DryRunResult,
  fromAnthropic,
  fromOpenAI,
  type OpenAIMessage,
  project,
  type ProjectedView,
  toAnthropic,
  toOpenAI,
  undo,
  fromMessages,
  toMessages,
  type NativeMessages,
} from 'cce-wasm/compaction';
import { init, createContextManager as create2, compact as compact2 } from 'cce-wasm/session/init';
import sessionWasm from 'cce-wasm/cce-session.wasm';

// ---- context manager ----
const sync = createContextManager({ contextWindow: 8000, promptBudget: 1000, keepLast: 4 });
const usage: ContextUsage = sync.add({ role: 'user', content: 'hi' });
const outcome: CompressOutcome = sync.compress();
const checkpoint: Checkpoint | null = outcome.checkpoint;
const view: ChatMessage[] = sync.view().messages;
const fits: boolean = sync.view().validation.fits;
sync.undo('cp1');
const cps: Checkpoint[] = sync.checkpoints;
const state: ContextState = sync.toJSON();
const restored: ContextManager<false> = ContextManager.fromJSON(state);
// @ts-expect-error without a summarizer compress() is not a Promise
const notAsync: Promise<CompressOutcome> = sync.compress();

const withLlm = createContextManager({
  contextWindow: 8000,
  summarizer: async (text, request) => `${request.level}: ${text.slice(0, request.budget)}`,
  onProgress: (event) => void event.percent,
  tokenCounter: (message) => String(message.content).length,
});
const later: Promise<CompressOutcome> = withLlm.compress();
// @ts-expect-error a summarizer makes compress() a Promise
const notSync: CompressOutcome = withLlm.compress();
const restoredAsync: ContextManager<true> = ContextManager.fromJSON(JSON.stringify(state), {
  summarizer: (text) => text,
});

// @ts-expect-error contextWindow is required
createContextManager({ promptBudget: 10 });
createContextManager({ contextWindow: 8000, tokenEstimate: 'chars' });
// @ts-expect-error the estimates are 'script' and 'chars'
createContextManager({ contextWindow: 8000, tokenEstimate: 'words' });
// @ts-expect-error the threshold is a number
createContextManager({ contextWindow: 100, threshold: '0.5' });
// @ts-expect-error the token counter returns a number
createContextManager({ contextWindow: 100, tokenCounter: () => 'many' });
// @ts-expect-error a message needs a role
sync.add({ content: 'no role' });
// @ts-expect-error the constructor is private: use createContextManager
new ContextManager();

const folded: ChatMessage[] = foldToolChains(view);
const unfolded: ChatMessage[] = unfoldToolChains(folded);
const target: number = recoverProgress(view, 5).target;
const issues = checkConversation(view);
const kind: 'orphanToolResult' | 'missingToolResult' | 'roleRepeat' | 'firstNotUser' =
  issues[0]!.kind;

// ---- compaction ----
const messages: OpenAIMessage[] = [{ role: 'user', content: 'hi' }];
const conversation: Conversation = fromOpenAI(messages);
const made: CompactResult = compact(conversation, { profile: 'default', keepLast: 2 });
const viaLlm: Promise<CompactResult> = compact(conversation, {
  profile: 'heavy',
  summarizer: async (text, { budget }) => text.slice(0, budget),
});
// @ts-expect-error a summarizer makes compact() a Promise
const notSyncCompact: CompactResult = compact(conversation, { summarizer: (t: string) => t });
compact(conversation, { from: -3, to: 'last', toolCalls: { request: true, response: false } });
compact(conversation, { from: '5h', to: { keepLast: 2 }, tools: { read: { request: 'keep' } } });
// @ts-expect-error unknown profile
compact(conversation, { profile: 'extreme' });
// @ts-expect-error unknown tool-call policy
compact(conversation, { toolCalls: 'remove' });
// @ts-expect-error hints are keep or strip
compact(conversation, { tools: { read: { request: 'drop' } } });

const events: ProjectedView = project(made.conversation).view;
const openai: OpenAIMessage[] = project(made.conversation, { format: 'openai' }).view.messages;
const anthropicView = project(made.conversation, { format: 'anthropic' }).view;
// @ts-expect-error an OpenAI view has no turns
project(made.conversation, { format: 'openai' }).view.turns;
const preview: DryRunResult<'openai'> = dryRun(conversation, { profile: 'light', format: 'openai' });
const tokens: number = preview.tokens.after - preview.tokens.before;
const undone: Conversation = undo(made.conversation, { index: -1 }).conversation;
const back: OpenAIMessage[] = toOpenAI(events);
const anthropic = toAnthropic(fromAnthropic([{ role: 'user', content: 'hi' }], 'be brief'));
// @ts-expect-error Anthropic roles are user or assistant
fromAnthropic([{ role: 'tool', content: 'x' }]);

// Provider formats: native messages in, native messages out.
const nativeIn = fromMessages([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], { format: 'anthropic', system: 'be brief' });
const nativeFormat: 'openai-chat' | 'openai-responses' | 'anthropic' | 'ai-sdk' | 'ai-sdk-ui' | 'langchain' =
  nativeIn.native.format;
const nativeOut: NativeMessages = project(compact(nativeIn, { profile: 'heavy' }).conversation, { format: 'messages' }).view;
const nativeMessages: unknown[] = nativeOut.messages;
const nativeDry: unknown[] = dryRun(nativeIn, { tokenBudget: 100, format: 'messages' }).view.messages;
const restoredNative: unknown[] = toMessages(nativeIn).messages;
// @ts-expect-error gemini is not a format
fromMessages([], { format: 'gemini' });

// ---- explicit init ----
const ready: Promise<void> = init({ wasmModule: sessionWasm });
create2({ contextWindow: 100 });
compact2(conversation);

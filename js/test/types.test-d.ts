// SPDX-License-Identifier: MIT
// Compile-only type tests of the published typings (tsc --noEmit --strict; see js/test/tsconfig.json).
import {
  compress,
  CompressError,
  createEscalatingSummarizer,
  createSummarizer,
  defaultTokenCounter,
  ERROR_CODES,
  estimateTokens,
  uncompress,
  type ClearReasoningOptions,
  type ClearToolResultsOptions,
  type CompressResult,
  type ErrorCode,
  type Message,
  type StoreLookup,
  type UncompressResult,
  type VerbatimMap,
} from 'cce-wasm';
import wasmFromPackage from 'cce-wasm/cce.wasm';
import fastWasmFromPackage from 'cce-wasm/cce-fast.wasm';
import { init, type InitOptions } from 'cce-wasm/init';

const messages: Message[] = [
  { id: '1', role: 'user', content: 'hi', index: 0, name: 'extra fields are fine' },
];

// compress: a result without a summarizer, a Promise with one.
const sync: CompressResult = compress(messages);
const syncWithOptions: CompressResult = compress(messages, {
  recencyWindow: 2,
  tokenBudget: 100,
  compat: 'cce-1.0',
});
const viaPromise: Promise<CompressResult> = compress(messages, {
  summarizer: async (text) => text.slice(0, 10),
});
const viaSyncSummarizer: Promise<CompressResult> = compress(messages, {
  summarizer: (text) => text,
});
// @ts-expect-error a summarizer makes the result a Promise
const notSync: CompressResult = compress(messages, { summarizer: (text: string) => text });
// @ts-expect-error without a summarizer there is no Promise
const notAsync: Promise<CompressResult> = compress(messages);
declare const dynamicOptions: Parameters<typeof compress>[1];
const either: CompressResult | Promise<CompressResult> = compress(messages, dynamicOptions);

// Result shapes.
const ratio: number = sync.compression.ratio;
const deduped: number | undefined = sync.compression.messages_deduped;
const fits: boolean | undefined = syncWithOptions.fits;
const original: Message | undefined = sync.verbatim['1'];

// Options are typed.
// @ts-expect-error recencyWindow is a number
compress(messages, { recencyWindow: '4' });
// @ts-expect-error preserve is a list of roles
compress(messages, { preserve: 'system' });
// @ts-expect-error unknown compat mode
compress(messages, { compat: 'v2' });
// Clearing options (issue 18 item 5).
const cleared: CompressResult = compress(messages, {
  clearToolResults: { keep: 3, excludeTools: ['read_file'], placeholder: '[cleared]', clearInputs: true },
  clearReasoning: { keep: 'all' },
});
const clearOptions: ClearToolResultsOptions = {};
const reasoningOptions: ClearReasoningOptions = { keep: 0 };
compress(messages, { clearToolResults: clearOptions, clearReasoning: reasoningOptions });
// @ts-expect-error keep is a number
compress(messages, { clearToolResults: { keep: '3' } });
// @ts-expect-error excludeTools is a list of names
compress(messages, { clearToolResults: { excludeTools: 'read_file' } });
// @ts-expect-error reasoning keep is a number or 'all'
compress(messages, { clearReasoning: { keep: 'some' } });
// @ts-expect-error the token counter returns a number
compress(messages, { tokenCounter: (m: Message) => String(m.content) });
compress(messages, { tokenCounter: defaultTokenCounter });

// This package's options.
compress(messages, { maxInputBytes: 0, tokenEstimate: 'chars', imageTokens: 85 });
const withTimeout: Promise<CompressResult> = compress(messages, {
  summarizer: async (text) => text.slice(0, 10),
  summarizerTimeoutMs: 5000,
});
// @ts-expect-error the estimates are 'script' and 'chars'
compress(messages, { tokenEstimate: 'bpe' });
// @ts-expect-error a timeout is a number of milliseconds
compress(messages, { summarizerTimeoutMs: '5s' });

// Array content: typed parts, with room for provider-specific fields.
const multimodal: Message[] = [
  {
    id: 'u1',
    role: 'user',
    content: [
      { type: 'text', text: 'What is on this chart?' },
      { type: 'image_url', image_url: { url: 'https://example.com/c.png' } },
    ],
  },
];
compress(multimodal);

// The default mode's estimate of a text.
const estimated: number = estimateTokens('什么是上下文窗口');
// @ts-expect-error it estimates a text, not a message
estimateTokens({ id: '1', content: 'hi' });

// The callback error codes are part of the vocabulary.
const callbackFailed: ErrorCode = 'CallbackFailed';
const timedOut: ErrorCode = 'Timeout';
// @ts-expect-error not an error code
const notACode: ErrorCode = 'Timedout';
compress(messages, { tokenCounter: (m) => (m.content?.length ?? 0) / 4 });
// @ts-expect-error messages are objects with an id
compress([{ content: 'no id' }]);
// @ts-expect-error messages must be an array
compress(messages[0]);

// uncompress: a map or a lookup function.
const store: VerbatimMap = sync.verbatim;
const lookup: StoreLookup = (id) => store[id];
const restored: UncompressResult = uncompress(sync.messages, store, { recursive: true });
const viaLookup: UncompressResult = uncompress(sync.messages, lookup);
const missing: string[] = restored.missing_ids;
// @ts-expect-error the store is a map or a function
uncompress(sync.messages, 'store');
// @ts-expect-error recursive is a boolean
uncompress(sync.messages, store, { recursive: 'yes' });

// Summarizer factories.
const summarizer = createSummarizer(async (prompt) => prompt.slice(-30), {
  maxResponseTokens: 200,
  mode: 'aggressive',
});
compress(messages, { summarizer }).then((r) => r.messages);
createEscalatingSummarizer((prompt) => prompt, { preserveTerms: ['SKU'] });
// @ts-expect-error the escalating factory picks the mode itself
createEscalatingSummarizer((prompt) => prompt, { mode: 'aggressive' });
// @ts-expect-error unknown mode
createSummarizer((prompt) => prompt, { mode: 'terse' });

// Errors.
try {
  compress(messages);
} catch (e) {
  if (e instanceof CompressError) {
    const code: ErrorCode = e.code;
    const path: string | undefined = e.path;
    // @ts-expect-error codes are a closed union
    const wrong: typeof code = 'NotACode';
    void [code, path, wrong];
  }
}
const codes: readonly ErrorCode[] = ERROR_CODES;

// init: exactly one source.
declare const wasmModule: WebAssembly.Module;
declare const bytes: Uint8Array;
const loads: Array<Promise<void>> = [
  init(),
  init({ wasmModule }),
  init({ wasmBinary: bytes }),
  init({ wasmUrl: '/cce.wasm' }),
  init({ wasmUrl: new URL('https://example.com/cce.wasm') }),
];
init({ wasmModule: wasmFromPackage });
init({ wasmModule: fastWasmFromPackage }); // the speed build, typed like cce.wasm
// @ts-expect-error one source at a time
init({ wasmModule, wasmBinary: bytes });
// @ts-expect-error a URL is not a module
init({ wasmModule: 'cce.wasm' });
const options: InitOptions = { wasmBinary: new ArrayBuffer(8) };

void [
  sync,
  viaPromise,
  viaSyncSummarizer,
  notSync,
  notAsync,
  either,
  ratio,
  deduped,
  fits,
  original,
  restored,
  viaLookup,
  missing,
  codes,
  loads,
  options,
];

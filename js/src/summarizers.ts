// SPDX-License-Identifier: MIT
// The LLM summarizer factories of spec §10.3: prompt construction around a user's callLlm.
import type {
  CallLlm,
  CreateEscalatingSummarizerOptions,
  CreateSummarizerOptions,
  Summarizer,
} from './types.js';

const BASE_TERMS = [
  'code references',
  'file paths',
  'function/variable names',
  'URLs',
  'API keys',
  'error messages',
  'numbers',
  'technical decisions',
];

interface PromptSettings {
  maxResponseTokens: number;
  systemPrompt: unknown;
  aggressive: boolean;
  terms: string;
}

function settings(
  options: CreateSummarizerOptions | undefined,
  aggressive: boolean,
): PromptSettings {
  const extras = (options?.preserveTerms ?? []).filter((term) => !BASE_TERMS.includes(term));
  const terms = [...BASE_TERMS, ...extras];
  return {
    maxResponseTokens: options?.maxResponseTokens ?? 300,
    systemPrompt: options?.systemPrompt,
    aggressive,
    terms: `${terms.slice(0, -1).join(', ')}, and ${terms[terms.length - 1]}`,
  };
}

function prompt(text: string, s: PromptSettings): string {
  const prefix = s.systemPrompt ? `${String(s.systemPrompt)}\n\n` : '';
  const instruction = s.aggressive
    ? 'Summarize the following conversation message as terse bullet points.'
    : 'Summarize the following conversation message concisely.';
  const budget = s.aggressive
    ? Math.max(1, Math.floor(s.maxResponseTokens / 2))
    : s.maxResponseTokens;
  return (
    `${prefix}${instruction}\nKeep the summary under ${budget} tokens.\n\nRules:\n` +
    `- Preserve all: ${s.terms}\n` +
    '- Remove filler, pleasantries, and redundant explanations\n' +
    '- Keep the same technical register \u2014 do not simplify terminology\n' +
    `- Output ONLY the summary, no preamble\n\nText:\n${text}`
  );
}

/**
 * A summarizer that sends one prompt per text to `callLlm` and returns its reply unchanged
 * (`compress` keeps a reply only if it is a shorter non-empty string).
 *
 * @example
 * const summarizer = createSummarizer((prompt) => llm.complete(prompt), {
 *   maxResponseTokens: 200,
 * });
 * const result = await compress(messages, { summarizer });
 */
export function createSummarizer(callLlm: CallLlm, options?: CreateSummarizerOptions): Summarizer {
  const s = settings(options, options?.mode === 'aggressive');
  return (text: string) => callLlm(prompt(text, s));
}

/**
 * A summarizer that asks for a normal summary first and, when the reply is not a shorter non-empty
 * string (or the call fails), asks again for terse bullet points and returns that reply as is.
 */
export function createEscalatingSummarizer(
  callLlm: CallLlm,
  options?: CreateEscalatingSummarizerOptions,
): Summarizer {
  const normal = settings(options, false);
  const aggressive = settings(options, true);
  return async (text: string) => {
    try {
      const reply: unknown = await callLlm(prompt(text, normal));
      if (typeof reply === 'string' && reply.length > 0 && reply.length < text.length) return reply;
    } catch {
      // a failed first level escalates like a bad reply
    }
    return callLlm(prompt(text, aggressive));
  };
}

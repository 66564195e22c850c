// SPDX-License-Identifier: MIT
// The token budget of the integrations (`cce-wasm/ai-sdk`, `cce-wasm/langchain`,
// `cce-wasm/request`): a fixed `tokenBudget`, or a context window less what the answer needs.
import { CompressError } from './errors.js';
import type { CompressOptions } from './types.js';

/** How much of the context window a request may fill. */
export interface BudgetOptions {
  /** The most tokens the messages may take. Wins over `contextWindow`. */
  tokenBudget?: number;
  /** The model's context window in tokens; the budget is this less `reserve`. */
  contextWindow?: number;
  /** Tokens kept free of messages (the answer, tools, the system prompt of another field).
   * Default: the request's own output limit (`maxOutputTokens`, `max_tokens`, …), else 0. */
  reserve?: number;
}

/** Options of the integrations: the budget and every `compress` option but `compat` (the
 * integrations speak provider formats, never the reference's dialect). */
export type IntegrationOptions = BudgetOptions & Omit<CompressOptions, 'tokenBudget' | 'compat'>;

const count = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** The engine options for one request: the integration's own fields removed and the budget
 * resolved against the request's output limit. */
export function engineOptionsOf(options: IntegrationOptions, outputLimit: unknown, where: string): CompressOptions {
  // compat is dropped: the integrations speak provider formats, never the reference's dialect.
  const { tokenBudget, contextWindow, reserve, compat: _compat, ...rest } = options as IntegrationOptions & { compat?: unknown };
  const engine: CompressOptions = rest;
  if (tokenBudget != null) {
    if (!count(tokenBudget)) {
      throw new CompressError('InvalidInput', `${where}: tokenBudget must be a non-negative number`, '/options/tokenBudget');
    }
    engine.tokenBudget = Math.floor(tokenBudget);
  } else if (contextWindow != null) {
    if (!count(contextWindow)) {
      throw new CompressError('InvalidInput', `${where}: contextWindow must be a non-negative number`, '/options/contextWindow');
    }
    if (reserve != null && !count(reserve)) {
      throw new CompressError('InvalidInput', `${where}: reserve must be a non-negative number`, '/options/reserve');
    }
    const kept = reserve ?? (count(outputLimit) ? outputLimit : 0);
    engine.tokenBudget = Math.max(0, Math.floor(contextWindow - kept));
  }
  return engine;
}

// SPDX-License-Identifier: MIT
// The reference's default token estimate (spec §1.8).
import type { Message } from './types.js';

/**
 * The reference's estimate: `ceil(content.length / 3.5)` for string content (UTF-16 code units),
 * else 0. With `compat: 'cce-1.0'` it is also the engine's default counter.
 */
export function defaultTokenCounter(message: Message): number {
  return typeof message.content === 'string' ? Math.ceil(message.content.length / 3.5) : 0;
}

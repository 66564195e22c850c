// SPDX-License-Identifier: MIT
// Compresses a conversation with Node: node index.mjs [input.json]
// input.json is {"messages": [...], "options": {...}}; prints the stats and a round-trip check.
import { readFileSync } from 'node:fs';

import { compress, uncompress } from 'cce-wasm';

const SAMPLE = [
  { id: '1', role: 'system', content: 'You are a helpful assistant.' },
  {
    id: '2',
    role: 'user',
    content: 'This is a long message about general topics that could be compressed. '.repeat(5),
  },
  { id: '3', role: 'assistant', content: 'Noted.' },
];

const path = process.argv[2];
const input = path
  ? JSON.parse(readFileSync(path, 'utf8'))
  : { messages: SAMPLE, options: { recencyWindow: 1 } };
const result = compress(input.messages, input.options ?? {});
const restored = uncompress(result.messages, result.verbatim);
console.log(
  JSON.stringify({
    compression: result.compression,
    messages: result.messages.length,
    roundTrip: JSON.stringify(restored.messages) === JSON.stringify(input.messages),
    firstCompressed: result.messages.find((m) => !input.messages.includes(m))?.content ?? null,
  }),
);

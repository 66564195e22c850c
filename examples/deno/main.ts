// SPDX-License-Identifier: MIT
// Compresses a conversation with Deno: deno run --allow-read main.ts [input.json]
// input.json is {"messages": [...], "options": {...}}; the result is printed as JSON.
// In an app, import from "npm:cce-wasm"; deno.json here maps it to this repository's dist/.
import { compress } from 'cce-wasm';

const SAMPLE = [
  { id: '1', role: 'system', content: 'You are a helpful assistant.' },
  {
    id: '2',
    role: 'user',
    content: 'This is a long message about general topics that could be compressed. '.repeat(5),
  },
  { id: '3', role: 'assistant', content: 'Noted.' },
];

const path = Deno.args[0];
const input = path
  ? JSON.parse(await Deno.readTextFile(path))
  : { messages: SAMPLE, options: { recencyWindow: 1 } };
console.log(JSON.stringify(compress(input.messages, input.options ?? {})));

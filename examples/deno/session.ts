// SPDX-License-Identifier: MIT
// A chat session with Deno: a context manager and a non-destructive compaction.
// deno run --allow-read session.ts [input.json]
// input.json is {"chat": [...], "context": {...}, "history": [...]}: `chat` is replayed into a
// context manager built from the `context` settings (compressing whenever it is due), `history`
// (OpenAI messages) is compacted with the default profile. Prints both views as JSON.
// In an app, import from "npm:cce-wasm/context"; deno.json here maps it to this repository's dist/.
import { type ChatMessage, type ContextSettings, createContextManager } from 'cce-wasm/context';
import { compact, fromOpenAI, type OpenAIMessage, project } from 'cce-wasm/compaction';

interface Input {
  chat: ChatMessage[];
  context: ContextSettings;
  history: OpenAIMessage[];
}

const SAMPLE: Input = {
  chat: Array.from({ length: 10 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `Message ${i} about the failing deploy. `.repeat(12),
  })),
  context: { contextWindow: 1000, keepLast: 2 },
  history: [0, 1, 2, 3, 4].flatMap((turn) => [
    { role: 'user', content: `Task ${turn}: read src/f${turn}.ts` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${turn}`,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `src/f${turn}.ts` }) },
        },
      ],
    },
    { role: 'tool', tool_call_id: `call_${turn}`, content: `export const f${turn} = ${turn};` },
    { role: 'assistant', content: `f${turn} is ${turn}.` },
  ]),
};

const path = Deno.args[0];
const input: Input = path ? JSON.parse(await Deno.readTextFile(path)) : SAMPLE;

// The context manager: one message at a time, compressing when the window is over its threshold.
const manager = createContextManager(input.context);
const compressedAt: number[] = [];
input.chat.forEach((message, index) => {
  manager.add(message);
  if (manager.compressIfNeeded().some((outcome) => outcome.compressed)) compressedAt.push(index);
});

// Compaction: an overlay on the history; the projection is what the model gets.
const { conversation, compaction } = compact(fromOpenAI(input.history), { profile: 'default' });
const { view, tokens } = project(conversation, { format: 'openai' });

console.log(
  JSON.stringify({
    context: { compressedAt, checkpoints: manager.checkpoints, view: manager.view() },
    compaction: { compaction, messages: view.messages, tokens },
  }),
);

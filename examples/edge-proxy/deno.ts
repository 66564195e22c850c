// SPDX-License-Identifier: MIT
// The edge proxy under Deno (Deploy too):
//   deno run --allow-net --allow-read --allow-env --config deno.json deno.ts
// Env: PORT (default 8000; 0 picks a free one), OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
// CONTEXT_WINDOW. In an app, import from "npm:cce-wasm/request"; deno.json maps it to dist/.
import { createProxy } from './proxy.mjs';

const proxy = createProxy({
  upstreams: {
    openai: Deno.env.get('OPENAI_BASE_URL') ?? 'https://api.openai.com',
    anthropic: Deno.env.get('ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com',
  },
  contextWindow: Number(Deno.env.get('CONTEXT_WINDOW') ?? 128000),
});

Deno.serve(
  {
    hostname: '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? 8000),
    onListen: ({ port }) => console.log(`listening on ${port}`),
  },
  proxy,
);

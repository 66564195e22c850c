// SPDX-License-Identifier: MIT
// The edge proxy as a Cloudflare Worker (wrangler deploy): vars OPENAI_BASE_URL,
// ANTHROPIC_BASE_URL (defaults: the providers' APIs) and CONTEXT_WINDOW (default 128000).
import { createProxy } from './proxy.mjs';

export default {
  fetch(request, env) {
    const proxy = createProxy({
      upstreams: {
        openai: env.OPENAI_BASE_URL ?? 'https://api.openai.com',
        anthropic: env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
      },
      contextWindow: Number(env.CONTEXT_WINDOW ?? 128000),
    });
    return proxy(request);
  },
};

// SPDX-License-Identifier: MIT
// An edge proxy that compresses OpenAI and Anthropic requests before forwarding them: point the
// SDK's base URL at it (OpenAI: `baseURL: 'https://proxy.example/v1'`, Anthropic:
// `baseURL: 'https://proxy.example'`). Shared by worker.mjs (Cloudflare Workers) and deno.ts.
import { requestCompressor } from 'cce-wasm/request';

// Path -> [request format, upstream].
const ROUTES = {
  '/v1/chat/completions': ['openai-chat', 'openai'],
  '/v1/responses': ['openai-responses', 'openai'],
  '/v1/messages': ['anthropic', 'anthropic'],
};

/**
 * A fetch handler. `upstreams` holds the base URLs (`{ openai, anthropic }`); the rest are
 * compressRequest's budget options (`tokenBudget`, or `contextWindow` less the body's max tokens).
 * One requestCompressor per format keeps each conversation's compressed prefix the same from
 * request to request while it fits (the provider's prompt cache reads it again), however many
 * conversations go through the proxy.
 */
export function createProxy({ upstreams, ...budget }) {
  const compressors = Object.fromEntries(
    Object.values(ROUTES).map(([provider]) => [provider, requestCompressor({ provider, ...budget })]),
  );
  return async (request) => {
    const url = new URL(request.url);
    const route = ROUTES[url.pathname];
    if (!route || request.method !== 'POST') return new Response('not found', { status: 404 });
    const [provider, upstream] = route;
    let body;
    try {
      body = await request.json();
    } catch {
      return Response.json({ error: { message: 'the body is not JSON' } }, { status: 400 });
    }
    let forwarded = body;
    try {
      forwarded = compressors[provider](body);
    } catch (error) {
      // A body the compressor cannot read goes on as it came: the provider gives the real error.
      if (error?.name !== 'CompressError') throw error;
    }
    const headers = new Headers(request.headers);
    headers.delete('host');
    headers.delete('content-length');
    return fetch(new URL(url.pathname + url.search, upstreams[upstream]), {
      method: 'POST',
      headers,
      body: JSON.stringify(forwarded),
    });
  };
}

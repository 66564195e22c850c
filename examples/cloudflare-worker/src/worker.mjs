// SPDX-License-Identifier: MIT
// A Cloudflare Worker that compresses a conversation: POST {"messages": [...], "options": {...}}.
// Workers forbid compiling wasm from bytes, so the engine arrives as a compiled module import.
import wasmModule from 'cce-wasm/cce.wasm';
import { CompressError, compress, init } from 'cce-wasm/init';

let ready;

export default {
  async fetch(request) {
    if (request.method !== 'POST') {
      return new Response('POST {"messages": [...], "options": {...}} as JSON\n', { status: 405 });
    }
    ready ??= init({ wasmModule });
    await ready;
    let body;
    try {
      body = await request.json();
    } catch {
      return Response.json(
        { error: { code: 'InvalidJson', message: 'the body is not JSON' } },
        { status: 400 },
      );
    }
    try {
      return Response.json(compress(body.messages, body.options ?? {}));
    } catch (error) {
      if (!(error instanceof CompressError)) throw error;
      const { code, message, path } = error;
      return Response.json(
        { error: { code, message, path } },
        { status: code === 'Internal' ? 500 : 400 },
      );
    }
  },
};

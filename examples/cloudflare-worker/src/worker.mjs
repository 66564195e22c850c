// SPDX-License-Identifier: MIT
// A Cloudflare Worker over the engine, as JSON in and out:
//   POST /          {"messages": [...], "options": {...}}  → compress (cce-wasm)
//   POST /compact   {"messages": [OpenAI messages], "options"?: {...}}  → a compaction (default
//                   profile unless options say otherwise) and the projected OpenAI messages
//   POST /context   {"config": {...}, "messages": [...]}  → the messages replayed into a context
//                   manager (compressing whenever due): its checkpoints and view
// Workers forbid compiling wasm from bytes, so each engine arrives as a compiled module import;
// each is instantiated on the first request that needs it.
import wasmModule from 'cce-wasm/cce.wasm';
import sessionWasm from 'cce-wasm/cce-session.wasm';
import { CompressError, compress, init } from 'cce-wasm/init';
import {
  compact,
  createContextManager,
  fromOpenAI,
  init as initSession,
  project,
} from 'cce-wasm/session/init';

let ready;
let sessionReady;

const routes = {
  '/': async (body) => {
    ready ??= init({ wasmModule });
    await ready;
    return compress(body.messages, body.options ?? {});
  },
  '/compact': async (body) => {
    sessionReady ??= initSession({ wasmModule: sessionWasm });
    await sessionReady;
    const { conversation, compaction } = compact(fromOpenAI(body.messages), body.options);
    const { view, tokens } = project(conversation, { format: 'openai' });
    return { compaction, messages: view.messages, tokens };
  },
  '/context': async (body) => {
    sessionReady ??= initSession({ wasmModule: sessionWasm });
    await sessionReady;
    const manager = createContextManager(body.config);
    const compressedAt = [];
    (body.messages ?? []).forEach((message, index) => {
      manager.add(message);
      if (manager.compressIfNeeded().some((o) => o.compressed)) compressedAt.push(index);
    });
    return { compressedAt, checkpoints: manager.checkpoints, view: manager.view() };
  },
};

export default {
  async fetch(request) {
    const route = routes[new URL(request.url).pathname];
    if (request.method !== 'POST' || !route) {
      return new Response('POST / (compress), /compact or /context with a JSON body\n', {
        status: request.method !== 'POST' ? 405 : 404,
      });
    }
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
      return Response.json(await route(body ?? {}));
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

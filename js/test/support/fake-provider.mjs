// SPDX-License-Identifier: MIT
// A fake model provider on 127.0.0.1 for the SDKs' own HTTP clients: it records each request's
// path and JSON body and answers `text` as Anthropic Messages (`/messages`), OpenAI Responses
// (`/responses`) or OpenAI Chat Completions (anything else) would.
import { createServer } from 'node:http';

/** The provider's answer of `text` to a request on `path`. */
export function answerFor(path, text) {
  if (path.endsWith('/messages')) {
    return {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
  }
  if (path.endsWith('/responses')) {
    return {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'gpt-4.1',
      output: [
        { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] },
      ],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    };
  }
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4.1',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** Starts the provider; `received` fills with { path, body } per request. */
export async function startFakeProvider(text) {
  const received = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => {
      received.push({ path: req.url, body: JSON.parse(data) });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answerFor(req.url, text)));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, received, close: () => server.close() };
}

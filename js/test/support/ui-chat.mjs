// SPDX-License-Identifier: MIT
// A useChat history of AI SDK UIMessages and the checks its compressed forms pass, shared by the
// ai 6 suite (js/test/ai-sdk-ui.test.mjs) and the ai 7 one (js/test/node22/).
import assert from 'node:assert/strict';

import { validate } from 'cce-wasm/formats';

const prose = (topic, n = 12) =>
  `While checking ${topic} we saw the deploy of build 4711 retry twice on host eu-west-1a before it paged. `.repeat(n);

/** A useChat history: static and dynamic tools (results, errors, one still running), reasoning,
 * sources, a file and data parts, steps. Fresh objects on every call. */
export function chat(turns = 6) {
  const messages = [{ id: 'sys', role: 'system', parts: [{ type: 'text', text: 'You are the on-call assistant.' }] }];
  for (let t = 0; t < turns; t++) {
    messages.push({
      id: `u${t}`,
      role: 'user',
      parts: [
        { type: 'text', text: `Turn ${t}: ${prose(`incident ${t}`, 4)}` },
        ...(t === 1 ? [{ type: 'file', mediaType: 'image/png', url: 'https://example.com/graph.png' }] : []),
      ],
    });
    messages.push({
      id: `a${t}`,
      role: 'assistant',
      metadata: { model: 'gpt-test' },
      parts: [
        { type: 'step-start' },
        { type: 'reasoning', text: `I should read the logs of incident ${t}.`, providerMetadata: { openai: { itemId: `rs_${t}` } } },
        {
          type: 'tool-readLogs',
          toolCallId: `call_${t}`,
          state: t === 2 ? 'output-error' : 'output-available',
          input: { incident: t, path: `/var/log/deploy-${t}.log` },
          ...(t === 2 ? { errorText: `ENOENT: /var/log/deploy-${t}.log ${prose('the error', 3)}` } : { output: { lines: prose(`log ${t}`, 10), count: 40 + t } }),
          callProviderMetadata: { openai: { itemId: `fc_${t}` } },
        },
        { type: 'dynamic-tool', toolName: 'lookupHost', toolCallId: `dyn_${t}`, state: 'output-available', input: { host: 'eu-west-1a' }, output: `host eu-west-1a: ${prose('the host', 3)}` },
        { type: 'step-start' },
        { type: 'source-url', sourceId: `src_${t}`, url: `https://runbooks.example.com/${t}` },
        { type: 'data-status', id: `status_${t}`, data: { phase: 'done' } },
        { type: 'text', text: `Incident ${t}: ${prose(`the answer ${t}`, 6)}`, state: 'done' },
      ],
    });
  }
  messages.push({ id: 'last', role: 'user', parts: [{ type: 'text', text: 'Which incidents paged twice?' }] });
  return messages;
}

export const toolParts = (messages) =>
  messages.flatMap((m) => m.parts.filter((p) => p.type === 'dynamic-tool' || p.type.startsWith('tool-')));

/** The checks every answer passes, with the `ai` package given (`ai` 6 or 7): the SDK's own
 * validation, ours, and the model prompt convertToModelMessages makes of it is valid. */
export async function checkUiAnswers({ convertToModelMessages, validateUIMessages }, messages, label) {
  await validateUIMessages({ messages });
  assert.deepEqual(validate(messages, { format: 'ai-sdk-ui' }), [], label);
  assert.deepEqual(validate(await convertToModelMessages(messages), { format: 'ai-sdk' }), [], label);
}

/** Every tool part of `output` is one of `input`'s, whole but for its output or errorText. */
export function assertToolPartsWhole(input, output, label) {
  const originals = new Map(toolParts(input).map((p) => [p.toolCallId, p]));
  for (const part of toolParts(output)) {
    const original = originals.get(part.toolCallId);
    assert.ok(original, `${label}: ${part.toolCallId} is the caller's`);
    const { output: _o, errorText: _e, ...rest } = part;
    const { output: _oo, errorText: _ee, ...originalRest } = original;
    assert.deepEqual(rest, originalRest, `${label}: ${part.toolCallId} keeps its call, state and metadata`);
    assert.ok(part.state === 'output-error' ? typeof part.errorText === 'string' : 'output' in part, label);
  }
}

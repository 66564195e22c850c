// SPDX-License-Identifier: MIT
// Numbers cross the session modules as JavaScript reads and writes them. Those modules read a
// decimal and write a double through the host's own Number() and String() (wasm/host_imports.js;
// the native build reproduces both in C++), so every number a caller stores, counts or is told
// must come back as the same double, and every number in a text as String() writes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { estimateTokens } from 'cce-wasm';
import { compact, fromOpenAI, project } from 'cce-wasm/compaction';
import { ContextManager, createContextManager } from 'cce-wasm/context';

// Doubles whose shortest form takes every branch of Number#toString and of reading a decimal:
// exponent forms both ways, the largest and the smallest subnormal, 17 significant digits,
// integers past 2^53, and decimals that are not exact in binary.
const EDGE_NUMBERS = [
  0, 1, -1, 0.1, 0.30000000000000004, 1 / 3, -2 / 3, 4.35, 1e21, 1e-7, 1.5e-7, 123e-20, 1e-6,
  5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 2 ** 53, 2 ** 53 + 2, 2 ** 64,
  123456789012345680000, 9.999999999999999e22, 0.000001234, 1234567.891, -1e300,
];

const payload = { type: 'data', values: EDGE_NUMBERS, nested: { ratio: 1 / 7, big: 1e21 } };

function conversation(count) {
  const messages = [];
  for (let i = 0; i < count; i++) {
    const words = `turn ${i} reads src/module_${i}.ts and reports ${i * 1.25} percent `.repeat(12);
    messages.push(
      i % 3 === 2
        ? { role: 'user', content: [{ type: 'text', text: words }, payload], metadata: { n: EDGE_NUMBERS[i % EDGE_NUMBERS.length] } }
        : { role: i % 2 ? 'assistant' : 'user', content: words },
    );
  }
  return messages;
}

// Counts with fractions that binary cannot hold, so sums and ratios are long doubles.
const tokenCounter = (message) =>
  JSON.stringify(message).length / 3.7 + 0.1;

test('a part holding edge numbers is counted by its JSON text, as String() writes them', () => {
  // Without a tokenCounter the engine estimates a part that is not text from the JSON it writes
  // of the part it read: both numbers' crossings decide that text.
  const chat = createContextManager({ contextWindow: 1e6 });
  const messages = conversation(30);
  chat.addMany(messages);
  const { tokens } = chat.toJSON();
  messages.forEach((m, i) => {
    const expected = Array.isArray(m.content)
      ? estimateTokens(m.content[0].text) + estimateTokens(JSON.stringify(payload))
      : estimateTokens(m.content);
    assert.equal(tokens[i], expected, `tokens[${i}]`);
  });
  // And the stored state, read back by the engine, restores them all.
  const text = JSON.stringify(chat.toJSON());
  const restored = ContextManager.fromJSON(text);
  assert.equal(JSON.stringify(restored.toJSON()), text);
  const values = restored.history[2].content[1].values;
  values.forEach((v, i) => assert.ok(Object.is(v, EDGE_NUMBERS[i]), `${v} != ${EDGE_NUMBERS[i]}`));
});

test('fractional counts, sums and ratios are the doubles JavaScript computes', () => {
  const chat = createContextManager({
    contextWindow: 9000,
    promptBudget: 500,
    safetyMargin: 100,
    keepLast: 4,
    tokenCounter,
  });
  const messages = conversation(40);
  let outcome;
  for (const m of messages) {
    chat.add(m);
    if (chat.shouldCompress()) outcome = chat.compress();
  }
  assert.ok(outcome?.compressed, 'the session compressed at least once');
  const tokens = chat.toJSON().tokens;
  messages.forEach((m, i) => assert.equal(tokens[i], tokenCounter(m), `tokens[${i}]`));
  for (const cp of [...chat.checkpoints, ...chat.archive]) {
    assert.notEqual(cp.originalTokens, Math.round(cp.originalTokens), 'a fractional count');
    assert.equal(cp.compressionRatio, cp.originalTokens / cp.compressedTokens, cp.id);
  }
  // The original tokens of a checkpoint are its messages' counts added in order.
  const first = chat.toJSON().checkpoints[0] ?? chat.archive[0];
  let sum = 0;
  for (let i = first.messageRange.start; i < first.messageRange.end; i++) sum += tokens[i];
  assert.equal(first.originalTokens, sum);
});

test('numbers inside reasons are written as String() writes them', () => {
  const chat = createContextManager({ contextWindow: 2000, tokenCounter: () => 333.3333333333333 });
  for (let i = 0; i < 12; i++) chat.add({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` });
  const { validation } = chat.view();
  const over = validation.reasons.find((r) => r.code === 'overAvailable');
  assert.ok(over, JSON.stringify(validation.reasons));
  assert.ok(!Number.isInteger(validation.tokens));
  assert.equal(
    over.message,
    `the conversation needs ${String(validation.tokens)} tokens but only ${String(validation.available)} are available`,
  );
});

test('compaction keeps the edge numbers of the events it does not clear', () => {
  const messages = [
    { role: 'user', content: 'start' },
    ...conversation(12).slice(1),
  ];
  const conversationIn = fromOpenAI(messages);
  const { conversation: compacted } = compact(conversationIn, { keepLast: 2 });
  const { view } = project(compacted, { format: 'openai' });
  const withPayload = view.messages.filter((m) => Array.isArray(m.content));
  assert.ok(withPayload.length > 0);
  for (const m of withPayload) {
    const values = m.content.find((p) => p.type === 'data').values;
    values.forEach((v, i) => assert.ok(Object.is(v, EDGE_NUMBERS[i]), `${v} != ${EDGE_NUMBERS[i]}`));
  }
});

// SPDX-License-Identifier: MIT
// The demo's bundled conversations are examples, so they are tested: well-formed, listed in the
// manifest, visibly compressed by the package with their suggested options, and restored exactly.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const samplesDir = path.join(root, 'demo/samples');
const manifest = JSON.parse(readFileSync(path.join(samplesDir, 'index.json'), 'utf8'));
const built = existsSync(path.join(root, 'dist/node.js'));
const skip = !built && !process.env.CI ? 'dist/ is not built (npm run build)' : false;

const load = (file) => JSON.parse(readFileSync(path.join(samplesDir, file), 'utf8'));
const lengthOf = (m) => (typeof m.content === 'string' ? m.content.length : 0);

test('the manifest lists every sample file with its message count', () => {
  assert.equal(manifest.length, 3);
  for (const entry of manifest) {
    const messages = load(entry.file);
    assert.ok(Array.isArray(messages), entry.file);
    assert.equal(entry.count, messages.length, `${entry.file} count`);
    assert.ok(entry.title && entry.description, `${entry.file} title/description`);
  }
});

test('samples are well-formed OpenAI-style conversations', () => {
  for (const { file } of manifest) {
    const messages = load(file);
    const ids = new Set();
    const calls = new Set();
    for (const [i, m] of messages.entries()) {
      const where = `${file} #${i}`;
      assert.equal(typeof m.id, 'string', where);
      assert.ok(!ids.has(m.id), `${where}: duplicate id ${m.id}`);
      ids.add(m.id);
      assert.ok(['system', 'user', 'assistant', 'tool'].includes(m.role), where);
      if (m.tool_calls) {
        assert.equal(m.role, 'assistant', where);
        for (const call of m.tool_calls) {
          assert.equal(call.type, 'function', where);
          JSON.parse(call.function.arguments);
          calls.add(call.id);
        }
      } else {
        assert.equal(typeof m.content, 'string', where);
      }
      if (m.role === 'tool')
        assert.ok(calls.has(m.tool_call_id), `${where}: unanswered tool_call_id`);
    }
  }
});

test('the sample shapes match their descriptions', () => {
  const agent = load('coding-agent.json');
  assert.ok(agent.length >= 40 && agent.length <= 80);
  assert.ok(agent.some((m) => m.tool_calls) && agent.some((m) => m.role === 'tool'));
  assert.ok(agent.some((m) => typeof m.content === 'string' && m.content.includes('```')));
  const qa = load('long-qa.json');
  assert.ok(qa.length >= 28);
  assert.ok(qa.filter((m) => m.role === 'assistant').every((m) => lengthOf(m) >= 600));
  const support = load('support-chat.json');
  const counts = new Map();
  for (const m of support)
    if (lengthOf(m) >= 200) counts.set(m.content, (counts.get(m.content) ?? 0) + 1);
  assert.ok(
    [...counts.values()].filter((n) => n >= 2).length >= 2,
    'a repeated log and a repeated apology',
  );
});

test(
  'every sample compresses with its suggested options and round-trips byte for byte',
  { skip },
  async () => {
    const { compress, uncompress } = await import('cce-wasm');
    for (const { file, options } of manifest) {
      const messages = load(file);
      const result = compress(messages, options);
      const c = result.compression;
      assert.ok(c.ratio > 1.3, `${file}: ratio ${c.ratio}`);
      assert.ok(c.messages_compressed > 0, `${file}: nothing compressed`);
      const restored = uncompress(result.messages, result.verbatim);
      assert.equal(JSON.stringify(restored.messages), JSON.stringify(messages), file);
      if (file === 'support-chat.json') {
        assert.ok(c.messages_deduped >= 2, `${file}: exact dups ${c.messages_deduped}`);
        assert.ok(c.messages_fuzzy_deduped >= 1, `${file}: near dups ${c.messages_fuzzy_deduped}`);
      }
      if (file === 'coding-agent.json') assert.ok(c.messages_deduped >= 1, `${file}: re-read file`);
    }
  },
);

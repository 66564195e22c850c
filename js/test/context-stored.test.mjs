// SPDX-License-Identifier: MIT
// A context state stored by an earlier build (js/test/fixtures/context-state-1.json: `state` was
// written by the build of November 2026 before the session module's size work) is read by this
// one: fromJSON restores it exactly, and the restored manager continues the session as recorded in
// `continued` (usage, outcomes, checkpoints with their ratios, the view). `continued` was
// recorded again when the manager's summaries changed on purpose (one summary message per
// checkpoint, tools' argument names in the stats line): the old checkpoints' summaries are kept
// as stored, the new ones are written the new way. The session is
// js/test/support/stored-context.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { ContextManager, createContextManager } from 'cce-wasm/context';
import { clockFrom, continueFrom, saved } from './support/stored-context.mjs';

const fixture = JSON.parse(
  readFileSync(new URL('./fixtures/context-state-1.json', import.meta.url), 'utf8'),
);

test('a stored state loads back exactly, from its text and from its object', () => {
  for (const source of [fixture.state, JSON.parse(fixture.state)]) {
    const manager = ContextManager.fromJSON(source, { clock: clockFrom(100) });
    assert.equal(JSON.stringify(manager.toJSON()), fixture.state);
  }
});

test('a restored manager continues the stored session as recorded', () => {
  const manager = ContextManager.fromJSON(fixture.state, { clock: clockFrom(100) });
  const continued = continueFrom(manager);
  // Compared as parsed values first for a readable diff, then as text (number formatting).
  assert.deepEqual(JSON.parse(continued), JSON.parse(fixture.continued));
  assert.equal(continued, fixture.continued);
});

test('the current build writes the stored session in the same state format', () => {
  // The summaries it writes differ from the stored ones (see above), the shape of the state does
  // not: the same keys at every level a reader walks, in the same order.
  const keysOf = (value) =>
    Array.isArray(value)
      ? [...new Set(value.flatMap(keysOf))].sort()
      : value !== null && typeof value === 'object'
        ? Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v).map((inner) => `${k}.${inner}`)])
        : [];
  const now = JSON.parse(saved({ createContextManager }));
  const stored = JSON.parse(fixture.state);
  assert.deepEqual(Object.keys(now), Object.keys(stored));
  for (const part of ['config', 'messages', 'checkpoints', 'archive', 'events']) {
    assert.ok(part in stored, part);
    assert.deepEqual(keysOf(now[part]), keysOf(stored[part]), part);
  }
  // And what it writes loads back exactly.
  const text = JSON.stringify(now);
  assert.equal(JSON.stringify(ContextManager.fromJSON(text).toJSON()), text);
});

test('the stored session holds what the test is about', () => {
  const state = JSON.parse(fixture.state);
  assert.equal(state.format, 'cce-context/1');
  assert.ok(state.checkpoints.length > 0 && state.archive.length > 0);
  const kinds = new Set(state.events.map((e) => e.type));
  for (const kind of ['create', 'merge', 'undo']) assert.ok(kinds.has(kind), kind);
  // Fractions the engine computed (ratios), and a lone surrogate kept as it is.
  assert.ok(state.checkpoints.some((c) => !Number.isInteger(c.compressionRatio)));
  assert.ok(fixture.state.includes('\\ud800'));
});

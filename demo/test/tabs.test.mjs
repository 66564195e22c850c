// SPDX-License-Identifier: MIT
// End-to-end tests of the demo's live-chat and compaction tabs in headless Chromium
// (playwright-core) against the built dist/ (session engine loaded through dist/session-init.js).
//
// Same harness as e2e.test.mjs: demo/serve.mjs on a free loopback port, no request may leave it.
// Without Chromium, playwright-core or dist/ the tests skip locally and fail when CI is set.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  launchBrowser,
  missingPrerequisite,
  openPage,
  outDir,
  root,
  startServer,
} from './support/browser.mjs';

const missing = missingPrerequisite([
  'dist/session-init.js',
  'dist/cce-session.mjs',
  'dist/cce-session.wasm',
]);
if (missing && process.env.CI) {
  test('demo tabs e2e prerequisites', () => assert.fail(`CI is set but ${missing}`));
}

let server = null;
let browser = null;

before(async () => {
  if (missing) return;
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

/** Opens the demo on a tab and collects page errors and requests that leave the server. */
const openTab = (hash) => openPage(browser, server.url + hash);

/** The `data-<key>` attribute of the first element matching selector. */
const data = (page, selector, key) => page.$eval(selector, (el, k) => el.dataset[k], key);

test(
  'live chat replays the sample to the end, compresses below the window and undoes a checkpoint',
  { skip: missing ?? false, timeout: 120_000 },
  async () => {
    const { page, problems } = await openTab('#live');
    assert.equal(await page.getAttribute('#tab-live', 'aria-selected'), 'true');
    assert.equal(await page.isHidden('#panel-compressor'), true);
    await page.waitForSelector('#live-status[data-state="ready"]', { timeout: 30_000 });
    await page.waitForSelector('#live-next:not([disabled])');

    // The bundled real sample: 37 messages, window 1536 − 150 − 300 − 150 = 936 available,
    // compression due above floor(0.75 × 936) = 702 tokens.
    assert.equal(await data(page, '#live-position', 'total'), '37');
    await page.click('#live-next');
    await page.waitForSelector('#live-position[data-added="1"]');
    assert.equal(await data(page, '#live-meter', 'available'), '936');
    assert.equal(await data(page, '#live-meter', 'threshold'), '702');

    // Play to the end at instant speed, sampling the meter on every step while it runs.
    await page.selectOption('#live-speed', '0');
    await page.evaluate(() => {
      window.__meterSamples = [];
      const meter = document.querySelector('#live-meter');
      new MutationObserver(() =>
        window.__meterSamples.push([meter.dataset.conversation, meter.dataset.available]),
      ).observe(meter, { attributes: true, attributeFilter: ['data-conversation'] });
    });
    await page.click('#live-play');
    await page.waitForSelector('#live-position[data-added="37"]', { timeout: 60_000 });
    await page.waitForSelector('#live-play:disabled');

    const samples = await page.evaluate(() => window.__meterSamples);
    assert.ok(samples.length >= 30, `the meter updated ${samples.length} times`);
    for (const [conversation, available] of samples) {
      assert.ok(
        Number(conversation) <= Number(available),
        `view ${conversation} above available ${available}`,
      );
    }
    const peak = Number(await data(page, '#live-meter', 'peak'));
    assert.ok(peak <= 936, `peak ${peak}`);
    assert.equal(await data(page, '#live-meter', 'over'), 'false');
    // The sample holds 1,794 tokens: without compression the view could not have stayed this low.
    assert.ok(Number(await data(page, '#live-meter', 'conversation')) <= 702);

    const ids = await page.$$eval('#live-checkpoints tbody tr[data-id]', (rows) =>
      rows.map((r) => r.dataset.id),
    );
    assert.ok(ids.length >= 1, `checkpoints: ${ids.join()}`);
    // Every stage of the last compression was reported, ending at validate 100%.
    const stages = await page.$$eval('#live-progress li.done', (lis) =>
      lis.map((li) => li.dataset.stage),
    );
    assert.deepEqual(stages, [
      'identify',
      'prepare',
      'summarize',
      'createCheckpoint',
      'updateContext',
      'validate',
    ]);
    assert.match(await page.textContent('#live-progress li[data-stage="validate"]'), /100%/);
    // The view starts with the summary message, highlighted, and fits.
    assert.ok((await page.locator('#live-view .view-msg.summary').count()) >= 1);
    assert.equal(await data(page, '#live-view', 'fits'), 'true');

    mkdirSync(outDir, { recursive: true });
    await page.screenshot({ path: path.join(outDir, 'demo-live.png'), fullPage: true });

    // Undo the newest checkpoint: its row goes, its messages are sent raw again (more tokens).
    const before = Number(await data(page, '#live-meter', 'conversation'));
    const last = ids[ids.length - 1];
    await page.click(`#live-checkpoints tr[data-id="${last}"] button.undo`);
    await page.waitForSelector(`#live-checkpoints tr[data-id="${last}"]`, { state: 'detached' });
    const remaining = await page.$$eval('#live-checkpoints tbody tr[data-id]', (rows) =>
      rows.map((r) => r.dataset.id),
    );
    assert.deepEqual(remaining, ids.slice(0, -1));
    assert.ok(Number(await data(page, '#live-meter', 'conversation')) > before);
    assert.match(await page.textContent('#live-archive'), new RegExp(`${last} \\(undone\\)`));

    // A setting that leaves nothing for the conversation is the engine's typed error.
    await page.fill('#live-contextWindow', '500');
    await page.dispatchEvent('#live-contextWindow', 'change');
    await page.waitForSelector('#live-error:not([hidden]) .error-code');
    assert.equal(await page.textContent('#live-error .error-code'), 'BudgetTooSmall');
    assert.equal(await page.isDisabled('#live-next'), true);

    // The other sample brings its own settings back and also stays inside its window.
    await page.selectOption('#live-sample', 'coding-agent.json');
    await page.waitForSelector('#live-position[data-added="0"][data-total="49"]');
    assert.equal(await page.isHidden('#live-error'), true);
    await page.click('#live-play');
    await page.waitForSelector('#live-position[data-added="49"]', { timeout: 60_000 });
    const available = Number(await data(page, '#live-meter', 'available'));
    assert.equal(available, 3072 - 200 - 400 - 200);
    assert.ok(Number(await data(page, '#live-meter', 'peak')) <= available);
    assert.ok((await page.locator('#live-checkpoints tbody tr[data-id]').count()) >= 1);

    assert.deepEqual(problems, []);
    await page.close();
  },
);

test(
  'compaction previews fewer tokens for the default profile, applies and undoes a compaction',
  { skip: missing ?? false, timeout: 120_000 },
  async () => {
    const { page, problems } = await openTab('');
    // Switching tabs by clicking loads the tab on demand.
    await page.click('#tab-compaction');
    assert.equal(new URL(page.url()).hash, '#compaction');
    await page.waitForSelector('#cmp-status[data-state="ready"]', { timeout: 30_000 });
    await page.waitForSelector('#cmp-preview:not([disabled])');

    const profiles = await page.$$eval('#cmp-profile option', (os) => os.map((o) => o.value));
    assert.deepEqual(profiles.sort(), ['default', 'heavy', 'light']);
    assert.equal(await page.inputValue('#cmp-profile'), 'default');
    // 7 user requests in the sample → 7 turns.
    assert.equal(await data(page, '#cmp-turns', 'value'), '7');
    const raw = Number(await data(page, '#cmp-raw', 'value'));
    assert.equal(Number(await data(page, '#cmp-before', 'value')), raw, 'no compaction yet');

    await page.click('#cmp-preview');
    await page.waitForSelector('#cmp-tokens[data-preview="true"]');
    const after = Number(await data(page, '#cmp-after', 'value'));
    assert.ok(after < raw, `default profile: ${raw} -> ${after}`);
    // The default profile keeps the last 3 of 7 turns: it covers turns 0–3.
    assert.match(await page.textContent('#cmp-resolved'), /turns 0–3/);
    assert.equal(await data(page, '#cmp-view', 'mode'), 'preview');
    assert.ok((await page.locator('#cmp-view .event.compacted').count()) > 0);
    // A preview appends nothing.
    assert.equal(await page.locator('#cmp-list tbody tr').count(), 0);
    assert.equal(await page.isDisabled('#cmp-undo'), true);

    await page.click('#cmp-apply');
    await page.waitForFunction(() => document.querySelectorAll('#cmp-list tbody tr').length === 1);
    assert.equal(Number(await data(page, '#cmp-before', 'value')), after, 'applied = previewed');
    assert.equal(await data(page, '#cmp-view', 'mode'), 'current');

    // A heavy compaction over turns 4–5 stacks a summary pair on top.
    await page.selectOption('#cmp-profile', 'heavy');
    await page.fill('#cmp-from', '4');
    await page.fill('#cmp-to', '5');
    await page.click('#cmp-apply');
    await page.waitForFunction(() => document.querySelectorAll('#cmp-list tbody tr').length === 2);
    assert.ok((await page.locator('#cmp-view .turn.summary').count()) === 1);
    assert.ok(Number(await data(page, '#cmp-before', 'value')) < after);
    mkdirSync(outDir, { recursive: true });
    await page.screenshot({ path: path.join(outDir, 'demo-compaction.png'), fullPage: true });

    // Undo removes the latest row and restores the previous view's tokens exactly.
    await page.click('#cmp-undo');
    await page.waitForFunction(() => document.querySelectorAll('#cmp-list tbody tr').length === 1);
    assert.equal(Number(await data(page, '#cmp-before', 'value')), after);
    assert.equal(await page.locator('#cmp-view .turn.summary').count(), 0);
    await page.click('#cmp-undo');
    await page.waitForFunction(() => document.querySelectorAll('#cmp-list tbody tr').length === 0);
    assert.equal(Number(await data(page, '#cmp-before', 'value')), raw);

    // An empty range is refused with the engine's typed error, and the tab stays usable.
    await page.fill('#cmp-from', '5');
    await page.fill('#cmp-to', '2');
    await page.click('#cmp-preview');
    await page.waitForSelector('#cmp-error:not([hidden]) .error-code');
    assert.equal(await page.textContent('#cmp-error .error-code'), 'InvalidInput');
    await page.fill('#cmp-from', '');
    await page.fill('#cmp-to', '');
    await page.click('#cmp-preview');
    await page.waitForSelector('#cmp-error', { state: 'hidden' });

    assert.deepEqual(problems, []);
    await page.close();
  },
);

test('the session-tab sample manifest matches its files', () => {
  const dir = path.join(root, 'demo/samples');
  const manifest = JSON.parse(readFileSync(path.join(dir, 'sessions.json'), 'utf8'));
  for (const entry of manifest) {
    const messages = JSON.parse(readFileSync(path.join(dir, entry.file), 'utf8'));
    assert.equal(messages.length, entry.count, entry.file);
    assert.ok(messages.some((m) => Array.isArray(m.tool_calls)), `${entry.file} has tool calls`);
    assert.ok(readFileSync(path.join(dir, entry.file)).length < 60_000, `${entry.file} size`);
    for (const key of ['contextWindow', 'promptBudget', 'safetyMargin', 'threshold', 'keepLast']) {
      assert.equal(typeof entry.live[key], 'number', `${entry.file} live.${key}`);
    }
  }
});

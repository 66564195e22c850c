// SPDX-License-Identifier: MIT
// End-to-end test of the demo page in headless Chromium (playwright-core) against the built dist/.
//
// Starts demo/serve.mjs on a free loopback port, loads a sample, compresses, checks the stats and
// the round trip, exercises the error panel, and saves test-output/demo.png. Without Chromium,
// playwright-core or dist/ the test skips locally and fails when CI is set.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import {
  launchBrowser,
  missingPrerequisite,
  openPage,
  outDir,
  startServer,
} from './support/browser.mjs';

const missing = missingPrerequisite(['dist/init.js', 'dist/cce.mjs', 'dist/cce.wasm']);
if (missing && process.env.CI) {
  test('demo e2e prerequisites', () => assert.fail(`CI is set but ${missing}`));
}

const numberOf = async (page, selector) => Number(await page.getAttribute(selector, 'data-value'));

test(
  'demo page compresses a sample, reports stats and a byte-identical round trip',
  {
    skip: missing ?? false,
    timeout: 120_000,
  },
  async (t) => {
    const { child, url } = await startServer();
    t.after(() => child.kill());
    const browser = await launchBrowser();
    t.after(() => browser.close());
    const { page, problems } = await openPage(browser, url);
    await page.waitForSelector('#engine[data-state="ready"]', { timeout: 30_000 });

    // Load the coding-agent sample and compress it.
    await page.selectOption('#sample', 'coding-agent.json');
    await page.waitForFunction(() => document.querySelector('#input').value.includes('"a49"'));
    const runBefore = Number((await page.getAttribute('#stats', 'data-run')) ?? 0);
    await page.click('#compress');
    await page.waitForFunction(
      (n) => Number(document.querySelector('#stats').dataset.run ?? 0) > n,
      runBefore,
      { timeout: 30_000 },
    );

    const ratio = await numberOf(page, '#stat-ratio');
    const tokenRatio = await numberOf(page, '#stat-token-ratio');
    const compressed = await numberOf(page, '#stat-compressed');
    const preserved = await numberOf(page, '#stat-preserved');
    const deduped = await numberOf(page, '#stat-deduped');
    const timeMs = await numberOf(page, '#stat-time');
    assert.ok(ratio > 1, `ratio ${ratio}`);
    assert.ok(tokenRatio > 1, `token ratio ${tokenRatio}`);
    assert.ok(compressed > 0, `messages compressed ${compressed}`);
    assert.equal(compressed + preserved + deduped, 49, 'every input message is accounted for');
    assert.ok(timeMs >= 0, `time ${timeMs}`);
    const [before, after] = (await page.getAttribute('#stat-tokens', 'data-value'))
      .split('/')
      .map(Number);
    assert.ok(after < before, `tokens ${before} -> ${after}`);

    // Badges and provenance are rendered for the output side.
    const kinds = await page.$$eval('.msg.after', (els) => els.map((el) => el.dataset.kind));
    assert.ok(
      kinds.includes('kept') && kinds.includes('summarized') && kinds.includes('duplicate'),
      kinds.join(),
    );
    assert.ok((await page.locator('.msg.after .prov').count()) > 0, 'provenance rows');
    assert.ok(
      (await page.locator('#chart svg .bar').count()) === 49,
      'one chart column per input message',
    );

    // Round trip: uncompress restores the input byte for byte.
    await page.click('#roundtrip');
    await page.waitForSelector('#roundtrip-result[data-identical]');
    assert.equal(await page.getAttribute('#roundtrip-result', 'data-identical'), 'true');
    assert.match(await page.textContent('#roundtrip-result'), /byte-identical/);

    mkdirSync(outDir, { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(outDir, 'demo.png') });

    // Download hands over {messages, verbatim}.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    assert.equal(download.suggestedFilename(), 'coding-agent.compressed.json');
    const saved = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.deepEqual(Object.keys(saved), ['messages', 'verbatim']);
    assert.equal(saved.messages.length, 49);

    // A budget run reports fits.
    await page.fill('#opt-tokenBudget', '2500');
    await page.click('#compress');
    await page.waitForFunction(
      () => document.querySelector('.card[data-fits]')?.dataset.fits !== 'none',
    );
    assert.ok(
      ['true', 'false'].includes(await page.getAttribute('.card:has(#stat-fits)', 'data-fits')),
    );

    // Bad options: the engine's CompressError is shown with its code and path.
    await page.fill('#opt-recencyWindow', 'four');
    await page.click('#compress');
    await page.waitForSelector('#error:not([hidden]) .error-code');
    assert.equal(await page.textContent('#error .error-code'), 'InvalidInput');
    assert.match(await page.textContent('#error .error-path'), /\/options\/recencyWindow/);
    assert.equal(await page.getAttribute('#opt-recencyWindow', 'aria-invalid'), 'true');

    // Bad JSON is reported before anything reaches the worker.
    await page.fill('#opt-recencyWindow', '');
    await page.fill('#input', '[{"id": "1", "role": "user", "content": }]');
    await page.click('#compress');
    await page.waitForFunction(() =>
      /not valid JSON/.test(document.querySelector('#error').textContent),
    );

    assert.deepEqual(problems, []);
  },
);

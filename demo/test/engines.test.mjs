// SPDX-License-Identifier: MIT
// The demo page in the other browser engines: Firefox (SpiderMonkey) and WebKit (JavaScriptCore,
// Safari's engine), through js/test/support/browsers.mjs. e2e.test.mjs and tabs.test.mjs test the
// page in depth in Chromium; here the main path runs in each other engine: load a sample,
// compress it in the worker, restore it byte for byte, and show an engine error. Only DOM calls
// through evaluate, which every driver has. A missing browser skips locally and fails in CI.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  BROWSERS,
  browserMissing,
  launchBrowser,
  wrongEngine,
} from '../../js/test/support/browsers.mjs';
import { missingPrerequisite, startServer } from './support/browser.mjs';

const missingDist = missingPrerequisite(['dist/init.js', 'dist/cce.mjs', 'dist/cce.wasm']);

let server = null;
before(async () => {
  if (!missingDist) server = await startServer();
});
after(() => server?.child.kill());

for (const engine of BROWSERS.filter((b) => b.name !== 'Chromium')) {
  describe(engine.name, () => {
    test('the demo compresses a sample, restores it byte for byte and shows an engine error', { timeout: 120_000 }, async (t) => {
      const missing = missingDist ?? (await browserMissing(engine));
      if (missing) {
        if (process.env.CI) assert.fail(`CI is set but ${missing}`);
        t.skip(missing);
        return;
      }
      const browser = await launchBrowser(engine);
      t.after(() => browser.close());
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(server.url);
      await page.waitForFunction(
        () => document.querySelector('#engine')?.dataset.state === 'ready',
        { timeout: 30_000 },
      );
      assert.equal(await wrongEngine(engine, page), undefined, 'the page runs in its engine');

      // Load the coding-agent sample, as choosing it in the list does.
      await page.evaluate(() => {
        const sample = document.querySelector('#sample');
        sample.value = 'coding-agent.json';
        sample.dispatchEvent(new Event('change', { bubbles: true }));
      });
      await page.waitForFunction(() => document.querySelector('#input').value.includes('"a49"'), {
        timeout: 30_000,
      });

      await page.evaluate(() => {
        window.__runBefore = Number(document.querySelector('#stats').dataset.run ?? 0);
        document.querySelector('#compress').click();
      });
      await page.waitForFunction(
        () => Number(document.querySelector('#stats').dataset.run ?? 0) > window.__runBefore,
        { timeout: 30_000 },
      );
      const stats = await page.evaluate(() => {
        const value = (id) => Number(document.querySelector(id).dataset.value);
        return {
          ratio: value('#stat-ratio'),
          accounted: value('#stat-compressed') + value('#stat-preserved') + value('#stat-deduped'),
          compressed: value('#stat-compressed'),
        };
      });
      assert.ok(stats.ratio > 1, `ratio ${stats.ratio}`);
      assert.ok(stats.compressed > 0);
      assert.equal(stats.accounted, 49, 'every input message is accounted for');

      await page.evaluate(() => document.querySelector('#roundtrip').click());
      await page.waitForFunction(
        () => document.querySelector('#roundtrip-result')?.dataset.identical !== undefined,
        { timeout: 30_000 },
      );
      assert.equal(
        await page.evaluate(() => document.querySelector('#roundtrip-result').dataset.identical),
        'true',
      );

      // Bad options reach the engine, whose CompressError the page shows with its code.
      await page.evaluate(() => {
        const field = document.querySelector('#opt-recencyWindow');
        field.value = 'four';
        field.dispatchEvent(new Event('input', { bubbles: true }));
        document.querySelector('#compress').click();
      });
      await page.waitForFunction(
        () => !document.querySelector('#error').hidden && !!document.querySelector('#error .error-code'),
        { timeout: 30_000 },
      );
      assert.equal(
        await page.evaluate(() => document.querySelector('#error .error-code').textContent),
        'InvalidInput',
      );
      assert.deepEqual(errors, []);
    });
  });
}

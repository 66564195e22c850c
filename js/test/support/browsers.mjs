// SPDX-License-Identifier: MIT
// The three browser engines the tests run pages in, behind one small page interface: Chromium (V8)
// through playwright-core, Firefox (SpiderMonkey; Debian's ESR) through puppeteer-core's WebDriver
// BiDi, which drives a stock Firefox where Playwright needs its own build, and WebKit
// (JavaScriptCore, Safari's engine; WebKitGTK) through WebKitWebDriver (webkit.mjs).
//
// A page has on('pageerror', fn) (never called for WebKit: WebDriver classic reports no uncaught
// errors, so its pages rely on their own failure reports), goto(url), evaluate(fn, arg) and
// waitForFunction(fn, { timeout }).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CHROMIUM_FLAGS } from './chromium.mjs';
import { launchWebKit, WEBKIT_MINIBROWSER, webkitMissing } from './webkit.mjs';

const importOptional = (name) => import(name).catch(() => undefined);

export const BROWSERS = [
  {
    name: 'Chromium',
    executable: [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'],
    apt: 'chromium',
    driver: 'playwright-core',
    userAgent: / (Headless)?Chrome\/\d+/,
    async open(driver, executablePath, profile) {
      const context = await driver.chromium.launchPersistentContext(profile, {
        executablePath,
        headless: true,
        args: CHROMIUM_FLAGS,
      });
      return {
        async newPage() {
          const page = await context.newPage();
          // Playwright's signature is (fn, arg, options).
          const wait = page.waitForFunction.bind(page);
          page.waitForFunction = (fn, options) => wait(fn, null, options);
          return page;
        },
        close: () => context.close(),
      };
    },
  },
  {
    name: 'Firefox',
    executable: [process.env.FIREFOX_PATH, '/usr/bin/firefox-esr', '/usr/bin/firefox'],
    apt: 'firefox-esr',
    driver: 'puppeteer-core',
    userAgent: / Firefox\/\d+/,
    async open(driver, executablePath, profile) {
      const browser = await driver.default.launch({
        browser: 'firefox',
        executablePath,
        headless: true,
        userDataDir: profile,
      });
      return { newPage: () => browser.newPage(), close: () => browser.close() };
    },
  },
  {
    name: 'WebKit',
    executable: [WEBKIT_MINIBROWSER],
    apt: 'webkit2gtk-driver xvfb',
    missing: webkitMissing,
    userAgent: / Version\/[\d.]+ Safari\//,
    open: () => launchWebKit(),
  },
];

/** Why `engine` cannot run here (a hint naming what to install), or undefined when it can. */
export async function browserMissing(engine) {
  const executable = engine.executable.find((p) => p && existsSync(p));
  if (!executable || engine.missing?.()) return `${engine.name} (apt-get install -y ${engine.apt})`;
  if (engine.driver && !(await importOptional(engine.driver))) {
    return `${engine.driver} (npm install: a devDependency)`;
  }
  return undefined;
}

/**
 * Launches `engine` with a fresh profile; returns newPage() and close(). Each page checks, once
 * loaded, that it runs in the engine it names (pageEngineCheck).
 */
export async function launchBrowser(engine) {
  const executable = engine.executable.find((p) => p && existsSync(p));
  const driver = engine.driver && (await importOptional(engine.driver));
  const profile = mkdtempSync(join(tmpdir(), `cce-${engine.name.toLowerCase()}-`));
  const browser = await engine.open(driver, executable, profile);
  return {
    newPage: () => browser.newPage(),
    async close() {
      try {
        await browser.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

/** The page's user agent, when it is not the one of `engine` (a page run by another browser). */
export async function wrongEngine(engine, page) {
  const agent = await page.evaluate(() => navigator.userAgent);
  return engine.userAgent.test(agent) ? undefined : agent;
}

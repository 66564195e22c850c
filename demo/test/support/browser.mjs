// SPDX-License-Identifier: MIT
// Harness shared by the demo's Chromium tests: prerequisites, demo/serve.mjs on a free loopback
// port, and pages that record errors and any request leaving that server.
//
// Not a *.test.mjs file: scripts/test-all.mjs runs only demo/test/*.test.mjs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { CHROMIUM_FLAGS } from '../../../js/test/support/chromium.mjs';

/** The project root. */
export const root = fileURLToPath(new URL('../../..', import.meta.url));
/** Where the tests save their screenshots. */
export const outDir = path.join(root, 'test-output');
export const CHROMIUM = process.env.CCE_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', ...CHROMIUM_FLAGS];

/**
 * Why the browser tests cannot run here (Chromium, playwright-core or one of `distFiles` is
 * missing), or null when they can.
 */
export function missingPrerequisite(distFiles) {
  if (!existsSync(CHROMIUM)) return `Chromium not found at ${CHROMIUM} (apt-get install chromium)`;
  try {
    createRequire(import.meta.url).resolve('playwright-core');
  } catch {
    return 'playwright-core is not installed (npm ci)';
  }
  for (const file of distFiles) {
    if (!existsSync(path.join(root, file))) return `${file} is missing (npm run build)`;
  }
  return null;
}

/** Starts serve.mjs on port 0 and resolves with the demo URL it prints. */
export function startServer() {
  const child = spawn(process.execPath, [path.join(root, 'demo/serve.mjs'), '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`serve.mjs did not start: ${out}${err}`)),
      10_000,
    );
    child.stderr.on('data', (chunk) => (err += chunk));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /cce-wasm demo: (http:\/\/127\.0\.0\.1:\d+\/demo\/)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve.mjs exited with ${code}: ${err}`));
    });
  });
}

/** Launches headless Chromium through playwright-core. */
export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/**
 * Opens `url` in a new page and collects page errors, console errors and requests that leave the
 * server `url` belongs to.
 */
export async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
  // The page must work offline: any request that leaves the local server is a failure.
  const origin = new URL(url).origin;
  page.on('request', (req) => {
    if (!req.url().startsWith(origin) && !/^(data|blob):/.test(req.url())) {
      problems.push(`external request: ${req.url()}`);
    }
  });
  await page.goto(url);
  return { page, problems };
}

// SPDX-License-Identifier: MIT
// WebKit for the browser tests: WebKitGTK's MiniBrowser (JavaScriptCore and WebKit, the engine of
// Safari) driven by WebKitWebDriver over the W3C WebDriver protocol, on an Xvfb display since
// MiniBrowser has no headless mode. No client library: the few commands the tests need are plain
// HTTP, and neither Playwright nor Puppeteer drives a stock WebKit.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export const WEBKIT_MINIBROWSER = [
  process.env.WEBKIT_MINIBROWSER,
  '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
].find((p) => p && existsSync(p));

/** What the WebKit tests need besides MiniBrowser, or undefined when all is there. */
export function webkitMissing() {
  for (const tool of ['/usr/bin/WebKitWebDriver', '/usr/bin/Xvfb']) {
    if (!existsSync(tool)) return tool;
  }
  return WEBKIT_MINIBROWSER ? undefined : 'MiniBrowser';
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts Xvfb, WebKitWebDriver and one MiniBrowser session; returns `newPage()` (the session's
 * window, with the part of a Playwright page the tests use) and `close()`.
 */
export async function launchWebKit() {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  const display = await new Promise((resolve, reject) => {
    xvfb.once('error', reject);
    xvfb.stdio[3].once('data', (data) => resolve(`:${String(data).trim()}`));
  });
  const port = await freePort();
  const driver = spawn('/usr/bin/WebKitWebDriver', [`--port=${port}`], {
    stdio: 'ignore',
    env: { ...process.env, DISPLAY: display },
  });
  const stop = () => {
    driver.kill();
    xvfb.kill();
  };
  const call = async (method, path, body) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const { value } = await response.json();
    // An error answer has an error status (a script's own result may hold an "error" field).
    if (!response.ok) throw new Error(`WebDriver ${value?.error}: ${value?.message}`);
    return value;
  };
  let session;
  try {
    for (let attempt = 0; session === undefined; attempt++) {
      try {
        session = await call('POST', '/session', {
          capabilities: {
            alwaysMatch: {
              'webkitgtk:browserOptions': { binary: WEBKIT_MINIBROWSER, args: ['--automation'] },
            },
          },
        });
      } catch (error) {
        if (attempt >= 50) throw error; // the driver takes a moment to listen
        await sleep(100);
      }
    }
  } catch (error) {
    stop();
    throw error;
  }
  const at = `/session/${session.sessionId}`;
  const run = (fn, arg) =>
    call('POST', `${at}/execute/sync`, { script: `return (${fn})(arguments[0]);`, args: [arg] });
  const page = {
    // WebDriver classic reports no uncaught page errors; the pages report their own failures.
    on() {},
    goto: (url) => call('POST', `${at}/url`, { url }),
    evaluate: (fn, arg) => run(fn, arg),
    async waitForFunction(fn, options = {}) {
      const until = Date.now() + (options.timeout ?? 30_000);
      while (!(await run(fn))) {
        if (Date.now() > until) throw new Error(`WebKit: timed out waiting for ${fn}`);
        await sleep(100);
      }
    },
  };
  return {
    newPage: async () => page,
    close: async () => {
      try {
        await call('DELETE', at);
      } finally {
        stop();
      }
    },
  };
}

// SPDX-License-Identifier: MIT
// The package in a Next.js app's route handler (the Node runtime), the most common home of AI SDK
// apps: built with Turbopack (Next 16's default) and with webpack (`next build --webpack`, the
// default before 16), then served by `next start`. webpack's server bundles turn the entries'
// `new URL('./x.wasm', import.meta.url)` into a web path, which is no file; the entries then read
// the wasm from beside the module webpack bundled. The package is installed from its tarball.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { installTarball, packTarball } from './support/packed.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const next = join(root, 'node_modules/.bin/next');
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_COLOR: '1' };

const ROUTE = `import { compress, uncompress } from 'cce-wasm';
import { createContextManager } from 'cce-wasm/context';
import { compressRequest } from 'cce-wasm/request';

export async function POST(request) {
  const { messages } = await request.json();
  const result = compress(messages, { tokenBudget: 60 });
  const restored = uncompress(result.messages, result.verbatim).messages;
  const manager = createContextManager({ contextWindow: 1200, promptBudget: 100, keepLast: 1 });
  for (const { role, content } of messages) manager.add({ role, content });
  const body = compressRequest(
    { model: 'gpt-4o', messages: messages.map(({ role, content }) => ({ role, content })) },
    { provider: 'openai-chat', tokenBudget: 60 },
  );
  return Response.json({
    fits: result.fits,
    shorter: result.messages[0].content.length < messages[0].content.length,
    roundTrip: JSON.stringify(restored) === JSON.stringify(messages),
    context: manager.usage().messages,
    request: body.messages[0].content.length < messages[0].content.length,
  });
}
`;
const LONG = 'The deployment pipeline retries each failed stage twice before paging. '.repeat(20);
const MESSAGES = [
  { id: '1', index: 0, role: 'user', content: LONG },
  { id: '2', index: 1, role: 'assistant', content: 'ok' },
  { id: '3', index: 2, role: 'user', content: 'and then?' },
];
const EXPECTED = { fits: true, shorter: true, roundTrip: true, context: 3, request: true };

let dir;
let app;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cce-next-'));
  const { tarball } = await packTarball(dir);
  // Inside the checkout, so that Next finds next, react and react-dom in its node_modules (Turbopack
  // compiles nothing outside the workspace root, so links from elsewhere would not do).
  mkdirSync(join(root, 'build'), { recursive: true });
  app = mkdtempSync(join(root, 'build', 'next-app-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await installTarball(tarball, app);
  mkdirSync(join(app, 'app/api/compress'), { recursive: true });
  writeFileSync(join(app, 'app/layout.js'), 'export default function Layout({ children }) { return children; }\n');
  writeFileSync(join(app, 'app/page.js'), 'export default function Page() { return null; }\n');
  writeFileSync(join(app, 'app/api/compress/route.js'), ROUTE);
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (app) rmSync(app, { recursive: true, force: true });
});

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Builds the app with `buildArgs`, serves it with `next start` and posts MESSAGES to the route. */
async function buildAndCall(buildArgs) {
  rmSync(join(app, '.next'), { recursive: true, force: true });
  await exec(next, ['build', ...buildArgs], { cwd: app, env, timeout: 300_000, maxBuffer: 64 << 20 });
  const port = await freePort();
  const server = spawn(next, ['start', '-H', '127.0.0.1', '-p', String(port)], { cwd: app, env, stdio: 'pipe' });
  let output = '';
  server.stdout.on('data', (d) => (output += d));
  server.stderr.on('data', (d) => (output += d));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/compress`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ messages: MESSAGES }),
        });
        assert.equal(response.status, 200, output);
        return await response.json();
      } catch (error) {
        if (error?.cause?.code !== 'ECONNREFUSED' || attempt >= 300) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    server.kill();
  }
}

describe('Next.js route handler (Node runtime)', () => {
  test('next build (Turbopack) and next start', async () => {
    assert.deepEqual(await buildAndCall([]), EXPECTED);
  });

  test('next build --webpack and next start (the wasm read from beside the bundled module)', async () => {
    assert.deepEqual(await buildAndCall(['--webpack']), EXPECTED);
  });
});

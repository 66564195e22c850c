#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Dependency-free static server for the demo: serves the project root on loopback only.
//
//   node demo/serve.mjs [--port N] [--host 127.0.0.1] [--root DIR]
//
// `--port 0` picks a free port. The first line printed is `cce-wasm demo: <url>` (the e2e test
// reads it). Only GET and HEAD; no directory listings; nothing outside the root is reachable.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.mts': 'text/plain; charset=utf-8',
};
// Binding anything but loopback would publish the working tree to the network.
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function usage(message) {
  if (message) console.error(`serve.mjs: ${message}`);
  console.error('usage: node demo/serve.mjs [--port N] [--host 127.0.0.1] [--root DIR]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {
    port: Number(process.env.PORT ?? 8787),
    host: '127.0.0.1',
    root: fileURLToPath(new URL('..', import.meta.url)),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) usage(`${flag} needs a value`);
      return v;
    };
    if (flag === '--port' || flag === '-p') opts.port = Number(value());
    else if (flag === '--host') opts.host = value();
    else if (flag === '--root') opts.root = path.resolve(value());
    else if (flag === '--help' || flag === '-h') usage();
    else usage(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) usage('bad --port');
  if (!LOOPBACK.has(opts.host)) usage(`--host must be a loopback address (got ${opts.host})`);
  return opts;
}

async function resolveFile(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { status: 400 };
  }
  if (decoded.includes('\0')) return { status: 400 };
  // Dot files and folders (.git, .ci, .env) are never part of the demo.
  if (decoded.split('/').some((segment) => segment.startsWith('.'))) return { status: 404 };
  const file = path.resolve(root, '.' + path.posix.normalize('/' + decoded));
  if (file !== root && !file.startsWith(root + path.sep)) return { status: 403 };
  try {
    let info = await stat(file);
    if (info.isDirectory()) {
      // Relative URLs in index.html only work when the directory URL ends in a slash.
      if (!urlPath.endsWith('/')) return { status: 301, location: urlPath + '/' };
      const index = path.join(file, 'index.html');
      info = await stat(index);
      return { status: 200, file: index, size: info.size };
    }
    return { status: 200, file, size: info.size };
  } catch {
    return { status: 404 };
  }
}

function start({ port, host, root }) {
  root = root.replace(/[\\/]+$/, '') || root;
  const server = createServer(async (req, res) => {
    const send = (status, text, headers = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(405, 'method not allowed\n', { allow: 'GET, HEAD' });
    }
    const { pathname, search } = new URL(req.url, 'http://localhost');
    if (pathname === '/') return send(302, 'see /demo/\n', { location: '/demo/' });
    const hit = await resolveFile(root, pathname);
    if (hit.status === 301) {
      return send(301, 'moved\n', { location: hit.location + search });
    }
    if (hit.status !== 200) return send(hit.status, `${hit.status}\n`);
    res.writeHead(200, {
      'content-type': MIME[path.extname(hit.file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': hit.size,
      // A dev server: always serve the freshly built dist/.
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(hit.file)
      .on('error', () => res.destroy())
      .pipe(res);
  });
  server.on('error', (err) => {
    console.error(`serve.mjs: ${err.message}`);
    process.exit(1);
  });
  server.listen(port, host, () => {
    const { port: actual } = server.address();
    const shown = host.includes(':') ? `[${host}]` : host;
    console.log(`cce-wasm demo: http://${shown}:${actual}/demo/`);
    console.log(`serving ${root} (Ctrl+C to stop)`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return server;
}

start(parseArgs(process.argv.slice(2)));

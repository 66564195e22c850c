#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// `npm start`: set up and build whatever is missing, then compress a bundled conversation through
// the wasm package and print a before/after report, with the command that opens the demo.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' };
const sampleName = process.argv[2] || 'coding-agent.json';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

// The newest modification time under `dir` (sources that the package is built from).
function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(path) : statSync(join(root, path)).mtimeMs);
  }
  return t;
}

run('bash', ['scripts/setup.sh']);
// dist/node.js is the package's Node entry (the `node` export condition), which reads
// cce-fast.wasm; index.js fetches cce.wasm.
const built = ['dist/node.js', 'dist/cce.wasm', 'dist/cce.mjs', 'dist/cce-fast.wasm'].map((f) =>
  join(root, f),
);
const stale = !built.every(existsSync) ||
  Math.max(newest('src'), newest('js/src'), newest('wasm')) > statSync(built[1]).mtimeMs;
if (stale) {
  console.log('building the wasm package (first run takes a minute or two)...');
  run('npm', ['run', '--silent', 'build']);
}

const { compress, uncompress, defaultTokenCounter } = await import(pathToFileURL(built[0]).href);
const samples = JSON.parse(readFileSync(join(root, 'demo/samples/index.json'), 'utf8'));
const sample = samples.find((s) => s.file === sampleName) ?? { file: sampleName, options: {} };
const messages = JSON.parse(readFileSync(join(root, 'demo/samples', sample.file), 'utf8'));

const started = performance.now();
const result = compress(messages, sample.options ?? {});
const ms = performance.now() - started;

const chars = (list) => list.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);
const tokens = (list) => list.reduce((n, m) => n + defaultTokenCounter(m), 0);
const badge = (m) => {
  const original = m.metadata?._cce_original;
  if (!original) return 'kept';
  const c = typeof m.content === 'string' ? m.content : '';
  if (c.startsWith('[cce:dup')) return 'duplicate';
  if (c.startsWith('[cce:near-dup')) return 'near-dup';
  if (c.startsWith('[truncated')) return 'truncated';
  return original.ids.length > 1 ? `merged ${original.ids.length}` : 'summarized';
};
const snippet = (m) => {
  const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 88 ? flat.slice(0, 85) + '...' : flat;
};

console.log(`\ncce-wasm: ${sample.title ?? sample.file} (demo/samples/${sample.file})`);
console.log(`options: ${JSON.stringify(sample.options ?? {})}\n`);
for (const m of result.messages) {
  console.log(`${String(m.id).padEnd(6)} ${String(m.role ?? '').padEnd(9)} ${badge(m).padEnd(10)} ${snippet(m)}`);
}
const s = result.compression;
console.log(`
messages   ${messages.length} -> ${result.messages.length} (compressed ${s.messages_compressed}, preserved ${s.messages_preserved}, deduped ${s.messages_deduped ?? 0}, near-dup ${s.messages_fuzzy_deduped ?? 0})
characters ${chars(messages)} -> ${chars(result.messages)} (ratio ${s.ratio.toFixed(2)})
tokens     ${tokens(messages)} -> ${tokens(result.messages)} (token ratio ${s.token_ratio.toFixed(2)}, default counter)
time       ${ms.toFixed(2)} ms (first call, includes warm-up)`);

const restored = uncompress(result.messages, result.verbatim);
const same = JSON.stringify(restored.messages) === JSON.stringify(messages);
console.log(`round trip ${same ? 'uncompress restores the input byte for byte' : 'DIFFERS from the input'}`);
console.log('\nSee it in the browser: npm run demo   (then open the printed http://127.0.0.1 URL)');
process.exit(same ? 0 : 1);

#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// `npm test`: every suite of the project in order — native build and doctest (ctest), native
// conformance, the wasm package build, type checks, JS tests (API, runtimes, demo), conformance
// through wasm, the size budget, the native tests under sanitizers, a short fuzz run — then one
// closing line with the summed counts.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The reference corpus and data sets, unpacked from the repository's tests/corpus by the first step.
const shared = resolve(root, 'build', 'testdata');
const env = { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' };
const quick = process.argv.includes('--quick');  // skip the slow extras (fuzz) for local loops

// How to read each tool's own closing line into passed/failed counts.
const counters = {
  ctest: (out) => {
    const m = out.match(/(\d+)% tests passed, (\d+) tests failed out of (\d+)/);
    return m && { passed: Number(m[3]) - Number(m[2]), failed: Number(m[2]) };
  },
  plain: (out) => {
    const all = [...out.matchAll(/^(\d+) passed, (\d+) failed/gm)];
    if (all.length === 0) return null;
    return all.reduce((t, m) => ({ passed: t.passed + Number(m[1]), failed: t.failed + Number(m[2]) }),
                      { passed: 0, failed: 0 });
  },
  nodeTest: (out) => {
    const pass = out.match(/^# pass (\d+)/m);
    const fail = out.match(/^# fail (\d+)/m);
    return pass && { passed: Number(pass[1]), failed: fail ? Number(fail[1]) : 0 };
  },
};

// *.test.mjs only: a directory argument would also run the test helpers in js/test/support.
function testFiles(dir) {
  return readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.test.mjs'))
    .sort()
    .map((f) => `${dir}/${f}`);
}

// Run again under Node 22 (most users' Node now; ai 7 and openai 7 require it): the loaders, the
// public entries, the formats and integrations, the sessions and the error paths (about 45 s).
const NODE22_SUITES = ['api', 'init', 'runtimes', 'formats', 'ai-sdk', 'langchain', 'request', 'context', 'compaction', 'bad-input', 'errors', 'hostile'];
// And under Node 18, the oldest Node that package.json's engines names: the entries, loaders,
// formats and sessions (the suites whose dev dependencies still run there; about 30 s).
const NODE18_SUITES = ['api', 'init', 'formats', 'context', 'context-formats', 'compaction', 'bad-input', 'errors', 'hostile', 'ai-sdk-ui', 'session-numbers', 'session-json'];
// And under Node 24 (the active LTS) and Node 26 (the current release), what most users run: the
// entries, formats, integrations, sessions, error paths and the installed tarball (require()
// included); about a minute each. Node 26's runner reports in its spec form unless told TAP.
const LATER_NODE_SUITES = ['api', 'init', 'formats', 'ai-sdk', 'ai-sdk-ui', 'langchain', 'request', 'context', 'context-formats', 'compaction', 'bad-input', 'errors', 'hostile', 'pack', 'session-numbers', 'session-json'];
const laterNode = (major, what) => ({
  name: `js tests under Node ${major} (${what}: entries, formats, integrations, sessions, package)`,
  cmd: `build/node${major}/bin/node`,
  args: ['--test', '--test-reporter=tap', ...LATER_NODE_SUITES.map((s) => `js/test/${s}.test.mjs`)],
  count: 'nodeTest',
});

const steps = [
  { name: 'setup (system packages, npm ci)', cmd: 'bash', args: ['scripts/setup.sh'] },
  { name: 'setup (unpack tests/corpus)', cmd: 'node', args: ['scripts/testdata.mjs'] },
  { name: 'native build', cmd: 'cmake', args: ['-S', '.', '-B', 'build', '-DCMAKE_BUILD_TYPE=Release'] },
  { name: 'native build', cmd: 'cmake', args: ['--build', 'build', '-j2'] },
  { name: 'native unit + golden tests (ctest)', cmd: 'ctest', args: ['--test-dir', 'build', '--output-on-failure'], count: 'ctest' },
  { name: 'native conformance (public corpus)', cmd: 'build/cce', args: ['conformance', join(shared, 'conformance/public')], count: 'plain' },
  { name: 'native conformance (scale session)', cmd: 'build/cce', args: ['conformance', join(shared, 'conformance/scale')], count: 'plain' },
  { name: 'wasm + js build', cmd: 'npm', args: ['run', '--silent', 'build'] },
  { name: 'type checks (tsc --strict)', cmd: 'npm', args: ['run', '--silent', 'typecheck'] },
  { name: 'type checks under TypeScript 7', cmd: 'bash', args: ['-c', ['js/tsconfig.json --noEmit', 'js/test/tsconfig.json', 'js/test/tsconfig.integrations.json'].map((p) => `node build/typescript7/node_modules/typescript/bin/tsc -p ${p}`).join(' && ')] },
  { name: 'js tests (api, runtimes, package)', cmd: 'node', args: ['--test', ...testFiles('js/test')], count: 'nodeTest' },
  { name: 'js tests under Node 22 (ai 7; the entries, formats, integrations and sessions again)', cmd: 'build/node22/bin/node', args: ['--test', ...testFiles('js/test/node22'), ...NODE22_SUITES.map((s) => `js/test/${s}.test.mjs`)], count: 'nodeTest' },
  { name: 'js tests under Node 18 (the oldest in engines: entries, formats, sessions)', cmd: 'build/node18/bin/node', args: ['--test', ...NODE18_SUITES.map((s) => `js/test/${s}.test.mjs`)], count: 'nodeTest' },
  laterNode(24, 'the active LTS'),
  laterNode(26, 'the current release'),
  { name: 'demo tests (samples; e2e in Chromium, Firefox, WebKit)', cmd: 'node', args: ['--test', ...testFiles('demo/test')], count: 'nodeTest' },
  { name: 'wasm conformance, speed build (public corpus)', cmd: 'node', args: ['scripts/conformance.mjs', join(shared, 'conformance/public')], count: 'plain' },
  { name: 'wasm conformance, speed build (scale session)', cmd: 'node', args: ['scripts/conformance.mjs', '--scale', join(shared, 'conformance/scale')], count: 'plain' },
  { name: 'wasm conformance, size build (public corpus)', cmd: 'node', args: ['scripts/conformance.mjs', join(shared, 'conformance/public'), '--wasm', 'dist/cce.wasm'], count: 'plain' },
  { name: 'wasm conformance, size build (scale session)', cmd: 'node', args: ['scripts/conformance.mjs', '--scale', join(shared, 'conformance/scale'), '--wasm', 'dist/cce.wasm'], count: 'plain' },
  { name: 'size budget', cmd: 'node', args: ['scripts/check-size.mjs'] },
  { name: 'native tests under ASan + LSan + UBSan', cmd: 'bash', args: ['scripts/sanitize.sh'], count: 'ctest', slow: true },
  { name: 'fuzz (60 s, libFuzzer + ASan/UBSan)', cmd: 'bash', args: ['scripts/fuzz.sh', '60'], slow: true, optional: 'scripts/fuzz.sh' },
];

const results = [];
let totals = { passed: 0, failed: 0 };
for (const step of steps) {
  if (quick && step.slow) continue;
  if (step.optional && !existsSync(join(root, step.optional))) continue;
  console.log(`\n=== ${step.name}: ${step.cmd} ${step.args.join(' ')}`);
  const started = Date.now();
  const run = spawnSync(step.cmd, step.args, { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const output = (run.stdout || '') + (run.stderr || '');
  process.stdout.write(output.length > 20000 ? output.slice(0, 4000) + '\n[...]\n' + output.slice(-12000) : output);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = run.status === 0;
  const counted = step.count ? counters[step.count](output) : null;
  if (counted) {
    totals = { passed: totals.passed + counted.passed, failed: totals.failed + counted.failed };
  } else if (!ok) {
    totals.failed += 1;  // a step without countable tests still counts as one failure
  }
  results.push({ name: step.name, ok, seconds, counted });
  if (!ok) console.log(`--- ${step.name} FAILED (exit ${run.status ?? run.signal})`);
  if (!ok && !step.count && /build|setup/.test(step.name)) break;  // nothing after a failed build is meaningful
}

console.log('\n=== summary');
for (const r of results) {
  const counts = r.counted ? ` (${r.counted.passed} passed, ${r.counted.failed} failed)` : '';
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${counts} ${r.seconds}s`);
}
const allOk = results.every((r) => r.ok) && results.length > 0;
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(allOk && totals.failed === 0 ? 0 : 1);

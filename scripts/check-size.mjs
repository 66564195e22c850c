#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Raw, gzip and brotli bytes of what a browser downloads (wasm + glue + wrapper), against size-budget.json.
// The wrapper is measured as shipped (readable ES modules) and as a production bundle holds it
// (esbuild --bundle --minify of the browser entry): alone, and with the glue it imports, which a
// bundler inlines into the same chunk. Wasm + that one JS file is what a web app serves.
// Exit code 1 when any gzip figure is over its budget.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const budget = JSON.parse(readFileSync(new URL('size-budget.json', root), 'utf8'));

/** The JS modules the default browser entry pulls in, found by following its static imports. */
function moduleGraph(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(new URL(`dist/${file}`, root), 'utf8');
    for (const m of text.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]\.\/([^'"]+)['"]/g,
    ))
      visit(m[1]);
  };
  visit(entry);
  return [...seen];
}

function measure(files) {
  return measureBytes(Buffer.concat(files.map((f) => readFileSync(new URL(`dist/${f}`, root)))));
}

function measureBytes(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

/**
 * The browser entry as a production bundler ships it: one minified ES module, with the glue
 * (statically imported by load.js, so a bundler inlines it) or, for the wrapper's own figure,
 * without it.
 */
async function bundled(entry, { withGlue }) {
  const out = await build({
    entryPoints: [fileURLToPath(new URL(`dist/${entry}`, root))],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: withGlue ? [] : ['./cce.mjs'],
    write: false,
    logLevel: 'silent',
  });
  return measureBytes(Buffer.from(out.outputFiles[0].contents));
}

const graph = moduleGraph('index.js');
const wrapper = graph.filter((f) => f !== 'cce.mjs');
const wasm = measure(['cce.wasm']);
const glue = measure(['cce.mjs']);
const shipped = measure(wrapper);
const bundledWrapper = await bundled('index.js', { withGlue: false });
const bundledJs = await bundled('index.js', { withGlue: true });
// Each file is compressed on its own, as a server sends it.
const sum = (...ps) =>
  ps.reduce(
    (s, p) => ({ raw: s.raw + p.raw, gzip: s.gzip + p.gzip, brotli: s.brotli + p.brotli }),
    { raw: 0, gzip: 0, brotli: 0 },
  );
const shippedName = `wrapper (${wrapper.length} modules)`;
const rows = {
  'dist/cce.wasm': wasm,
  'dist/cce.mjs (glue)': glue,
  [shippedName]: shipped,
  'wrapper, bundled + minified': bundledWrapper,
  'JS bundle (wrapper + glue)': bundledJs,
  'total, files as shipped': sum(wasm, glue, shipped),
  'total, production bundle': sum(wasm, bundledJs),
};
const total = rows['total, production bundle'];
const limits = {
  'dist/cce.wasm': budget.wasm_gzip,
  'dist/cce.mjs (glue)': budget.glue_gzip,
  [shippedName]: budget.wrapper_gzip,
  'wrapper, bundled + minified': budget.bundled_wrapper_gzip,
  'JS bundle (wrapper + glue)': budget.bundled_js_gzip,
  'total, files as shipped': budget.total_gzip,
  'total, production bundle': budget.bundled_total_gzip,
};

const pad = (s, n) => String(s).padStart(n);
console.log(
  `${'part'.padEnd(30)}${pad('raw', 10)}${pad('gzip', 10)}${pad('brotli', 10)}${pad('budget gz', 12)}${pad('delta', 9)}`,
);
let over = false;
for (const [name, m] of Object.entries(rows)) {
  const limit = limits[name];
  const delta = limit === undefined ? '' : m.gzip - limit;
  if (limit !== undefined && m.gzip > limit) over = true;
  console.log(
    `${name.padEnd(30)}${pad(m.raw, 10)}${pad(m.gzip, 10)}${pad(m.brotli, 10)}${pad(limit ?? '-', 12)}${pad(delta === '' ? '' : delta > 0 ? `+${delta}` : delta, 9)}`,
  );
}
// The session modules: separate downloads, each fetched only by its entry: cce-wasm/context
// fetches cce-context.wasm, cce-wasm/compaction cce-compaction.wasm, cce-wasm/session/init
// cce-session.wasm (both engines). The wrapper rows count the JS modules each entry adds to the
// compress entry's; the total is what a user of that entry alone downloads beside it.
const glues = new Set(['cce-session.mjs', 'cce-context.mjs', 'cce-compaction.mjs']);
const entryWrapper = (entry) =>
  moduleGraph(entry).filter((f) => !glues.has(f) && !graph.includes(f));
const sessionGraph = [...new Set([...entryWrapper('context.js'), ...entryWrapper('compaction.js')])];
const sessionRows = [];
for (const [label, entry, module, wasmLimit, glueLimit] of [
  [
    'cce-wasm/context',
    'context.js',
    'cce-context',
    budget.context_wasm_gzip,
    budget.context_glue_gzip,
  ],
  [
    'cce-wasm/compaction',
    'compaction.js',
    'cce-compaction',
    budget.compaction_wasm_gzip,
    budget.compaction_glue_gzip,
  ],
  ['cce-wasm/session/init', 'session-init.js', 'cce-session', budget.session_wasm_gzip, budget.session_glue_gzip],
]) {
  const wasm = measure([`${module}.wasm`]);
  const glue = measure([`${module}.mjs`]);
  const files = entryWrapper(entry);
  const wrapper = measure(files);
  sessionRows.push(
    [`dist/${module}.wasm`, wasm, wasmLimit],
    [`dist/${module}.mjs (glue)`, glue, glueLimit],
    [`${label} wrapper (${files.length} modules)`, wrapper, undefined],
    [`${label} total`, sum(wasm, glue, wrapper), undefined],
    // What a user of this entry alone ships from a production bundler: the module and one
    // minified chunk holding the glue, the entry's wrapper and the shared modules it imports.
    [`${label} total, production bundle`, sum(wasm, await bundled(entry, { withGlue: true })), undefined],
  );
}
sessionRows.push([
  `session wrapper (${sessionGraph.length} modules)`,
  measure(sessionGraph),
  budget.session_wrapper_gzip,
]);
console.log('\nsession entries, each downloaded only by its users (files as shipped, and a production bundle):');
for (const [name, m, limit] of sessionRows) {
  const delta = limit === undefined ? '' : m.gzip - limit;
  if (limit !== undefined && m.gzip > limit) over = true;
  console.log(
    `${name.padEnd(48)}${pad(m.raw, 10)}${pad(m.gzip, 10)}${pad(m.brotli, 10)}${pad(limit ?? '-', 12)}${pad(delta === '' ? '' : delta > 0 ? `+${delta}` : delta, 9)}`,
  );
}

// Provider message formats (cce-wasm/formats): what a production bundle adds to the default
// entry's when it imports all of them, or one adapter through compressWith (tree-shaken: it must
// carry no other adapter, so each costs about its own size).
async function bundledSource(contents) {
  const out = await build({
    stdin: { contents, resolveDir: fileURLToPath(new URL('dist/', root)), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['./cce.mjs'],
    write: false,
    logLevel: 'silent',
  });
  return measureBytes(Buffer.from(out.outputFiles[0].contents));
}
const ADAPTER_EXPORTS = {
  'openai-chat': 'openaiChatFormat',
  anthropic: 'anthropicFormat',
  'ai-sdk': 'aiSdkFormat',
  'ai-sdk-ui': 'aiSdkUiFormat',
  'openai-responses': 'openaiResponsesFormat',
  langchain: 'langChainFormat',
};
console.log('\nprovider formats (cce-wasm/formats), added to the bundled wrapper only for their users:');
const formatsAll = await bundled('formats-web.js', { withGlue: false });
const formatRows = [['all formats (compress)', formatsAll.gzip - bundledWrapper.gzip, budget.formats_gzip]];
for (const [name, symbol] of Object.entries(ADAPTER_EXPORTS)) {
  const one = await bundledSource(
    `import './index.js'; export { compressWith, uncompressWith, validateWith, ${symbol} } from './formats.js';`,
  );
  formatRows.push([`${name} alone (compressWith)`, one.gzip - bundledWrapper.gzip, budget.format_adapter_gzip]);
}
for (const [name, added, limit] of formatRows) {
  if (limit !== undefined && added > limit) over = true;
  const delta = limit === undefined ? '' : added - limit;
  console.log(`${name.padEnd(40)}${pad(`+${added}`, 10)}${pad(limit ?? '-', 22)}${pad(delta === '' ? '' : delta > 0 ? `+${delta}` : delta, 9)}`);
}

// The integrations (cce-wasm/ai-sdk, cce-wasm/langchain, cce-wasm/request): what a production
// bundle of each adds to the default entry's. Each carries only the adapters it needs.
console.log('\nintegrations, added to the bundled wrapper only for their users:');
for (const name of ['ai-sdk', 'langchain', 'request']) {
  const one = await bundledSource(`export * from './${name}-web.js';`);
  const added = one.gzip - bundledWrapper.gzip;
  const limit = budget.integration_gzip;
  if (limit !== undefined && added > limit) over = true;
  const delta = limit === undefined ? '' : added - limit;
  console.log(`${`cce-wasm/${name}`.padEnd(40)}${pad(`+${added}`, 10)}${pad(limit ?? '-', 22)}${pad(delta === '' ? '' : delta > 0 ? `+${delta}` : delta, 9)}`);
}

// The speed build: what the Node entry (also Deno's) loads from disk; never downloaded by a browser.
const fast = measure(['cce-fast.wasm']);
const fastLimit = budget.fast_wasm_gzip;
const fastDelta = fast.gzip - fastLimit;
if (fast.gzip > fastLimit) over = true;
console.log('\nspeed build (the Node and Deno entry; not a browser download):');
console.log(
  `${'dist/cce-fast.wasm'.padEnd(30)}${pad(fast.raw, 10)}${pad(fast.gzip, 10)}${pad(fast.brotli, 10)}${pad(fastLimit, 12)}${pad(fastDelta > 0 ? `+${fastDelta}` : fastDelta, 9)}`,
);

// The issue's goal for everything a browser downloads, enforced like the limits above.
if (budget.target_total_gzip) {
  const gap = total.gzip - budget.target_total_gzip;
  if (gap > 0) over = true;
  console.log(
    `target for the browser download (production bundle): ${budget.target_total_gzip} gzip bytes (${gap > 0 ? `${gap} over` : `${-gap} under`})`,
  );
}
if (over) {
  console.error(
    'size budget exceeded (raise a limit in size-budget.json only deliberately, with the reason)',
  );
  process.exitCode = 1;
}

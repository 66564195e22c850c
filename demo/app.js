// SPDX-License-Identifier: MIT
// Demo page logic: input and options, worker requests, and rendering of stats, chart and diff.
//
// All engine work happens in worker.js; this file only parses the textarea, builds the options
// object, and renders what comes back. User content is always inserted as text, never as HTML.
import { fmtInt, h, svg, truncate } from './dom.js';

const $ = (selector) => document.querySelector(selector);
const MAX_ROWS = 400;
const NUMBER_OPTIONS = ['recencyWindow', 'tokenBudget', 'minRecencyWindow', 'fuzzyThreshold'];
const BOOLEAN_OPTIONS = ['dedup', 'fuzzyDedup', 'forceConverge', 'embedSummaryId'];
const BOOLEAN_DEFAULTS = {
  dedup: true,
  fuzzyDedup: false,
  forceConverge: false,
  embedSummaryId: false,
};

const ui = {
  engine: $('#engine'),
  engineText: $('#engine-text'),
  sample: $('#sample'),
  sampleNote: $('#sample-note'),
  input: $('#input'),
  inputInfo: $('#input-info'),
  file: $('#file'),
  form: $('#options'),
  callPreview: $('#call-preview'),
  compress: $('#compress'),
  roundtrip: $('#roundtrip'),
  download: $('#download'),
  cancel: $('#cancel'),
  error: $('#error'),
  stats: $('#stats'),
  roundtripResult: $('#roundtrip-result'),
  chart: $('#chart'),
  compare: $('#compare'),
  beforeHead: $('#before-head'),
  afterHead: $('#after-head'),
};

const state = {
  ready: false,
  busy: false,
  samples: [],
  sampleName: 'messages',
  /** The last successful run: {input, options, result, ms, tokensIn, tokensOut, …}. */
  run: null,
  runCount: 0,
};

// ---------------------------------------------------------------------------------------------
// Small formatting helpers (the DOM ones are in dom.js)

const fmtRatio = (x) => (Number.isFinite(x) ? `${x.toFixed(x >= 10 ? 1 : 2)}×` : String(x));
const plural = (n, word) => `${fmtInt(n)} ${word}${n === 1 ? '' : 's'}`;

// ---------------------------------------------------------------------------------------------
// Worker

let worker = null;
let nextId = 1;
const pending = new Map();

function startWorker() {
  state.ready = false;
  setEngine('loading', 'Loading engine…');
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.addEventListener('message', (event) => {
    const { id, type, payload } = event.data;
    if (type === 'ready') {
      state.ready = true;
      const version = payload.version ? ` ${payload.version}` : '';
      setEngine('ready', `Engine ready · cce-wasm${version} (${payload.entry})`);
      updateButtons();
      if (state.compressWhenReady) {
        state.compressWhenReady = false;
        doCompress();
      }
      return;
    }
    if (type === 'fatal') {
      setEngine('failed', 'Engine failed to load');
      showError({
        title: 'The wasm package could not be loaded',
        error: payload,
        hint: 'Build it first (npm run build), then serve the project root with npm run demo.',
      });
      return;
    }
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    if (type === 'result') entry.resolve(payload);
    else entry.reject(payload);
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    setEngine('failed', 'Engine worker crashed');
    showError({
      title: 'The worker failed',
      error: { name: 'Error', message: event.message || 'worker script error' },
      hint: 'Check that the page is served over http (npm run demo), not opened as a file.',
    });
    for (const entry of pending.values()) entry.reject({ name: 'Error', message: 'worker failed' });
    pending.clear();
  });
}

function request(type, payload) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, type, payload });
  });
}

/** Runs a worker request with the busy state; shows Cancel when it takes a while. */
async function busy(type, payload) {
  state.busy = true;
  updateButtons();
  const cancelTimer = setTimeout(() => (ui.cancel.hidden = false), 400);
  try {
    return await request(type, payload);
  } finally {
    clearTimeout(cancelTimer);
    ui.cancel.hidden = true;
    state.busy = false;
    updateButtons();
  }
}

function cancel() {
  worker.terminate();
  for (const entry of pending.values()) {
    entry.reject({ name: 'Cancelled', message: 'cancelled; the engine was restarted' });
  }
  pending.clear();
  startWorker();
}

function setEngine(kind, text) {
  ui.engine.dataset.state = kind;
  ui.engineText.textContent = text;
}

function updateButtons() {
  ui.compress.disabled = !state.ready || state.busy;
  ui.roundtrip.disabled = !state.ready || state.busy || !state.run;
  ui.download.disabled = !state.run;
}

// ---------------------------------------------------------------------------------------------
// Input and options

/** Parses the textarea into {messages} or {error}; a `{messages: [...]}` wrapper is unwrapped. */
function readInput() {
  const text = ui.input.value;
  if (!text.trim()) {
    return {
      error: { name: 'Input', message: 'Paste a messages JSON array or pick a sample first.' },
    };
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      error: { name: 'SyntaxError', message: `Invalid JSON: ${jsonErrorText(error, text)}` },
    };
  }
  if (
    value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Array.isArray(value.messages)
  ) {
    return { messages: value.messages };
  }
  // Anything else goes to the engine as is, so its own validation error is what the user sees.
  return { messages: value };
}

/** Adds line and column to a JSON.parse message when the browser only gives a position. */
function jsonErrorText(error, text) {
  const message = error.message;
  const match = /at position (\d+)/.exec(message);
  if (!match || /line \d+/.test(message)) return message;
  const before = text.slice(0, Number(match[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}

function describeInput() {
  const { messages, error } = readInput();
  if (error) {
    ui.inputInfo.textContent = ui.input.value.trim()
      ? 'Not valid JSON yet.'
      : 'No messages loaded.';
    return;
  }
  if (!Array.isArray(messages)) {
    ui.inputInfo.textContent = 'JSON is not an array of messages.';
    return;
  }
  const chars = messages.reduce(
    (n, m) => n + (m && typeof m.content === 'string' ? m.content.length : 0),
    0,
  );
  const count = plural(messages.length, 'message');
  ui.inputInfo.textContent = `${count} · ${fmtInt(chars)} chars of content`;
}

/**
 * Builds the options object from the form. Empty fields are left out (engine defaults). A number
 * field that does not parse is passed through as a string on purpose: the engine rejects it with
 * a CompressError naming the option, which is exactly what the error panel is for.
 */
function readOptions() {
  const form = ui.form.elements;
  const options = {};
  for (const name of NUMBER_OPTIONS) {
    if (name === 'fuzzyThreshold' && !form.fuzzyDedup.checked) continue;
    const raw = form[name].value.trim();
    if (raw === '') continue;
    const num = Number(raw);
    options[name] =
      /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(raw) && Number.isFinite(num) ? num : raw;
  }
  const roles = form.preserve.value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!(roles.length === 1 && roles[0] === 'system')) options.preserve = roles;
  for (const name of BOOLEAN_OPTIONS) {
    if (form[name].checked !== BOOLEAN_DEFAULTS[name]) options[name] = form[name].checked;
  }
  return options;
}

function setOptions(options = {}) {
  const form = ui.form.elements;
  for (const name of NUMBER_OPTIONS) form[name].value = options[name] ?? '';
  form.preserve.value = (options.preserve ?? ['system']).join(', ');
  for (const name of BOOLEAN_OPTIONS) form[name].checked = options[name] ?? BOOLEAN_DEFAULTS[name];
  syncOptionsUi();
}

function syncOptionsUi() {
  const form = ui.form.elements;
  form.fuzzyThreshold.disabled = !form.fuzzyDedup.checked;
  for (const el of ui.form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  const options = readOptions();
  const body = Object.entries(options)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ');
  ui.callPreview.textContent = body ? `compress(messages, { ${body} })` : 'compress(messages)';
}

async function loadSampleList() {
  try {
    const res = await fetch(new URL('samples/index.json', import.meta.url));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    state.samples = await res.json();
  } catch (error) {
    ui.sampleNote.textContent = `Could not load the sample list (${error.message}).`;
    return;
  }
  for (const sample of state.samples) {
    ui.sample.append(
      h('option', { value: sample.file }, `${sample.title} (${sample.count} messages)`),
    );
  }
}

async function loadSample(file) {
  const sample = state.samples.find((s) => s.file === file);
  if (!sample) return;
  try {
    const res = await fetch(new URL(`samples/${file}`, import.meta.url));
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const messages = await res.json();
    ui.input.value = JSON.stringify(messages, null, 2);
  } catch (error) {
    showError({
      title: 'Could not load the sample',
      error: { name: 'Error', message: error.message },
    });
    return;
  }
  state.sampleName = file.replace(/\.json$/, '');
  setOptions(sample.options);
  ui.sampleNote.textContent = sample.description;
  describeInput();
  clearError();
  compressSoon();
}

/** Compresses now, or as soon as the engine is ready (loading a conversation shows its result). */
function compressSoon() {
  if (state.ready) doCompress();
  else state.compressWhenReady = true;
}

function loadFile(file) {
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => {
    ui.input.value = String(reader.result);
    state.sampleName = file.name.replace(/\.json$/i, '') || 'messages';
    ui.sample.value = '';
    ui.sampleNote.textContent = `Loaded ${file.name}.`;
    describeInput();
    clearError();
    compressSoon();
  };
  reader.onerror = () =>
    showError({
      title: 'Could not read the file',
      error: { name: 'Error', message: String(reader.error) },
    });
  reader.readAsText(file);
}

// ---------------------------------------------------------------------------------------------
// Actions

async function doCompress() {
  if (!state.ready || state.busy) return;
  clearError();
  const { messages, error } = readInput();
  if (error) {
    showError({
      title: error.name === 'SyntaxError' ? 'The input is not valid JSON' : 'No input',
      error,
    });
    if (state.run) document.body.dataset.stale = 'true';
    return;
  }
  const options = readOptions();
  try {
    const run = await busy('compress', { messages, options });
    state.run = { ...run, input: messages, options };
    state.runCount += 1;
    renderRun();
  } catch (wireError) {
    if (wireError.name === 'Cancelled') return;
    showError({ title: 'compress() failed', error: wireError });
    // Whatever is still on screen belongs to an earlier run.
    if (state.run) document.body.dataset.stale = 'true';
  }
}

async function doRoundTrip() {
  const run = state.run;
  if (!run || state.busy) return;
  const out = ui.roundtripResult;
  out.hidden = false;
  out.className = 'roundtrip';
  out.textContent = 'Checking…';
  try {
    const report = await busy('roundtrip', {
      input: run.input,
      messages: run.result.messages,
      verbatim: run.result.verbatim,
    });
    renderRoundTrip(report, run);
  } catch (wireError) {
    out.textContent = '';
    out.hidden = true;
    if (wireError.name !== 'Cancelled')
      showError({ title: 'uncompress() failed', error: wireError });
  }
}

function renderRoundTrip(report, run) {
  const out = ui.roundtripResult;
  out.replaceChildren();
  out.dataset.identical = String(report.identical);
  if (report.identical) {
    out.className = 'roundtrip ok';
    out.append(
      h('strong', {}, '✓ Round trip: byte-identical.'),
      ` uncompress(messages, verbatim) restored ${plural(report.restoredCount, 'message')}; ` +
        `JSON.stringify equals the input (${fmtInt(report.bytes)} chars, ` +
        `${report.messagesExpanded} expanded, ${report.ms.toFixed(1)} ms).`,
    );
    return;
  }
  out.className = 'roundtrip bad';
  const d = report.difference;
  const where =
    d.index === undefined
      ? `at char ${fmtInt(d.offset)}`
      : `at message #${d.index} (id ${JSON.stringify(d.id)}), char ${fmtInt(d.offset)}`;
  out.append(h('strong', {}, `✗ Round trip differs ${where}.`));
  if (report.missingIds.length) out.append(` Missing ids: ${report.missingIds.join(', ')}.`);
  if (run.options.forceConverge && /"metadata":\{\}/.test(d.actual)) {
    out.append(
      ' forceConverge gives every output message a metadata object ' +
        '(reference behaviour, spec §9.3), ' +
        'so a message that had none comes back with "metadata": {}.',
    );
  }
  // The text up to the first differing character is context; the rest is highlighted.
  const excerpt = (text) =>
    h('code', {}, text.slice(0, d.at), h('mark', {}, text.slice(d.at) || '(end)'));
  out.append(
    h('span', { class: 'diff' }, h('span', { class: 'label' }, 'expected '), excerpt(d.expected)),
    h('span', { class: 'diff' }, h('span', { class: 'label' }, 'restored '), excerpt(d.actual)),
  );
}

function doDownload() {
  const run = state.run;
  if (!run) return;
  const body = JSON.stringify(
    { messages: run.result.messages, verbatim: run.result.verbatim },
    null,
    2,
  );
  const url = URL.createObjectURL(new Blob([body + '\n'], { type: 'application/json' }));
  const a = h('a', { href: url, download: `${state.sampleName}.compressed.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---------------------------------------------------------------------------------------------
// Errors

function clearError() {
  ui.error.hidden = true;
  ui.error.replaceChildren();
  for (const el of ui.form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

function showError({ title, error, hint }) {
  const parts = [h('p', { class: 'error-title' }, title)];
  const head = [h('span', { class: 'error-name' }, error.name || 'Error')];
  if (error.code) head.push(' · ', h('code', { class: 'error-code' }, error.code));
  parts.push(h('p', { class: 'error-head' }, head));
  parts.push(h('p', { class: 'error-message' }, error.message));
  if (error.path) {
    parts.push(
      h('p', { class: 'error-path' }, 'path ', h('code', {}, error.path), describePath(error.path)),
    );
  }
  if (hint) parts.push(h('p', { class: 'hint' }, hint));
  ui.error.replaceChildren(...parts);
  ui.error.hidden = false;
  const option = /^\/options\/(\w+)/.exec(error.path ?? '');
  if (option && ui.form.elements[option[1]]) {
    ui.form.elements[option[1]].setAttribute('aria-invalid', 'true');
  }
}

function describePath(path) {
  const msg = /^\/messages\/(\d+)/.exec(path);
  if (msg) return ` — message #${msg[1]} of the input`;
  const option = /^\/options\/(\w+)/.exec(path);
  if (option) return ` — the ${option[1]} field`;
  return '';
}

// ---------------------------------------------------------------------------------------------
// Result analysis

const CONTENT_KINDS = [
  ['[cce:dup of ', 'duplicate'],
  ['[cce:near-dup of ', 'near-duplicate'],
  ['[truncated ', 'truncated'],
  ['[summary: ', 'summarized'],
  ['[summary#', 'summarized'],
];

const provenanceOf = (m) => {
  const meta = m && typeof m === 'object' ? m.metadata : undefined;
  const orig = meta && typeof meta === 'object' ? meta._cce_original : undefined;
  return orig && typeof orig === 'object' ? orig : null;
};

const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** An output message is "kept" when its content and provenance are those of its input. */
function isKept(input, output) {
  if (!input || typeof input !== 'object' || !output || typeof output !== 'object') return false;
  return (
    sameJson(input.content, output.content) && sameJson(provenanceOf(input), provenanceOf(output))
  );
}

function kindOf(output) {
  const content = typeof output.content === 'string' ? output.content : '';
  const prov = provenanceOf(output);
  for (const [prefix, kind] of CONTENT_KINDS) {
    if (!content.startsWith(prefix)) continue;
    if (kind === 'summarized' && prov && Array.isArray(prov.ids) && prov.ids.length >= 2)
      return 'merged';
    return kind;
  }
  return 'summarized';
}

/**
 * Aligns output messages with the input messages they came from. The engine emits in input
 * order and a group is a run of consecutive inputs, so one forward cursor suffices.
 */
function alignRows(input, output) {
  const rows = [];
  let cursor = 0;
  for (let k = 0; k < output.length; k++) {
    const out = output[k];
    if (cursor < input.length && isKept(input[cursor], out)) {
      rows.push({ sources: [cursor++], out: k, kind: 'kept' });
      continue;
    }
    const prov = provenanceOf(out);
    const ids = prov && Array.isArray(prov.ids) ? prov.ids : [out?.id];
    const sources = [];
    for (const id of ids) {
      if (cursor < input.length && input[cursor] && sameJson(input[cursor].id, id))
        sources.push(cursor++);
      else break;
    }
    rows.push({ sources, out: k, kind: out && typeof out === 'object' ? kindOf(out) : 'kept' });
  }
  while (cursor < input.length) rows.push({ sources: [cursor++], out: -1, kind: 'missing' });
  return rows;
}

/** Index of input ids → how many dup references point at them. */
function dupTargets(output) {
  const targets = new Map();
  for (const m of output) {
    const content = m && typeof m.content === 'string' ? m.content : '';
    const match = /^\[cce:(near-)?dup of (.*) — \d+ chars/.exec(content);
    if (match) targets.set(match[2], (targets.get(match[2]) ?? 0) + 1);
  }
  return targets;
}

// ---------------------------------------------------------------------------------------------
// Rendering

function renderRun() {
  const run = state.run;
  delete document.body.dataset.stale;
  const rows = alignRows(run.input, run.result.messages);
  renderStats(run);
  renderChart(run, rows);
  renderCompare(run, rows);
  ui.roundtripResult.hidden = true;
  ui.roundtripResult.removeAttribute('data-identical');
  ui.stats.dataset.state = 'done';
  ui.stats.dataset.run = String(state.runCount);
  updateButtons();
}

function setStat(id, text, value, title, unit) {
  const el = $(`#${id}`);
  el.textContent = text;
  if (unit) el.append(h('span', { class: 'unit' }, unit));
  el.dataset.value = String(value);
  if (title) el.title = title;
  else el.removeAttribute('title');
}

function renderStats(run) {
  const { result, tokensBefore, tokensAfter } = run;
  const c = result.compression;
  setStat('stat-ratio', fmtRatio(c.ratio), c.ratio, 'characters in / characters out');
  setStat('stat-token-ratio', fmtRatio(c.token_ratio), c.token_ratio, 'tokens in / tokens out');
  const saved = tokensBefore > 0 ? Math.round((1 - tokensAfter / tokensBefore) * 100) : 0;
  setStat(
    'stat-tokens',
    `${fmtInt(tokensBefore)} → ${fmtInt(tokensAfter)}`,
    `${tokensBefore}/${tokensAfter}`,
    'defaultTokenCounter: ceil(chars / 3.5) per message',
  );
  $('#stat-saved').textContent = saved > 0 ? `−${saved}%` : '';
  setStat(
    'stat-compressed',
    fmtInt(c.messages_compressed),
    c.messages_compressed,
    'input messages folded into summaries',
  );
  setStat(
    'stat-preserved',
    fmtInt(c.messages_preserved),
    c.messages_preserved,
    'input messages emitted unchanged',
  );
  const exact = c.messages_deduped ?? 0;
  const fuzzy = c.messages_fuzzy_deduped ?? 0;
  setStat(
    'stat-deduped',
    fmtInt(exact + fuzzy),
    exact + fuzzy,
    `${exact} exact ([cce:dup …]) and ${fuzzy} near ([cce:near-dup …]) references`,
  );
  $('#stat-deduped-note').textContent = fuzzy ? `${fmtInt(fuzzy)} near` : '';
  const fitsNote = $('#stat-fits-note');
  if (result.fits === undefined) {
    setStat('stat-fits', 'n/a', '', 'no tokenBudget set, so there is nothing to fit');
    fitsNote.textContent = '';
  } else {
    setStat(
      'stat-fits',
      result.fits ? 'yes' : 'no',
      result.fits,
      `tokenCount ${result.tokenCount} vs tokenBudget ${run.options.tokenBudget}; ` +
        `the search chose recencyWindow ${result.recencyWindow}`,
    );
    fitsNote.textContent = `rw ${result.recencyWindow}`;
  }
  const ms =
    run.ms < 10 ? run.ms.toFixed(2) : run.ms < 100 ? run.ms.toFixed(1) : fmtInt(Math.round(run.ms));
  setStat('stat-time', ms, run.ms, 'compress() wall time, measured inside the worker', ' ms');
  $('#stat-fits').closest('.card').dataset.fits =
    result.fits === undefined ? 'none' : String(result.fits);
}

function renderChart(run, rows) {
  const n = run.input.length;
  const before = run.tokensIn;
  const after = new Array(n).fill(0);
  const folded = new Array(n).fill(false);
  for (const row of rows) {
    if (row.out < 0 || row.sources.length === 0) continue;
    after[row.sources[0]] += run.tokensOut[row.out];
    for (const i of row.sources.slice(1)) folded[i] = true;
  }
  state.chartData = { before, after, folded, kinds: kindsByInput(rows, n) };
  drawChart();
}

function kindsByInput(rows, n) {
  const kinds = new Array(n).fill('kept');
  for (const row of rows) for (const i of row.sources) kinds[i] = row.kind;
  return kinds;
}

function drawChart() {
  const data = state.chartData;
  if (!data) return;
  const { before, after, folded, kinds } = data;
  const n = before.length;
  if (n === 0) {
    ui.chart.replaceChildren(h('p', { class: 'hint' }, 'No messages.'));
    return;
  }
  const width = Math.max(320, ui.chart.clientWidth);
  const height = 170;
  const pad = { left: 46, right: 8, top: 10, bottom: 24 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  // Long conversations are drawn in buckets of consecutive messages, at least 3 px per column.
  const columns = Math.min(n, Math.max(1, Math.floor(plotW / 3)));
  const per = n / columns;
  const bucket = [];
  for (let c = 0; c < columns; c++) {
    const from = Math.floor(c * per);
    const to = Math.max(from + 1, Math.floor((c + 1) * per));
    let b = 0;
    let a = 0;
    for (let i = from; i < to; i++) {
      b += before[i];
      a += after[i];
    }
    bucket.push({ from, to, before: b, after: a });
  }
  const max = Math.max(1, ...bucket.map((x) => Math.max(x.before, x.after)));
  const slot = plotW / columns;
  const y = (v) => pad.top + plotH - (v / max) * plotH;
  const totalBefore = before.reduce((a, b) => a + b, 0);
  const totalAfter = after.reduce((a, b) => a + b, 0);
  const root = svg('svg', {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label':
      `Bar chart of tokens per input message: ${fmtInt(totalBefore)} tokens before, ` +
      `${fmtInt(totalAfter)} after, over ${n} messages.`,
  });
  for (const t of [0, 0.5, 1]) {
    const v = Math.round(max * t);
    root.append(
      svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'grid' }),
      svg('text', { x: pad.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, fmtInt(v)),
    );
  }
  const step = Math.max(1, Math.ceil(columns / Math.max(1, Math.floor(plotW / 44))));
  const bw = Math.max(1, slot * 0.8);
  const aw = Math.max(1, bw * 0.55);
  for (let c = 0; c < columns; c++) {
    const { from, to, before: b, after: a } = bucket[c];
    const single = to - from === 1;
    const x = pad.left + c * slot + (slot - bw) / 2;
    const g = svg('g', { class: `bar ${single ? kinds[from] : 'range'}`, 'data-index': from });
    let label;
    if (!single) label = `#${from}–${to - 1}: ${fmtInt(b)} → ${fmtInt(a)} tokens`;
    else if (folded[from])
      label = `#${from}: ${fmtInt(b)} tokens, folded into the summary of an earlier message`;
    else label = `#${from}: ${fmtInt(b)} → ${fmtInt(a)} tokens (${kinds[from]})`;
    g.append(svg('title', {}, label));
    g.append(
      svg('rect', { x: pad.left + c * slot, y: pad.top, width: slot, height: plotH, class: 'hit' }),
    );
    g.append(svg('rect', { x, y: y(b), width: bw, height: y(0) - y(b), class: 'before' }));
    if (a > 0) {
      g.append(
        svg('rect', {
          x: x + (bw - aw) / 2,
          y: y(a),
          width: aw,
          height: y(0) - y(a),
          class: 'after',
        }),
      );
    }
    root.append(g);
    if (c % step === 0) {
      root.append(
        svg(
          'text',
          { x: pad.left + (c + 0.5) * slot, y: height - 6, 'text-anchor': 'middle', class: 'axis' },
          from,
        ),
      );
    }
  }
  root.addEventListener('click', (event) => {
    const bar = event.target.closest('.bar');
    if (bar) revealInput(Number(bar.dataset.index));
  });
  ui.chart.replaceChildren(root);
}

function revealInput(index) {
  const card = ui.compare.querySelector(`[data-input-index="${index}"]`);
  if (!card) return;
  card.scrollIntoView({ behavior: 'smooth', block: 'center' });
  card.classList.remove('flash');
  void card.offsetWidth;
  card.classList.add('flash');
}

const SOURCE_MARKS = {
  summarized: 'summarized →',
  merged: 'merged →',
  duplicate: 'deduped →',
  'near-duplicate': 'near-dup →',
  truncated: 'truncated →',
  missing: 'no output aligned',
};

function renderCompare(run, rows) {
  const { input, result, tokensIn, tokensOut } = run;
  const targets = dupTargets(result.messages);
  const head = (n, tokens) => `${plural(n, 'message')} · ${fmtInt(tokens)} tokens`;
  ui.beforeHead.textContent = `Before · ${head(input.length, run.tokensBefore)}`;
  ui.afterHead.textContent = `After · ${head(result.messages.length, run.tokensAfter)}`;
  const frag = document.createDocumentFragment();
  for (const row of rows.slice(0, MAX_ROWS)) {
    const left = h('div', { class: 'cell before' });
    for (const i of row.sources) {
      const m = input[i];
      const mark = SOURCE_MARKS[row.kind];
      const refs = m && m.id !== undefined ? targets.get(String(m.id)) : undefined;
      left.append(
        messageCard(m, {
          index: i,
          tokens: tokensIn[i],
          side: 'before',
          mark: mark && h('span', { class: `mark ${row.kind}` }, mark),
          note: refs ? `target of ${plural(refs, 'dup reference')}` : null,
        }),
      );
    }
    if (row.sources.length === 0) left.append(h('p', { class: 'hint' }, '(no aligned input)'));
    const right = h('div', { class: 'cell after' });
    if (row.out >= 0) {
      right.append(
        messageCard(result.messages[row.out], {
          index: row.out,
          tokens: tokensOut[row.out],
          side: 'after',
          kind: row.kind,
        }),
      );
    }
    const label =
      row.out < 0
        ? `input ${row.sources.join(', ')} without output`
        : `input ${row.sources.join(', ') || 'none'} to output ${row.out}: ${row.kind}`;
    frag.append(
      h('div', { class: `pair ${row.kind}`, role: 'group', 'aria-label': label }, left, right),
    );
  }
  if (rows.length > MAX_ROWS) {
    frag.append(
      h('p', { class: 'hint' }, `Showing the first ${MAX_ROWS} of ${fmtInt(rows.length)} rows.`),
    );
  }
  ui.compare.replaceChildren(frag);
}

function messageCard(m, { index, tokens, side, kind, mark, note }) {
  if (!m || typeof m !== 'object') {
    return h(
      'article',
      { class: 'msg' },
      h('p', { class: 'hint' }, `(not an object: ${JSON.stringify(m)})`),
    );
  }
  const content = typeof m.content === 'string' ? m.content : null;
  const role = m.role ? `, ${m.role}` : '';
  const label = `${side === 'before' ? 'Input' : 'Output'} message ${index}${role}`;
  const head = h(
    'header',
    { class: 'msg-head' },
    h(
      'span',
      { class: `role role-${String(m.role ?? 'none').replace(/\W/g, '')}` },
      m.role ?? '(no role)',
    ),
    h('span', { class: 'id', title: 'message id' }, `#${index} · id ${JSON.stringify(m.id)}`),
    m.name || m.tool_call_id
      ? h(
          'span',
          { class: 'id', title: m.tool_call_id ? `tool_call_id ${m.tool_call_id}` : null },
          m.tool_call_id ? `↩ ${m.name ?? m.tool_call_id}` : m.name,
        )
      : null,
    h('span', { class: 'tok' }, `${fmtInt(tokens)} tok`),
    kind ? h('span', { class: `badge ${kind}` }, kind) : null,
    mark ?? null,
  );
  const card = h('article', {
    class: `msg ${side}`,
    'aria-label': label,
    dataset: side === 'before' ? { inputIndex: index } : { outputIndex: index, kind },
  });
  card.append(head);
  if (content !== null && content !== '') {
    // A kept output repeats its input word for word; a short preview is enough on that side.
    card.append(
      kind === 'kept' ? h('pre', { class: 'content preview' }, content) : contentBlock(content),
    );
  } else if (content === null && m.content !== undefined && m.content !== null) {
    card.append(
      h('pre', { class: 'content muted' }, `(non-string content) ${JSON.stringify(m.content)}`),
    );
  }
  if (Array.isArray(m.tool_calls) && m.tool_calls.length) {
    const calls = m.tool_calls.map((c) => {
      const fn = c && c.function ? c.function : {};
      return `${fn.name ?? c?.type ?? 'call'}(${truncate(fn.arguments ?? '', 140)})`;
    });
    card.append(
      h(
        'p',
        { class: 'tool-calls' },
        h('span', { class: 'label' }, 'tool_calls '),
        h('code', {}, calls.join('\n')),
      ),
    );
  }
  if (note) card.append(h('p', { class: 'note' }, note));
  const prov = provenanceOf(m);
  if (prov && (side === 'after' ? kind !== 'kept' : true)) card.append(provenanceRow(prov));
  return card;
}

function provenanceRow(prov) {
  const items = [];
  if (Array.isArray(prov.ids))
    items.push(['ids', prov.ids.map((x) => JSON.stringify(x)).join(', ')]);
  if (prov.summary_id !== undefined) items.push(['summary_id', String(prov.summary_id)]);
  if (Array.isArray(prov.parent_ids)) items.push(['parent_ids', prov.parent_ids.join(', ')]);
  if (prov.version !== undefined) items.push(['version', String(prov.version)]);
  return h(
    'dl',
    { class: 'prov', title: 'metadata._cce_original' },
    items.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
  );
}


function contentBlock(text) {
  const long = text.length > 700 || text.split('\n').length > 12;
  const pre = h('pre', { class: `content${long ? ' clamped' : ''}` }, text);
  if (!long) return pre;
  const toggle = h(
    'button',
    { type: 'button', class: 'link', 'aria-expanded': 'false' },
    `Show all (${fmtInt(text.length)} chars)`,
  );
  toggle.addEventListener('click', () => {
    const open = pre.classList.toggle('clamped') === false;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Show less' : `Show all (${fmtInt(text.length)} chars)`;
  });
  return h('div', { class: 'content-wrap' }, pre, toggle);
}

// ---------------------------------------------------------------------------------------------
// Wiring

function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

ui.sample.addEventListener('change', () => loadSample(ui.sample.value));
ui.input.addEventListener('input', debounce(describeInput, 250));
ui.input.addEventListener('input', () => {
  // The result on screen no longer matches the text; Compress (or Ctrl+Enter) refreshes it.
  if (state.run) document.body.dataset.stale = 'true';
});
ui.file.addEventListener('change', () => loadFile(ui.file.files[0]));
ui.input.addEventListener('dragover', (event) => event.preventDefault());
ui.input.addEventListener('drop', (event) => {
  const file = event.dataTransfer?.files?.[0];
  if (file) {
    event.preventDefault();
    loadFile(file);
  }
});
ui.form.addEventListener('input', syncOptionsUi);
ui.form.addEventListener('change', () => {
  syncOptionsUi();
  // Options are cheap to try: re-run on every committed change once there is a result.
  if (state.run) doCompress();
});
ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  doCompress();
});
ui.compress.addEventListener('click', doCompress);
ui.roundtrip.addEventListener('click', doRoundTrip);
ui.download.addEventListener('click', doDownload);
ui.cancel.addEventListener('click', cancel);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    // The shortcut belongs to the compressor tab (tabs.js sets data-tab).
    if ((document.body.dataset.tab ?? 'compressor') !== 'compressor') return;
    event.preventDefault();
    doCompress();
  }
});
new ResizeObserver(debounce(drawChart, 100)).observe(ui.chart);
// The sticky sidebar starts below the sticky header, whose height depends on wrapping.
new ResizeObserver(([entry]) => {
  document.documentElement.style.setProperty(
    '--header-h',
    `${Math.ceil(entry.borderBoxSize[0].blockSize)}px`,
  );
}).observe($('header.top'));

startWorker();
syncOptionsUi();
await loadSampleList();
// First visit: show something straight away (the first sample, compressed once the engine is up).
if (state.samples.length && !ui.input.value) {
  ui.sample.value = state.samples[0].file;
  await loadSample(state.samples[0].file);
}

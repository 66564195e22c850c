// SPDX-License-Identifier: MIT
// Live chat tab: replays a sample conversation message by message through a ContextManager
// (cce-wasm/context), compressing automatically whenever shouldCompress() turns true.
//
// Each step is what a chat frontend does per message: add(), compressIfNeeded(), view(). The page
// shows the usage meter (view tokens against `available`, with the trigger threshold), a token
// timeline of all steps, the checkpoints with Undo, the stages of the last compression (from the
// onProgress callback) and the messages view() would send.
import { fmtInt, h, svg, truncate } from './dom.js';
import { clearError, defaultTokens, fetchJson, showError, startSessionTab } from './session.js';

const $ = (id) => document.getElementById(id);
const SETTINGS = [
  'contextWindow',
  'systemPromptTokens',
  'promptBudget',
  'safetyMargin',
  'threshold',
  'keepLast',
];
const STAGES = [
  'identify',
  'prepare',
  'summarize',
  'createCheckpoint',
  'updateContext',
  'validate',
];

const ui = {
  panel: $('panel-live'),
  status: $('live-status'),
  sample: $('live-sample'),
  sampleNote: $('live-sample-note'),
  form: $('live-settings'),
  budget: $('live-budget'),
  speed: $('live-speed'),
  next: $('live-next'),
  play: $('live-play'),
  compress: $('live-compress'),
  reset: $('live-reset'),
  position: $('live-position'),
  error: $('live-error'),
  meter: $('live-meter'),
  meterText: $('live-meter-text'),
  chart: $('live-chart'),
  checkpoints: $('live-checkpoints').tBodies[0],
  archive: $('live-archive'),
  progress: $('live-progress'),
  progressNote: $('live-progress-note'),
  view: $('live-view'),
  viewInfo: $('live-view-info'),
};

const state = {
  api: null,
  samples: [],
  sample: null,
  messages: [],
  manager: null,
  /** Index of the next sample message to add. */
  added: 0,
  /** One entry per step: {added, before, after, available, threshold, compressions}. */
  series: [],
  /** Highest view tokens after any step since the reset (what the meter has shown). */
  peak: 0,
  /** Progress events received by onProgress, grouped per compress() call. */
  runs: [],
  playing: false,
  compressions: 0,
};

// ---------------------------------------------------------------------------------------------
// Settings and manager

function readSettings() {
  const settings = {};
  for (const name of SETTINGS) {
    const raw = ui.form.elements[name].value.trim();
    if (raw === '') continue;
    const num = Number(raw);
    // A value that is not a number goes to the engine as is: its CompressError names the setting.
    settings[name] = Number.isFinite(num) ? num : raw;
  }
  return settings;
}

function writeSettings(settings) {
  for (const name of SETTINGS) ui.form.elements[name].value = settings[name] ?? '';
}

/** Creates a fresh manager from the form; on a bad setting shows the engine's error. */
function resetManager() {
  stopPlaying();
  clearError(ui.error, ui.panel);
  state.added = 0;
  state.series = [];
  state.peak = 0;
  state.runs = [];
  state.compressions = 0;
  state.manager = null;
  if (!state.api) return render();
  try {
    state.manager = state.api.createContextManager({
      ...readSettings(),
      // onProgress fires for every stage of every compress(); a new run starts at "identify".
      onProgress: (event) => {
        if (event.stage === 'identify' || state.runs.length === 0) state.runs.push([]);
        state.runs[state.runs.length - 1].push(event);
      },
    });
  } catch (error) {
    showError(ui.error, 'createContextManager() refused these settings', error, ui.panel);
  }
  render();
}

// ---------------------------------------------------------------------------------------------
// Steps

/** Adds the next message and compresses when due; false at the end of the sample. */
function step() {
  const manager = state.manager;
  if (!manager || state.added >= state.messages.length) return false;
  try {
    const before = manager.add(state.messages[state.added]);
    state.added += 1;
    let compressions = 0;
    if (manager.shouldCompress()) {
      const outcomes = manager.compressIfNeeded();
      compressions = outcomes.filter((o) => o.compressed).length;
      state.compressions += compressions;
      const last = outcomes[outcomes.length - 1];
      if (last && !last.validation.fits) {
        showError(
          ui.error,
          'The view still does not fit after compressing',
          {
            name: 'Validation',
            message: last.validation.reasons.map((r) => `${r.code}: ${r.message}`).join('; '),
          },
          ui.panel,
        );
      }
    }
    const after = manager.usage();
    state.peak = Math.max(state.peak, after.conversation);
    state.series.push({
      added: state.added,
      before: before.conversation,
      after: after.conversation,
      available: after.available,
      threshold: after.threshold,
      compressions,
    });
  } catch (error) {
    stopPlaying();
    showError(ui.error, 'The context manager failed', error, ui.panel);
    render();
    return false;
  }
  render();
  return state.added < state.messages.length;
}

function compressNow() {
  const manager = state.manager;
  if (!manager) return;
  try {
    const outcome = manager.compress();
    if (outcome.compressed) state.compressions += 1;
    const after = manager.usage();
    state.peak = Math.max(state.peak, after.conversation);
    const lastStep = state.series[state.series.length - 1];
    if (lastStep) {
      lastStep.after = after.conversation;
      if (outcome.compressed) lastStep.compressions += 1;
    }
  } catch (error) {
    showError(ui.error, 'compress() failed', error, ui.panel);
  }
  render();
}

function undo(id) {
  if (!state.manager) return;
  stopPlaying();
  try {
    // Undo restores the raw messages of the checkpoint; the next added message compresses again
    // if the view is then over the threshold (no automatic compress here, or undo would redo).
    const { usage } = state.manager.undo(id);
    const lastStep = state.series[state.series.length - 1];
    if (lastStep) lastStep.after = usage.conversation;
    state.peak = Math.max(state.peak, usage.conversation);
  } catch (error) {
    showError(ui.error, `undo("${id}") failed`, error, ui.panel);
  }
  render();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function play() {
  if (state.playing) return stopPlaying();
  if (!state.manager) return;
  state.playing = true;
  ui.play.textContent = 'Pause';
  ui.panel.dataset.playing = 'true';
  updateButtons();
  while (state.playing && step()) {
    // Even at "instant" speed yield once per message so the page repaints and stays responsive.
    await sleep(Number(ui.speed.value));
  }
  stopPlaying();
}

function stopPlaying() {
  state.playing = false;
  ui.play.textContent = 'Play';
  delete ui.panel.dataset.playing;
  updateButtons();
}

// ---------------------------------------------------------------------------------------------
// Rendering

function updateButtons() {
  const ready = Boolean(state.manager);
  const atEnd = state.added >= state.messages.length;
  ui.next.disabled = !ready || atEnd || state.playing;
  ui.play.disabled = !ready || (atEnd && !state.playing);
  ui.compress.disabled = !ready || state.playing || !state.manager.usage().canCompress;
  ui.reset.disabled = !state.api;
}

function render() {
  updateButtons();
  const total = state.messages.length;
  ui.position.textContent = `${state.added} / ${total} messages added`;
  ui.position.dataset.added = String(state.added);
  ui.position.dataset.total = String(total);
  const manager = state.manager;
  if (!manager) {
    ui.budget.textContent = '–';
    renderMeter(null);
    renderChart();
    ui.checkpoints.replaceChildren();
    ui.archive.textContent = '';
    renderProgress();
    ui.view.replaceChildren(h('p', { class: 'hint' }, 'No context manager.'));
    ui.viewInfo.textContent = '';
    return;
  }
  const usage = manager.usage();
  ui.budget.textContent = `${fmtInt(usage.available)} (due > ${fmtInt(usage.threshold)})`;
  renderMeter(usage);
  renderChart();
  renderCheckpoints(manager.checkpoints, manager.archive);
  renderProgress();
  renderView(manager.view());
}

function renderMeter(usage) {
  const meter = ui.meter;
  const bar = (cls) => meter.querySelector(`.meter-${cls}`);
  if (!usage) {
    for (const cls of ['ghost', 'summary', 'recent']) bar(cls).style.width = '0';
    bar('threshold').hidden = true;
    ui.meterText.textContent = 'No conversation yet.';
    for (const key of ['conversation', 'available', 'threshold', 'peak', 'over']) {
      delete meter.dataset[key];
    }
    return;
  }
  const { available, threshold, checkpoints, recent, conversation } = usage;
  const pct = (n) => `${Math.min(100, (n / available) * 100).toFixed(2)}%`;
  const lastStep = state.series[state.series.length - 1];
  const ghost = lastStep && lastStep.compressions > 0 ? lastStep.before : 0;
  bar('ghost').style.width = pct(ghost);
  bar('summary').style.width = pct(checkpoints);
  bar('recent').style.width = pct(Math.min(recent, Math.max(0, available - checkpoints)));
  const marker = bar('threshold');
  marker.hidden = false;
  marker.style.left = pct(threshold);
  marker.title = `trigger: compress above ${fmtInt(threshold)} tokens`;
  const over = conversation > available;
  Object.assign(meter.dataset, {
    conversation: String(conversation),
    available: String(available),
    threshold: String(threshold),
    peak: String(state.peak),
    over: String(over),
  });
  meter.setAttribute('aria-valuemax', String(available));
  meter.setAttribute('aria-valuenow', String(conversation));
  ui.meterText.replaceChildren(
    h('strong', {}, `${fmtInt(conversation)} / ${fmtInt(available)} tokens`),
    ` (${usage.percent}%) · ${fmtInt(checkpoints)} in summaries, ${fmtInt(recent)} recent · ` +
      `trigger above ${fmtInt(threshold)} · system ${fmtInt(usage.system)} · ` +
      `${usage.messages} messages, ${state.compressions} compressions`,
    ghost ? ` · this step compressed ${fmtInt(ghost)} → ${fmtInt(conversation)}` : '',
    over ? h('strong', { class: 'over' }, ' · over the window!') : '',
  );
}

/** The token timeline: view tokens before (grey) and after (blue) each step's compression. */
function renderChart() {
  const series = state.series;
  if (series.length === 0) {
    ui.chart.replaceChildren(
      h('p', { class: 'hint' }, 'The token timeline appears as messages are added.'),
    );
    return;
  }
  const width = Math.max(320, ui.chart.clientWidth || 640);
  const height = 120;
  const pad = { left: 46, right: 8, top: 8, bottom: 18 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const { available, threshold } = series[series.length - 1];
  const max = Math.max(available, ...series.map((s) => s.before));
  const n = Math.max(state.messages.length, series.length);
  const x = (i) => pad.left + ((i + 0.5) / n) * plotW;
  const y = (v) => pad.top + plotH - (v / max) * plotH;
  const root = svg('svg', {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `View tokens after each of ${series.length} added messages`,
  });
  for (const [v, cls, label] of [
    [available, 'limit', 'available'],
    [threshold, 'trigger', 'trigger'],
  ]) {
    root.append(
      svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: cls }),
      svg(
        'text',
        { x: pad.left - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' },
        fmtInt(v),
      ),
      svg(
        'text',
        { x: width - pad.right, y: y(v) - 3, 'text-anchor': 'end', class: 'axis' },
        label,
      ),
    );
  }
  const line = (key) => series.map((s, i) => `${x(i).toFixed(1)},${y(s[key]).toFixed(1)}`);
  root.append(svg('polyline', { points: line('before').join(' '), class: 'before-line' }));
  root.append(svg('polyline', { points: line('after').join(' '), class: 'after-line' }));
  series.forEach((s, i) => {
    if (s.compressions > 0) {
      root.append(
        svg(
          'circle',
          { cx: x(i), cy: y(s.after), r: 3.5, class: 'compressed' },
          svg(
            'title',
            {},
            `message ${s.added}: ${fmtInt(s.before)} → ${fmtInt(s.after)} tokens ` +
              `(${s.compressions} compression${s.compressions === 1 ? '' : 's'})`,
          ),
        ),
      );
    }
  });
  ui.chart.replaceChildren(root);
}

const LEVEL_CLASS = { compact: 'summarized', moderate: 'merged', detailed: 'kept' };

function renderCheckpoints(checkpoints, archive) {
  const rows = checkpoints.map((cp) => {
    const { start, end } = cp.messageRange;
    const button = h(
      'button',
      {
        type: 'button',
        class: 'btn small undo',
        title: `undo("${cp.id}"): send messages ${start + 1}–${end} raw again`,
        onclick: () => undo(cp.id),
      },
      'Undo',
    );
    return h(
      'tr',
      { dataset: { id: cp.id } },
      h(
        'td',
        {},
        h('code', {}, cp.id),
        cp.mergedFrom ? h('span', { class: 'sub' }, ' merged') : null,
      ),
      h(
        'td',
        { title: `messageRange [${start}, ${end})` },
        `${start + 1}–${end} (${end - start})`,
      ),
      h('td', {}, h('span', { class: `badge ${LEVEL_CLASS[cp.level] ?? 'kept'}` }, cp.level)),
      h('td', { class: 'num' }, `${fmtInt(cp.originalTokens)} → ${fmtInt(cp.compressedTokens)}`),
      h('td', { class: 'num' }, `${cp.compressionRatio.toFixed(1)}×`),
      h('td', {}, button),
    );
  });
  if (rows.length === 0) {
    rows.push(
      h('tr', { class: 'empty' }, h('td', { colspan: 6, class: 'hint' }, 'No checkpoints yet.')),
    );
  }
  ui.checkpoints.replaceChildren(...rows);
  ui.archive.textContent = archive.length
    ? `Archive: ${archive.map((cp) => `${cp.id} (${cp.status})`).join(', ')}`
    : '';
}

function renderProgress() {
  const run = state.runs[state.runs.length - 1];
  if (!run) {
    ui.progress.replaceChildren();
    ui.progressNote.textContent = 'No compression yet.';
    return;
  }
  const byStage = new Map(run.map((event) => [event.stage, event]));
  ui.progress.replaceChildren(
    ...STAGES.map((stage) => {
      const event = byStage.get(stage);
      return h(
        'li',
        { class: event ? 'done' : 'todo', dataset: { stage } },
        h('span', { class: 'stage-name' }, stage),
        h(
          'span',
          { class: 'stage-bar', 'aria-hidden': 'true' },
          h('span', { style: `width: ${event ? event.percent : 0}%` }),
        ),
        h('span', { class: 'stage-pct' }, event ? `${event.percent}%` : '–'),
        h('span', { class: 'stage-msg' }, event ? event.message : ''),
      );
    }),
  );
  ui.progressNote.textContent = `Compression ${state.runs.length} of this replay (onProgress).`;
}

const isSummary = (m) =>
  Boolean(m && m.metadata && typeof m.metadata === 'object' && 'covered_until' in m.metadata);

function renderView(view) {
  const { messages, validation } = view;
  const summaries = messages.filter(isSummary).length;
  ui.viewInfo.textContent =
    `${messages.length} messages (${summaries} summary) · ` +
    `${fmtInt(validation.tokens)} tokens · ` +
    (validation.fits ? 'fits' : `does not fit: ${validation.reasons.map((r) => r.code).join()}`);
  ui.view.dataset.fits = String(validation.fits);
  ui.view.replaceChildren(...messages.map((m, i) => viewCard(m, i)));
}

function viewCard(m, index) {
  const summary = isSummary(m);
  const content = typeof m.content === 'string' ? m.content : '';
  const head = h(
    'header',
    { class: 'msg-head' },
    h('span', { class: `role role-${String(m.role).replace(/\W/g, '')}` }, m.role),
    h('span', { class: 'id' }, `#${index} · ${m.id === undefined ? 'no id' : `id ${m.id}`}`),
    m.tool_call_id ? h('span', { class: 'id' }, `↩ ${m.tool_call_id}`) : null,
    summary
      ? h(
          'span',
          { class: 'badge summarized' },
          `summary · covered_until ${m.metadata.covered_until}`,
        )
      : null,
    h('span', { class: 'tok' }, `${fmtInt(defaultTokens(m))} tok`),
  );
  const card = h('article', { class: `msg view-msg${summary ? ' summary' : ''}` }, head);
  if (content) {
    card.append(h('pre', { class: `content${summary ? '' : ' preview'}` }, content));
  }
  if (Array.isArray(m.tool_calls) && m.tool_calls.length) {
    const calls = m.tool_calls.map(
      (c) => `${c.function?.name ?? 'call'}(${truncate(String(c.function?.arguments ?? ''), 120)})`,
    );
    card.append(
      h(
        'p',
        { class: 'tool-calls' },
        h('span', { class: 'label' }, 'tool_calls '),
        h('code', {}, calls.join('\n')),
      ),
    );
  }
  return card;
}

// ---------------------------------------------------------------------------------------------
// Samples and wiring

async function loadSample(file) {
  const sample = state.samples.find((s) => s.file === file) ?? state.samples[0];
  if (!sample) return;
  state.sample = sample;
  ui.sample.value = sample.file;
  ui.sampleNote.textContent = sample.description;
  writeSettings(sample.live);
  try {
    state.messages = await fetchJson(`samples/${sample.file}`);
  } catch (error) {
    state.messages = [];
    showError(ui.error, 'Could not load the sample', error, ui.panel);
    return;
  }
  resetManager();
}

async function start() {
  if (!(await startSessionTab(ui, state))) return;
  await loadSample(state.samples[0]?.file);
}

ui.sample.addEventListener('change', () => loadSample(ui.sample.value));
ui.form.addEventListener('change', (event) => {
  // The play speed is not a manager setting: changing it must not restart the replay.
  if (event.target !== ui.speed) resetManager();
});
ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  resetManager();
});
ui.next.addEventListener('click', () => step());
ui.play.addEventListener('click', play);
ui.compress.addEventListener('click', compressNow);
ui.reset.addEventListener('click', resetManager);
new ResizeObserver(() => renderChart()).observe(ui.chart);

await start();

// SPDX-License-Identifier: MIT
// Compaction tab: non-destructive compaction (cce-wasm/compaction) of an OpenAI-format sample.
//
// The sample becomes a conversation with fromOpenAI(); Preview runs dryRun() with the chosen
// profile and range (nothing is appended), Apply appends the compaction with compact(), Undo
// removes the latest with undo(). The turns are never modified: every view is project()'s.
import { fmtInt, h, truncate } from './dom.js';
import { clearError, fetchJson, showError, startSessionTab } from './session.js';

const $ = (id) => document.getElementById(id);

const ui = {
  panel: $('panel-compaction'),
  status: $('cmp-status'),
  sample: $('cmp-sample'),
  sampleNote: $('cmp-sample-note'),
  form: $('cmp-options'),
  profile: $('cmp-profile'),
  profileNote: $('cmp-profile-note'),
  keepLast: $('cmp-keepLast'),
  from: $('cmp-from'),
  to: $('cmp-to'),
  format: $('cmp-format'),
  call: $('cmp-call'),
  preview: $('cmp-preview'),
  apply: $('cmp-apply'),
  undo: $('cmp-undo'),
  error: $('cmp-error'),
  turns: $('cmp-turns'),
  raw: $('cmp-raw'),
  before: $('cmp-before'),
  after: $('cmp-after'),
  saved: $('cmp-saved'),
  resolved: $('cmp-resolved'),
  list: $('cmp-list').tBodies[0],
  listNote: $('cmp-list-note'),
  view: $('cmp-view'),
  viewInfo: $('cmp-view-info'),
};

const state = {
  api: null,
  samples: [],
  /** The conversation document: turns (never changed) plus the compaction log. */
  conversation: null,
  /** The last dryRun result while it still matches the form and the log, else null. */
  preview: null,
};

// ---------------------------------------------------------------------------------------------
// Options

/** A range bound from a text field: an integer index, else the text ("last", "5h"). */
function bound(raw) {
  const text = raw.trim();
  if (text === '') return undefined;
  return /^[-+]?\d+$/.test(text) ? Number(text) : text;
}

function readOptions() {
  const options = { profile: ui.profile.value };
  const from = bound(ui.from.value);
  const to = bound(ui.to.value);
  const keepLast = bound(ui.keepLast.value);
  if (from !== undefined) options.from = from;
  if (to !== undefined) options.to = to;
  if (keepLast !== undefined) options.keepLast = keepLast;
  return options;
}

function syncCall() {
  const body = Object.entries(readOptions())
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ');
  ui.call.textContent = `dryRun(conversation, { ${body} })`;
  const profile = state.api?.PROFILES[ui.profile.value];
  ui.profileNote.textContent = profile ? describePolicies(profile) : '';
}

function describePolicies(p) {
  const parts = [];
  if (p.summary) parts.push(p.summary === true ? 'summary' : 'summary (stored)');
  if (p.reasoning) parts.push(`reasoning ${p.reasoning}`);
  if (p.toolCalls) {
    parts.push(
      `toolCalls ${typeof p.toolCalls === 'string' ? p.toolCalls : JSON.stringify(p.toolCalls)}`,
    );
  }
  if (p.keepLast !== undefined) parts.push(`keepLast ${p.keepLast}`);
  return parts.join(', ') || 'no policy';
}

// ---------------------------------------------------------------------------------------------
// Actions

function guard(title, fn) {
  clearError(ui.error, ui.panel);
  try {
    fn();
  } catch (error) {
    showError(ui.error, title, error, ui.panel);
  }
  render();
}

function doPreview() {
  guard('dryRun() refused this compaction', () => {
    state.preview = null;
    state.preview = state.api.dryRun(state.conversation, {
      ...readOptions(),
      format: ui.format.value,
    });
  });
}

function doApply() {
  guard('compact() refused this compaction', () => {
    const result = state.api.compact(state.conversation, readOptions());
    state.conversation = result.conversation;
    state.preview = null;
  });
}

function doUndo(index) {
  guard('undo() failed', () => {
    const options = index === undefined ? undefined : { index };
    state.conversation = state.api.undo(state.conversation, options).conversation;
    state.preview = null;
  });
}

// ---------------------------------------------------------------------------------------------
// Rendering

function setCard(el, text, value) {
  el.textContent = text;
  el.dataset.value = String(value);
}

function render() {
  const conversation = state.conversation;
  const ready = Boolean(state.api && conversation);
  ui.preview.disabled = !ready;
  ui.apply.disabled = !ready;
  ui.undo.disabled = !ready || !(conversation.compactions?.length > 0);
  if (!ready) return;
  const { project } = state.api;
  const raw = project({ turns: conversation.turns, source: conversation.source }).tokens;
  const current = project(conversation, { format: ui.format.value });
  setCard(ui.turns, `${conversation.turns.length} (0–${conversation.turns.length - 1})`,
    conversation.turns.length);
  setCard(ui.raw, fmtInt(raw), raw);
  setCard(ui.before, fmtInt(current.tokens), current.tokens);
  const preview = state.preview;
  if (preview) {
    const { before, after } = preview.tokens;
    setCard(ui.after, fmtInt(after), after);
    const saved = before > 0 ? Math.round((1 - after / before) * 100) : 0;
    ui.saved.textContent = saved > 0 ? `−${saved}%` : '';
    ui.resolved.replaceChildren(
      h('code', {}, compactionText(preview.compaction)),
      preview.extended ? h('span', { class: 'sub' }, ' extended over an earlier summary') : '',
    );
  } else {
    setCard(ui.after, '–', '');
    ui.saved.textContent = '';
    ui.resolved.textContent = 'Press Preview to see what compact() would append.';
  }
  ui.panel.querySelector('#cmp-tokens').dataset.preview = String(Boolean(preview));
  renderList(conversation);
  renderView(preview ? preview.view : current.view, Boolean(preview), preview ? 0 : current.tokens);
}

function compactionText(c) {
  if (c === null) return 'nothing to compact: the range leaves no turn';
  const fields = [`turns ${c.fromTurn}–${c.toTurn}`];
  if (c.requested && (c.requested.fromTurn !== c.fromTurn || c.requested.toTurn !== c.toTurn)) {
    fields.push(`asked ${c.requested.fromTurn}–${c.requested.toTurn}`);
  }
  if (c.profile) fields.push(c.profile);
  fields.push(policiesOf(c));
  return fields.join(' · ');
}

function policiesOf(c) {
  const parts = [];
  if (c.summary) parts.push(`summary (${fmtInt(c.summary.summary.length)} chars)`);
  if (c.reasoning) parts.push(`reasoning ${c.reasoning}`);
  if (c.toolCalls) {
    parts.push(
      `toolCalls ${typeof c.toolCalls === 'string' ? c.toolCalls : JSON.stringify(c.toolCalls)}`,
    );
  }
  if (c.tools) parts.push(`tools ${Object.keys(c.tools).join(', ')}`);
  return parts.join(', ') || 'no policy';
}

function renderList(conversation) {
  const log = conversation.compactions ?? [];
  const { project } = state.api;
  const rows = log.map((c, i) => {
    // The view as it was right after this compaction was appended.
    const tokens = project({ ...conversation, compactions: log.slice(0, i + 1) }).tokens;
    return h(
      'tr',
      { dataset: { index: i } },
      h('td', {}, String(i)),
      h('td', {}, `${c.fromTurn}–${c.toTurn}`),
      h('td', {}, c.profile ?? '–'),
      h('td', {}, policiesOf(c)),
      h('td', { class: 'num' }, fmtInt(tokens)),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'btn small remove',
            title: `undo(conversation, { index: ${i} })`,
            onclick: () => doUndo(i),
          },
          'Remove',
        ),
      ),
    );
  });
  ui.list.replaceChildren(...rows);
  ui.listNote.textContent = log.length
    ? `${log.length} compaction${log.length === 1 ? '' : 's'}; for each turn and content type ` +
      'the newest covering one wins, a summary beats them all.'
    : 'None yet: the view is the raw conversation.';
}

function renderView(view, isPreview, tokens) {
  ui.view.dataset.mode = isPreview ? 'preview' : 'current';
  ui.viewInfo.textContent = isPreview
    ? 'Preview (dryRun): nothing is appended until Apply.'
    : `Current view: project(conversation) · ${fmtInt(tokens)} tokens`;
  if (ui.format.value !== 'events') {
    ui.view.replaceChildren(h('pre', { class: 'content json' }, JSON.stringify(view, null, 2)));
    return;
  }
  ui.view.replaceChildren(...view.turns.map(turnBlock));
}

function turnBlock(turn) {
  const summary = turn.summaryOf;
  const block = h('section', {
    class: `turn${summary ? ' summary' : ''}`,
    dataset: { turn: turn.turn },
  });
  block.append(
    h(
      'header',
      { class: 'turn-head' },
      h('strong', {}, `turn ${turn.turn}`),
      summary
        ? h(
            'span',
            { class: 'badge summarized' },
            `summary of turns ${summary.fromTurn}–${summary.toTurn}`,
          )
        : null,
      h('span', { class: 'tok' }, `${turn.events.length} events`),
    ),
  );
  for (const event of turn.events) block.append(eventRow(event));
  return block;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === 'string' ? p : (p?.text ?? `[${p?.type}]`))).join('');
  }
  return content === undefined ? '' : JSON.stringify(content);
}

function eventRow(event) {
  const compacted = event.compactedBy !== undefined;
  let body;
  if (event.type === 'toolRequest') {
    const args =
      typeof event.arguments === 'string' ? event.arguments : JSON.stringify(event.arguments ?? {});
    body = h('code', {}, `${event.name}(${truncate(args, 160)})`);
  } else if (event.type === 'toolResponse') {
    body = h(
      'pre',
      { class: 'content preview' },
      `${event.ok === false ? 'error' : 'ok'}: ${textOf(event.content)}`,
    );
  } else {
    // A summary is the point of the view: show it whole; other text is clamped to three lines.
    const summary = compacted && (event.type === 'user' || event.type === 'assistant');
    body = h('pre', { class: `content${summary ? '' : ' preview'}` }, textOf(event.content));
  }
  return h(
    'div',
    { class: `event${compacted ? ' compacted' : ''}`, dataset: { type: event.type } },
    h(
      'span',
      { class: `etype etype-${event.type}` },
      event.type,
      compacted ? h('span', { class: 'sub' }, ` · by #${event.compactedBy}`) : null,
    ),
    body,
  );
}

// ---------------------------------------------------------------------------------------------
// Samples and wiring

async function loadSample(file) {
  const sample = state.samples.find((s) => s.file === file) ?? state.samples[0];
  if (!sample) return;
  ui.sample.value = sample.file;
  ui.sampleNote.textContent = sample.description;
  state.preview = null;
  state.conversation = null;
  clearError(ui.error, ui.panel);
  try {
    const messages = await fetchJson(`samples/${sample.file}`);
    if (state.api) state.conversation = state.api.fromOpenAI(messages);
  } catch (error) {
    showError(ui.error, 'Could not load the sample', error, ui.panel);
  }
  render();
}

async function start() {
  if (!(await startSessionTab(ui, state)) || !state.api) return;
  ui.profile.replaceChildren(
    ...Object.keys(state.api.PROFILES).map((name) => h('option', { value: name }, name)),
  );
  ui.profile.value = 'default';
  syncCall();
  await loadSample(state.samples[0]?.file);
}

ui.sample.addEventListener('change', () => loadSample(ui.sample.value));
ui.form.addEventListener('input', () => {
  syncCall();
  // A preview belongs to the options it was made with.
  if (state.preview) {
    state.preview = null;
    render();
  }
});
ui.form.addEventListener('change', (event) => {
  syncCall();
  if (event.target === ui.format) render();
});
ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  doPreview();
});
ui.preview.addEventListener('click', doPreview);
ui.apply.addEventListener('click', doApply);
ui.undo.addEventListener('click', () => doUndo());

await start();

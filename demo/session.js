// SPDX-License-Identifier: MIT
// Loads the session engine (context manager + compaction) on the page for the live-chat and
// compaction tabs, through the package's explicit-init browser entry (dist/session-init.js).
//
// The compressor tab runs its engine in a worker because a large compress can take a while; the
// session calls these tabs make are small (one message, one projection), so the main thread is
// simpler: the manager and its onProgress callback live next to the DOM that shows them.
import { h } from './dom.js';

let loading = null;

/**
 * Resolves with the `cce-wasm/session/init` module once cce-session.wasm is loaded. The first
 * call starts the load; later calls share it. The wasm URL is given explicitly so the fetch is
 * relative to this file whatever the page URL is (the same choice worker.js makes).
 */
export function loadSessionEngine() {
  if (!loading) {
    loading = (async () => {
      const mod = await import('../dist/session-init.js');
      await mod.init({ wasmUrl: new URL('../dist/cce-session.wasm', import.meta.url).href });
      return mod;
    })();
    // A failed load may be retried (e.g. after `npm run build` in another terminal).
    loading.catch(() => (loading = null));
  }
  return loading;
}

/** Reads a JSON file next to the demo (samples and their manifest). */
export async function fetchJson(relative) {
  const res = await fetch(new URL(relative, import.meta.url));
  if (!res.ok) throw new Error(`${relative}: HTTP ${res.status}`);
  return res.json();
}

/** The package's default count, ceil(chars / 3.5) of string content (what the manager uses). */
export const defaultTokens = (m) =>
  m && typeof m.content === 'string' ? Math.ceil(m.content.length / 3.5) : 0;

/**
 * Shows an error (a CompressError keeps its code and path) in `box`; marks the input whose
 * `data-path` matches the error path as invalid.
 */
export function showError(box, title, error, scope = document) {
  for (const el of scope.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  const code = error && error.code ? String(error.code) : null;
  const path = error && error.path ? String(error.path) : null;
  box.replaceChildren(
    h('p', { class: 'error-title' }, title),
    h(
      'p',
      {},
      h('span', { class: 'error-name' }, String(error?.name ?? 'Error')),
      code ? ' ' : null,
      code ? h('code', { class: 'error-code' }, code) : null,
      path ? ' at ' : null,
      path ? h('code', { class: 'error-path' }, path) : null,
    ),
    h('p', { class: 'error-message' }, String(error?.message ?? error)),
  );
  box.hidden = false;
  if (path) {
    for (const el of scope.querySelectorAll('[data-path]')) {
      if (path === el.dataset.path || path.startsWith(`${el.dataset.path}/`)) {
        el.setAttribute('aria-invalid', 'true');
      }
    }
  }
}

/** Hides an error box and clears the invalid marks. */
export function clearError(box, scope = document) {
  box.hidden = true;
  box.replaceChildren();
  for (const el of scope.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** Sets a status pill (the same look as the compressor's engine pill). */
export function setStatus(el, kind, text) {
  el.dataset.state = kind;
  el.querySelector('.status-text').textContent = text;
}

/**
 * Starts a session tab: fills `ui.sample` from samples/sessions.json into `state.samples`, then
 * loads the engine into `state.api`, reporting in `ui.status` and `ui.error` (within `ui.panel`).
 * Resolves false when the sample list could not be loaded; an engine that failed to load leaves
 * `state.api` as it was.
 */
export async function startSessionTab(ui, state) {
  try {
    state.samples = await fetchJson('samples/sessions.json');
  } catch (error) {
    showError(ui.error, 'Could not load the sample list', error, ui.panel);
    return false;
  }
  ui.sample.replaceChildren(
    ...state.samples.map((s) => h('option', { value: s.file }, `${s.title} (${s.count})`)),
  );
  setStatus(ui.status, 'loading', 'Loading the session engine…');
  try {
    state.api = await loadSessionEngine();
    setStatus(ui.status, 'ready', 'Session engine ready (dist/session-init.js)');
  } catch (error) {
    setStatus(ui.status, 'failed', 'Session engine failed to load');
    showError(ui.error, 'cce-session.wasm could not be loaded (npm run build)', error, ui.panel);
  }
  return true;
}

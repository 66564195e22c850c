// SPDX-License-Identifier: MIT
// Tab switching for the demo page: compressor (app.js), live chat and compaction (loaded lazily).
//
// The URL hash names the tab (#live, #compaction) so a tab can be linked and survives a reload.
// A session tab's module is imported the first time the tab is shown, so the compressor page does
// not fetch the session engine unless it is used.

const TABS = ['compressor', 'live', 'compaction'];
const MODULES = { live: './live-chat.js', compaction: './compaction-tab.js' };
const started = new Map();

const buttons = TABS.map((name) => document.getElementById(`tab-${name}`));
const panels = TABS.map((name) => document.getElementById(`panel-${name}`));

function show(name, { focus = false, updateHash = true } = {}) {
  if (!TABS.includes(name)) name = 'compressor';
  TABS.forEach((tab, i) => {
    const selected = tab === name;
    buttons[i].setAttribute('aria-selected', String(selected));
    buttons[i].tabIndex = selected ? 0 : -1;
    panels[i].hidden = !selected;
    if (selected && focus) buttons[i].focus();
  });
  document.body.dataset.tab = name;
  if (updateHash) {
    const hash = name === 'compressor' ? '' : `#${name}`;
    if (location.hash !== hash) history.replaceState(null, '', hash || location.pathname);
  }
  if (MODULES[name] && !started.has(name)) {
    started.set(
      name,
      import(MODULES[name]).catch((error) => {
        started.delete(name);
        console.error(error);
      }),
    );
  }
  window.dispatchEvent(new CustomEvent('demo-tab', { detail: { tab: name } }));
}

for (const [i, button] of buttons.entries()) {
  button.addEventListener('click', () => show(TABS[i]));
  // Arrow keys move between tabs (WAI-ARIA tabs pattern, automatic activation).
  button.addEventListener('keydown', (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (step === undefined && event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    let next = (i + (step ?? 0) + TABS.length) % TABS.length;
    if (event.key === 'Home') next = 0;
    if (event.key === 'End') next = TABS.length - 1;
    show(TABS[next], { focus: true });
  });
}

window.addEventListener('hashchange', () => show(location.hash.slice(1), { updateHash: false }));
show(location.hash.slice(1), { updateHash: false });

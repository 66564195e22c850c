// SPDX-License-Identifier: MIT
// Demo Web Worker: loads the cce-wasm package and runs compress/uncompress off the main thread.
//
// Protocol (both directions): {id, type, payload}.
//   page → worker  {type: 'compress',  payload: {messages, options}}
//                  {type: 'roundtrip', payload: {input, messages, verbatim}}
//   worker → page  {type: 'ready',  payload: {entry}}            (id 0, once the wasm is loaded)
//                  {type: 'result', payload: …}                  (same id as the request)
//                  {type: 'error',  payload: {name, code, message, path}}

let api = null;

// The explicit-init entry is preferred: a worker has no reason to rely on top-level await, and
// handing the wasm URL in keeps the fetch relative to this file whatever the page URL is.
async function load() {
  const wasmUrl = new URL('../dist/cce.wasm', import.meta.url).href;
  try {
    const mod = await import('../dist/init.js');
    await mod.init({ wasmUrl });
    return { mod, entry: 'dist/init.js' };
  } catch (initError) {
    try {
      const mod = await import('../dist/index.js');
      return { mod, entry: 'dist/index.js' };
    } catch {
      throw initError;
    }
  }
}

const loading = load().then(
  ({ mod, entry }) => {
    api = mod;
    let version = null;
    try {
      version = typeof mod.version === 'function' ? mod.version() : (mod.version ?? null);
    } catch {
      // The version is decoration; a package without one still works.
    }
    self.postMessage({
      id: 0,
      type: 'ready',
      payload: { entry, version: version && String(version) },
    });
  },
  (error) => {
    self.postMessage({ id: 0, type: 'fatal', payload: toWire(error) });
  },
);

/** Errors cross the worker boundary as plain data; CompressError's code and path are kept. */
function toWire(error) {
  if (error && typeof error === 'object') {
    return {
      name: String(error.name ?? 'Error'),
      code: error.code === undefined ? null : String(error.code),
      message: String(error.message ?? error),
      path: error.path === undefined ? null : String(error.path),
    };
  }
  return { name: 'Error', code: null, message: String(error), path: null };
}

const tokens = (m) => (m !== null && typeof m === 'object' ? api.defaultTokenCounter(m) : 0);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

function runCompress({ messages, options }) {
  const t0 = performance.now();
  const result = api.compress(messages, options);
  const ms = performance.now() - t0;
  // Token figures use the package's own counter so they match what a budget run measures.
  const tokensIn = Array.isArray(messages) ? messages.map(tokens) : [];
  const tokensOut = result.messages.map(tokens);
  return {
    result,
    ms,
    tokensIn,
    tokensOut,
    tokensBefore: sum(tokensIn),
    tokensAfter: sum(tokensOut),
  };
}

/** Returns a short description of the first place where two JSON texts differ. */
function firstDifference(expected, actual) {
  const limit = Math.min(expected.length, actual.length);
  let i = 0;
  while (i < limit && expected.charCodeAt(i) === actual.charCodeAt(i)) i++;
  const from = Math.max(0, i - 60);
  return {
    offset: i,
    at: i - from,
    expected: expected.slice(from, i + 80),
    actual: actual.slice(from, i + 80),
    expectedLength: expected.length,
    actualLength: actual.length,
  };
}

function runRoundTrip({ input, messages, verbatim }) {
  const t0 = performance.now();
  const restored = api.uncompress(messages, verbatim);
  const ms = performance.now() - t0;
  const expected = JSON.stringify(input);
  const actual = JSON.stringify(restored.messages);
  const identical = expected === actual;
  const report = {
    identical,
    ms,
    bytes: expected.length,
    messagesExpanded: restored.messages_expanded,
    messagesPassthrough: restored.messages_passthrough,
    missingIds: restored.missing_ids,
    restoredCount: restored.messages.length,
    inputCount: Array.isArray(input) ? input.length : 0,
  };
  if (!identical) {
    report.difference = firstDifference(expected, actual);
    // Name the first message that differs, which is easier to act on than a character offset.
    const n = Math.max(report.inputCount, report.restoredCount);
    for (let k = 0; k < n; k++) {
      if (JSON.stringify(input[k]) !== JSON.stringify(restored.messages[k])) {
        report.difference.index = k;
        report.difference.id = input[k]?.id ?? restored.messages[k]?.id ?? null;
        break;
      }
    }
  }
  return report;
}

const handlers = { compress: runCompress, roundtrip: runRoundTrip };

self.addEventListener('message', async (event) => {
  const { id, type, payload } = event.data ?? {};
  await loading;
  if (!api) {
    self.postMessage({
      id,
      type: 'error',
      payload: { name: 'Error', code: null, message: 'the wasm package did not load', path: null },
    });
    return;
  }
  const handler = handlers[type];
  if (!handler) {
    self.postMessage({
      id,
      type: 'error',
      payload: { name: 'Error', code: null, message: `unknown request ${type}`, path: null },
    });
    return;
  }
  try {
    self.postMessage({ id, type: 'result', payload: handler(payload) });
  } catch (error) {
    self.postMessage({ id, type: 'error', payload: toWire(error) });
  }
});

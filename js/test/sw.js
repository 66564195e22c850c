// SPDX-License-Identifier: MIT
// The module service worker of sw.html (a browser extension's background worker is one). Service
// workers forbid top-level await, so the default entry (which awaits its wasm) cannot be their
// import; cce-wasm/init can: it loads nothing until init() is called, here in an event.
import { compress, init, uncompress } from '/dist/init.js';

import { compressCorpusCase } from '/corpus-case.js';

self.addEventListener('message', (event) => {
  event.waitUntil(
    (async () => {
      let report = {};
      try {
        await init({ wasmUrl: '/dist/cce.wasm' });
        report = await compressCorpusCase({ compress, uncompress });
        report.inServiceWorker =
          typeof ServiceWorkerGlobalScope === 'function' && self instanceof ServiceWorkerGlobalScope;
      } catch (e) {
        report.failure = String(e?.stack ?? e);
      }
      event.source.postMessage(report);
    })(),
  );
});

// SPDX-License-Identifier: MIT
// The module Worker of worker.html. Workers do not see a page's import map, so it imports the
// package's browser entry by path, as a bundler-free app's worker would.
import { compressCorpusCase } from '/corpus-case.js';

let report = {};
try {
  const api = await import('/dist/index.js');
  const { engineBuild } = await import('/dist/transport.js');
  report = await compressCorpusCase(api);
  report.build = engineBuild();
  report.inWorker = typeof window === 'undefined' && typeof importScripts === 'function';
} catch (e) {
  report.failure = String(e?.stack ?? e);
}
postMessage(report);

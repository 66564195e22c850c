// SPDX-License-Identifier: MIT
// The module Worker of worker.html. Workers do not see a page's import map, so it imports the
// package's browser entry by path, as a bundler-free app's worker would.
const report = {};
try {
  const { compress, uncompress } = await import('/dist/index.js');
  const { engineBuild } = await import('/dist/transport.js');
  const input = await (await fetch('/input.json')).json();
  const result = compress(input.messages, input.options);
  report.json = JSON.stringify(result);
  report.roundTrip =
    JSON.stringify(uncompress(result.messages, result.verbatim).messages) ===
    JSON.stringify(input.messages);
  report.build = engineBuild();
  report.inWorker = typeof window === 'undefined' && typeof importScripts === 'function';
} catch (e) {
  report.failure = String(e?.stack ?? e);
}
postMessage(report);

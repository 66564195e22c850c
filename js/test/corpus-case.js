// SPDX-License-Identifier: MIT
// What the worker pages (worker.js, sw.js) report of the corpus case: its compressed JSON and
// whether uncompress restores the input. Served by runtimes.test.mjs as /corpus-case.js.
export async function compressCorpusCase({ compress, uncompress }) {
  const input = await (await fetch('/input.json')).json();
  const result = compress(input.messages, input.options);
  return {
    json: JSON.stringify(result),
    roundTrip:
      JSON.stringify(uncompress(result.messages, result.verbatim).messages) ===
      JSON.stringify(input.messages),
  };
}

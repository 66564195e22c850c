#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes the fuzzer's seed corpus (compress requests) to DIR (default build/fuzz/seeds); never committed.
#
# Sources: every compress case of the oracle corpus (conformance/public in build/testdata) (as pinned with compat "cce-1.0", and
# again in the default mode), and windows of the real conversations in data/real under a
# few option sets (budgets with forceConverge, fuzzy dedup, zero recency window). Seeds stay under
# the fuzzer's -max_len (32 KiB) so that libFuzzer never truncates them into invalid JSON.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-build/fuzz/seeds}"
node scripts/testdata.mjs  # unpacks tests/corpus into build/testdata when stale
shared="${CCE_TESTDATA_DIR:-build/testdata}"
if [ ! -d "$shared/conformance/public/cases" ]; then
  echo "make-seeds: $shared/conformance/public/cases not found" >&2
  exit 1
fi
mkdir -p "$out"

node - "$shared" "$out" <<'EOF'
const fs = require('fs');
const path = require('path');
const [shared, out] = process.argv.slice(2);
const maxLen = 32 * 1024;
let written = 0;
function write(name, request) {
  const text = JSON.stringify(request);
  if (Buffer.byteLength(text) > maxLen) return;
  fs.writeFileSync(path.join(out, name.replace(/[^A-Za-z0-9._-]/g, '_') + '.json'), text);
  written++;
}

const casesDir = path.join(shared, 'conformance/public/cases');
for (const file of fs.readdirSync(casesDir).sort()) {
  const c = JSON.parse(fs.readFileSync(path.join(casesDir, file), 'utf8'));
  if (!c.input || !Array.isArray(c.input.messages)) continue;  // factory cases
  const options = c.input.options || {};
  const base = path.basename(file, '.json');
  write(`case-${base}-cce10`, { messages: c.input.messages, options: { ...options, compat: 'cce-1.0' } });
  write(`case-${base}-safe`, { messages: c.input.messages, options });
}

const optionSets = [
  {},
  { recencyWindow: 0 },
  { recencyWindow: 1, fuzzyDedup: true, fuzzyThreshold: 0.6 },
  { tokenBudget: 400, forceConverge: true },
  { tokenBudget: 2000, minRecencyWindow: 2, embedSummaryId: true, compat: 'cce-1.0' },
  { recencyWindow: 0, dedup: false, preserve: [], compat: 'cce-1.0' },
];
const realDir = path.join(shared, 'data/real');
for (const file of fs.readdirSync(realDir).filter((f) => f.endsWith('.json')).sort()) {
  const conversations = JSON.parse(fs.readFileSync(path.join(realDir, file), 'utf8'));
  const base = path.basename(file, '.json');
  let k = 0;
  for (let c = 0; c < conversations.length && c < 12; c++) {
    const messages = conversations[c];
    // Consecutive windows that fit in a seed: the fuzzer mutates them one at a time.
    for (let start = 0, w = 0; start < messages.length && w < 2; w++) {
      let end = start;
      let size = 0;
      while (end < messages.length && size + JSON.stringify(messages[end]).length < maxLen - 512) {
        size += JSON.stringify(messages[end]).length;
        end++;
      }
      if (end === start) { start++; continue; }
      write(`real-${base}-${c}-${w}`, { messages: messages.slice(start, end),
                                        options: optionSets[k++ % optionSets.length] });
      start = end;
    }
  }
}
console.log(`make-seeds: ${written} seeds in ${out}`);
EOF

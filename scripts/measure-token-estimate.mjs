#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Measures the default token estimates against a real BPE tokenizer (gpt-tokenizer).
//
// Compares ceil(len / 3.5) (the reference's counter, kept by compat mode) and the native
// estimateTokens (src/token_estimate.cpp, run through tests/token_estimate_tool.cpp) with
// o200k_base and cl100k_base counts of each message's content, on ../shared/data/real/*.json and
// the hand-written samples in tests/data/token-estimate/*.txt. The estimator is never
// re-implemented here: the script compiles the native driver with g++ and pipes texts through it.
//
//   (mkdir -p /tmp/tok && cd /tmp/tok && npm install --no-save gpt-tokenizer)  # not a dependency
//   node scripts/measure-token-estimate.mjs [--tokenizer-dir /tmp/tok] [--markdown]
//   node scripts/measure-token-estimate.mjs --fit [o200k|cl100k]  # costs for token_estimate.cpp
//
// Statistics per data set: mean absolute percentage error per message (messages with content) and
// per conversation (sums), the 90th percentile of the per-message error, and the total bias
// (sum of estimates / sum of real tokens - 1). Sample files under holdout/ are never fitted to.
//
// --fit solves non-negative weighted least squares over the driver's feature counts: each data
// set weighs the same (the samples --fit-sample-weight times, as they alone carry the CJK and
// other-script features), and inside a set each message's squared error is divided by
// max(tokens, --fit-floor) ** --fit-power, so one-word messages do not dominate and long ones
// matter for the totals. The defaults produced the costs in src/token_estimate.cpp.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
};
const realDir = option("--real-dir", path.join(root, "build", "testdata", "data", "real"));
const samplesDir = option("--samples-dir", path.join(root, "tests", "data", "token-estimate"));
const tokenizerDir = option("--tokenizer-dir", "/tmp/tok");
const markdown = args.includes("--markdown");
const fitAt = args.indexOf("--fit");
const fitTarget = fitAt >= 0 ? (args[fitAt + 1] === "cl100k" ? "cl100k" : "o200k") : null;
const fitFloor = Number(option("--fit-floor", "20"));
const fitPower = Number(option("--fit-power", "1.5"));
const fitSampleWeight = Number(option("--fit-sample-weight", "2"));

function loadTokenizers() {
  for (const base of [root, tokenizerDir]) {
    try {
      const require = createRequire(path.join(base, "package.json"));
      return {
        o200k: require("gpt-tokenizer/encoding/o200k_base").countTokens,
        cl100k: require("gpt-tokenizer/encoding/cl100k_base").countTokens,
      };
    } catch {
      // try the next location
    }
  }
  console.error("gpt-tokenizer not found: npm install --no-save --prefix /tmp/tok gpt-tokenizer");
  process.exit(2);
}

function buildTool() {
  const exe = path.join(os.tmpdir(), `cce-token-estimate-tool-${process.pid}`);
  const src = (p) => path.join(root, p);
  const build = spawnSync("g++", ["-std=c++17", "-O2", `-I${src("src")}`,
    src("tests/token_estimate_tool.cpp"), src("src/token_estimate.cpp"),
    src("src/jscompat/utf.cpp"), "-o", exe], { stdio: "inherit" });
  if (build.status !== 0) process.exit(2);
  return exe;
}

function runTool(exe, texts, withFeatures) {
  const input = texts.map((t) => JSON.stringify(t)).join("\n") + "\n";
  const run = spawnSync(exe, withFeatures ? ["--features"] : [],
    { input, maxBuffer: 1 << 30, encoding: "utf8" });
  if (run.status !== 0) {
    console.error(run.stderr);
    process.exit(2);
  }
  const rows = run.stdout.trim().split("\n").map((l) => l.split(" ").map(Number));
  if (rows.length !== texts.length) throw new Error("driver returned a different number of lines");
  return rows;
}

// Data sets: { name, conversations: [[content, ...], ...] }.
function loadDataSets() {
  const sets = [];
  for (const file of fs.readdirSync(realDir).filter((f) => f.endsWith(".json")).sort()) {
    const conversations = JSON.parse(fs.readFileSync(path.join(realDir, file), "utf8"));
    sets.push({
      name: file.replace(/\.json$/, ""),
      conversations: conversations.map((c) =>
        c.filter((m) => typeof m.content === "string").map((m) => m.content)),
    });
  }
  // Each sample file is one conversation whose messages are its blank-line-separated blocks, so the
  // per-conversation error is the whole paragraph's and the per-message error the blocks'. Files in
  // holdout/ are measured but never fitted to: their error is the honest one.
  for (const [dir, prefix, holdout] of [[samplesDir, "samples", false],
    [path.join(samplesDir, "holdout"), "holdout", true]]) {
    const groups = new Map();
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".txt")).sort()) {
      const text = fs.readFileSync(path.join(dir, file), "utf8");
      const lang = file.split("-")[0];
      const group = `${prefix}-${["zh", "ja", "ko", "en"].includes(lang) ? lang : "other-scripts"}`;
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push({ file, text, blocks: text.split(/\n{2,}(?=[^\n])/) });
    }
    const kinds = ["zh", "ja", "ko", "other-scripts", "en"];
    const order = (g) => kinds.indexOf(g.slice(prefix.length + 1));
    for (const [name, files] of [...groups].sort((a, b) => order(a[0]) - order(b[0]))) {
      sets.push({
        name, sample: true, holdout,
        files: files.map((f) => (holdout ? "holdout/" : "") + f.file),
        wholeTexts: files.map((f) => f.text),
        conversations: files.map((f) => f.blocks),
      });
    }
  }
  return sets;
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const signedPct = (x) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`;

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function stats(conversations, real, est) {
  const messageErrors = [];
  const conversationErrors = [];
  let realSum = 0;
  let estSum = 0;
  conversations.forEach((conv, c) => {
    let r = 0;
    let e = 0;
    conv.forEach((_, m) => {
      const rm = real[c][m];
      const em = est[c][m];
      r += rm;
      e += em;
      if (rm > 0) messageErrors.push(Math.abs(em - rm) / rm);
    });
    if (r > 0) conversationErrors.push(Math.abs(e - r) / r);
    realSum += r;
    estSum += e;
  });
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  messageErrors.sort((a, b) => a - b);
  return { messageMape: mean(messageErrors), messageP90: quantile(messageErrors, 0.9),
    conversationMape: mean(conversationErrors), bias: estSum / realSum - 1, realSum };
}

// Non-negative weighted least squares (active set: drop the most negative coefficient, re-solve).
function fitCosts(rows, targets, weights, names) {
  const k = names.length;
  const active = names.map(() => true);
  for (;;) {
    const idx = [...Array(k).keys()].filter((j) => active[j]);
    const m = idx.length;
    const a = Array.from({ length: m }, () => new Float64Array(m + 1));
    rows.forEach((x, r) => {
      const w = weights[r];
      for (let p = 0; p < m; ++p) {
        const xp = x[idx[p]];
        if (xp === 0) continue;
        for (let q = 0; q < m; ++q) a[p][q] += w * xp * x[idx[q]];
        a[p][m] += w * xp * targets[r];
      }
    });
    for (let p = 0; p < m; ++p) a[p][p] += 1e-6;  // features absent from all rows stay at 0
    for (let p = 0; p < m; ++p) {  // Gaussian elimination with partial pivoting
      let best = p;
      for (let r = p + 1; r < m; ++r) if (Math.abs(a[r][p]) > Math.abs(a[best][p])) best = r;
      [a[p], a[best]] = [a[best], a[p]];
      for (let r = 0; r < m; ++r) {
        if (r === p || a[r][p] === 0) continue;
        const f = a[r][p] / a[p][p];
        for (let q = p; q <= m; ++q) a[r][q] -= f * a[p][q];
      }
    }
    const solution = new Float64Array(k);
    idx.forEach((j, p) => { solution[j] = a[p][m] / a[p][p]; });
    let worst = -1;
    for (const j of idx) {
      if (solution[j] < 0 && (worst < 0 || solution[j] < solution[worst])) worst = j;
    }
    if (worst < 0) return solution;
    active[worst] = false;
  }
}

function main() {
  const tokenizers = loadTokenizers();
  const exe = buildTool();
  const names = spawnSync(exe, ["--names"], { encoding: "utf8" }).stdout.trim().split(" ");
  const sets = loadDataSets();
  const texts = sets.flatMap((s) => s.conversations.flat());
  const started = process.hrtime.bigint();
  const rows = runTool(exe, texts, fitTarget !== null);
  const driverMs = Number(process.hrtime.bigint() - started) / 1e6;

  let at = 0;
  for (const set of sets) {
    set.real = { o200k: [], cl100k: [] };
    set.est = { ref: [], cce: [] };
    set.features = [];
    for (const conv of set.conversations) {
      set.real.o200k.push(conv.map((t) => tokenizers.o200k(t)));
      set.real.cl100k.push(conv.map((t) => tokenizers.cl100k(t)));
      set.est.ref.push(conv.map((t) => Math.ceil(t.length / 3.5)));
      set.est.cce.push(conv.map(() => rows[at++][0]));
      if (fitTarget !== null) {
        set.features.push(rows.slice(at - conv.length, at).map((r) => r.slice(1)));
      }
    }
  }

  if (fitTarget !== null) {
    // Weights as described at the top; the target subtracts the 0.5 that the final ceil adds.
    const fx = [];
    const fy = [];
    const fw = [];
    for (const set of sets.filter((s) => !s.holdout)) {
      const messages = set.conversations.flat().length;
      const setWeight = (set.sample ? fitSampleWeight : 1) / messages;
      set.conversations.forEach((conv, c) => conv.forEach((_, m) => {
        const real = set.real[fitTarget][c][m];
        if (real === 0) return;
        fx.push(set.features[c][m]);
        fy.push(real - 0.5);
        fw.push(setWeight / Math.max(real, fitFloor) ** fitPower);
      }));
    }
    const costs = fitCosts(fx, fy, fw, names);
    console.log(`fitted costs (milli-tokens) against ${fitTarget}:`);
    names.forEach((n, j) => {
      const value = `${Math.round(costs[j] * 1000)},`.padEnd(7);
      console.log(`    ${value}// k${n[0].toUpperCase()}${n.slice(1)}`);
    });
    fs.rmSync(exe, { force: true });
    return;
  }

  const header = ["data set", "messages", "o200k tokens",
    "tokenizer", "estimator", "msg MAPE", "msg p90", "conv MAPE", "total bias"];
  const lines = [];
  for (const set of sets) {
    const messages = set.conversations.flat().length;
    for (const tok of ["o200k", "cl100k"]) {
      for (const [est, label] of [["ref", "ceil(len/3.5)"], ["cce", "estimateTokens"]]) {
        const s = stats(set.conversations, set.real[tok], set.est[est]);
        const o200k = set.real.o200k.flat().reduce((a, b) => a + b, 0);
        lines.push([set.name, String(messages), String(o200k), tok, label, pct(s.messageMape),
          pct(s.messageP90), pct(s.conversationMape), signedPct(s.bias)]);
      }
    }
  }
  if (markdown) {
    console.log(`| ${header.join(" | ")} |`);
    const align = header.map((_, j) => (j === 1 || j === 2 || j >= 5 ? "---:" : "---"));
    console.log(`|${align.join("|")}|`);
    for (const l of lines) console.log(`| ${l.join(" | ")} |`);
  } else {
    const widths = header.map((h, j) => Math.max(h.length, ...lines.map((l) => l[j].length)));
    const left = (j) => j === 0 || j === 3 || j === 4;
    const fmt = (l) => l.map((c, j) => (left(j) ? c.padEnd(widths[j]) : c.padStart(widths[j])));
    const join = (l) => fmt(l).join("  ");
    console.log(join(header));
    for (const l of lines) console.log(join(l));
  }

  // Per sample file, whole (these are the unit test's table rows).
  const samples = sets.filter((s) => s.sample).flatMap((s) => s.files.map((file, c) => ({
    file, text: s.wholeTexts[c] })));
  const sampleEstimates = runTool(exe, samples.map((s) => s.text), false);
  console.log("\nsample files (whole file):");
  samples.forEach(({ file, text }, j) => {
    const o = tokenizers.o200k(text);
    const e = sampleEstimates[j][0];
    const cells = [file.padEnd(28), `units ${String(text.length).padStart(5)}`,
      `o200k ${String(o).padStart(4)}`, `cl100k ${String(tokenizers.cl100k(text)).padStart(4)}`,
      `ceil(len/3.5) ${String(Math.ceil(text.length / 3.5)).padStart(4)}`,
      `estimate ${String(e).padStart(4)} (${signedPct(e / o - 1)} vs o200k)`];
    console.log(`  ${cells.join("  ")}`);
  });
  const units = texts.reduce((a, t) => a + t.length, 0);
  console.log(`\ndriver: ${texts.length} texts, ${units} UTF-16 units, ${driverMs.toFixed(0)} ms ` +
    "(including process start and JSON decoding)");
  fs.rmSync(exe, { force: true });
}

main();

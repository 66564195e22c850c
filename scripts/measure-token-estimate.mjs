#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Measures the default token estimates against a real BPE tokenizer (gpt-tokenizer).
//
// Compares ceil(len / 3.5) (the reference's counter, kept by compat mode) and the native
// estimateTokens (src/token_estimate.cpp, run through tests/token_estimate_tool.cpp) with
// o200k_base and cl100k_base counts of every text the default mode bills (string contents, text
// parts, tool names and arguments) in data/real, data/native/openai and data/bench (unpacked in
// build/testdata) and of the hand-written samples in tests/data/token-estimate/*.txt. The
// estimator is never re-implemented here: the script compiles the native driver with g++ and pipes
// texts through it.
//
//   (mkdir -p /tmp/tok && cd /tmp/tok && npm install --no-save gpt-tokenizer)  # not a dependency
//   node scripts/measure-token-estimate.mjs [--tokenizer-dir /tmp/tok] [--markdown]
//   node scripts/measure-token-estimate.mjs --fit [o200k|cl100k]  # costs for token_estimate.cpp
//
// Statistics per data set: mean absolute percentage error per message (messages with content) and
// per conversation (sums), the 90th percentile of the per-message error, and the total bias
// (sum of estimates / sum of real tokens - 1); then the spread of estimate / o200k per text over
// the corpus, overall and by class of text. Sample files under holdout/ are never fitted to.
//
// --fit solves non-negative weighted least squares over the driver's feature counts. Each text's
// squared error is divided by max(tokens, --fit-floor) ** --fit-power (default 1: every token
// weighs about the same); by default each data set weighs the same (the samples
// --fit-sample-weight times, as they alone carry the CJK and other-script features), with
// --fit-pooled every text weighs alike. --fit-keep a,b keeps those features at their costs in
// src/token_estimate.cpp and fits the others around them; randomChars is always kept (it is
// measured on random base64, and texts holding random-looking runs stay out of the fit) unless
// --fit-random is given. src/token_estimate.cpp says which runs produced its costs.

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
const nativeDir = option("--native-dir",
  path.join(root, "build", "testdata", "data", "native", "openai"));
const benchDir = option("--bench-dir", path.join(root, "build", "testdata", "data", "bench"));
const samplesDir = option("--samples-dir", path.join(root, "tests", "data", "token-estimate"));
const tokenizerDir = option("--tokenizer-dir", "/tmp/tok");
const markdown = args.includes("--markdown");
const fitAt = args.indexOf("--fit");
const fitTarget = fitAt >= 0 ? (args[fitAt + 1] === "cl100k" ? "cl100k" : "o200k") : null;
const fitFloor = Number(option("--fit-floor", "20"));
const fitPower = Number(option("--fit-power", "1"));
const fitSampleWeight = Number(option("--fit-sample-weight", "2"));
const fitPooled = args.includes("--fit-pooled");
const fitKeep = new Set(option("--fit-keep", "").split(",").filter(Boolean));
// randomChars is the supplement measured on random base64 (src/token_estimate.cpp) unless
// --fit-random fits it with the others.
if (!args.includes("--fit-random")) fitKeep.add("randomChars");

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

// What the default mode bills of a message as text (docs/token-counts.md): its string content or
// its text parts joined with "\n", and each tool call's name and arguments.
function billedTexts(m) {
  const out = [];
  if (typeof m.content === "string") out.push(m.content);
  else if (Array.isArray(m.content)) {
    const parts = m.content.filter((p) => p && p.type === "text" && typeof p.text === "string");
    if (parts.length > 0) out.push(parts.map((p) => p.text).join("\n"));
  }
  for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    const { name, arguments: args } = call?.function ?? {};
    if (typeof name === "string") {
      out.push(name);
      classOf.set(name, "tool name");
    }
    if (typeof args === "string") {
      out.push(args);
      classOf.set(args, "tool arguments");
    }
  }
  return out;
}

// A rough class of a text for the error table: what the estimate must price (tool names and
// arguments are marked when read; the rest is told apart by a few line patterns).
const classOf = new Map();
function textClass(text) {
  const known = classOf.get(text);
  if (known !== undefined) return known;
  const start = text.trimStart()[0];
  if (start === "{" || start === "[") {
    try {
      JSON.parse(text);
      return "JSON";
    } catch {
      // not JSON after all
    }
  }
  const lines = text.split("\n");
  const marked = lines.filter((l) => /^\s{0,3}(#{1,6} |[-*+] |\d+\. |> |\|.*\||```)/.test(l));
  if (marked.length >= 2 || text.includes("```")) return "markdown";
  const code = lines.filter((l) =>
    /[;{}()=]\s*$|^\s*(def|class|import|from|return|if|for|function|const|let|var)\b/.test(l));
  if (code.length >= Math.max(2, lines.length * 0.3)) return "code";
  return "prose and logs";
}

// Data sets: { name, conversations: [[text, ...], ...] }: one per file of data/real,
// data/native/openai (the OpenAI Chat twins of data/native/anthropic) and data/bench.
function loadDataSets() {
  const sets = [];
  for (const [dir, prefix] of [[realDir, ""], [nativeDir, "native/"], [benchDir, "bench/"]]) {
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
      const data = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
      const conversations =
        Array.isArray(data) ? data : Array.isArray(data?.messages) ? [data.messages] : [];
      const texts = conversations.map((c) => (Array.isArray(c) ? c : c?.messages ?? [])
        .flatMap(billedTexts).filter((t) => t.length > 0)).filter((c) => c.length > 0);
      const name = prefix + file.replace(/\.json$/, "");
      if (texts.length > 0) sets.push({ name, conversations: texts });
    }
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

// The costs in src/token_estimate.cpp by feature name ("spacedWords" -> 993).
function currentCosts() {
  const source = fs.readFileSync(path.join(root, "src", "token_estimate.cpp"), "utf8");
  const table = source.slice(source.indexOf("kTokenFeatureCostMilli = {"));
  const costs = new Map();
  for (const m of table.slice(0, table.indexOf("};")).matchAll(/(\d+),\s*\/\/ k(\w+)/g)) {
    costs.set(m[2][0].toLowerCase() + m[2].slice(1), Number(m[1]));
  }
  return costs;
}

// Non-negative weighted least squares (active set: drop the most negative coefficient, re-solve).
function fitCosts(rows, targets, weights, names, kept) {
  const k = names.length;
  const active = names.map((n) => !kept.has(n));
  // A kept feature's cost moves to the target side: the others are fitted around it.
  targets = targets.map((t, r) => t - names.reduce((sum, n, j) =>
    sum + (kept.has(n) ? rows[r][j] * kept.get(n) : 0), 0));
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
    names.forEach((n, j) => { if (kept.has(n)) solution[j] = kept.get(n); });
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
    const randomAt = names.indexOf("randomChars");
    const fx = [];
    const fy = [];
    const fw = [];
    for (const set of sets.filter((s) => !s.holdout)) {
      const messages = set.conversations.flat().length;
      const setWeight = fitPooled ? 1 : (set.sample ? fitSampleWeight : 1) / messages;
      set.conversations.forEach((conv, c) => conv.forEach((_, m) => {
        const real = set.real[fitTarget][c][m];
        if (real === 0) return;
        // A kept randomChars is o200k's extra cost on pure random base64, measured apart: texts
        // with random-looking runs stay out of the fit, or it would trade the other costs against
        // it (their runs are not all purely random).
        if (fitKeep.has("randomChars") && set.features[c][m][randomAt] > 0) return;
        fx.push(set.features[c][m]);
        fy.push(real - 0.5);
        fw.push(setWeight / Math.max(real, fitFloor) ** fitPower);
      }));
    }
    const current = currentCosts();
    const kept = new Map([...fitKeep].map((n) => [n, current.get(n) / 1000]));
    for (const [n, v] of kept) if (!(v >= 0)) throw new Error(`--fit-keep: no cost for ${n}`);
    const costs = fitCosts(fx, fy, fw, names, kept);
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

  // The spread of estimate / o200k over the corpus's texts (not the samples): budgets are decided
  // by the long texts, so texts under 20 tokens (where one token is 5 % or more) are left out.
  const ratios = [];
  const classes = new Map();
  let corpusReal = 0;
  let corpusEst = 0;
  for (const set of sets.filter((s) => !s.sample)) {
    set.conversations.forEach((conv, c) => conv.forEach((_, m) => {
      const real = set.real.o200k[c][m];
      corpusReal += real;
      corpusEst += set.est.cce[c][m];
      if (real >= 20) ratios.push(set.est.cce[c][m] / real);
      const k = textClass(conv[m]);
      const cls = classes.get(k) ?? { texts: 0, real: 0, est: 0, ratios: [] };
      cls.texts++;
      cls.real += real;
      cls.est += set.est.cce[c][m];
      if (real >= 20) cls.ratios.push(set.est.cce[c][m] / real);
      classes.set(k, cls);
    }));
  }
  ratios.sort((a, b) => a - b);
  const share = (q) => quantile(ratios, q).toFixed(3);
  console.log(`\nestimateTokens / o200k per corpus text of 20+ tokens (${ratios.length}): ` +
    `p1 ${share(0.01)}, p5 ${share(0.05)}, median ${share(0.5)}, p95 ${share(0.95)}, ` +
    `p99 ${share(0.99)}; ` +
    `all texts together ${(corpusEst / corpusReal).toFixed(3)}`);
  console.log("by class: texts, o200k tokens, estimate / o200k of them together, and p5 / " +
    "median / p95 of it per text of 20+ tokens");
  for (const [k, cls] of classes) {
    cls.ratios.sort((a, b) => a - b);
    const q = (x) => quantile(cls.ratios, x).toFixed(3);
    const counts = `${String(cls.texts).padStart(6)} ${String(cls.real).padStart(9)}`;
    console.log(`  ${k.padEnd(15)} ${counts} ` +
      `${(cls.est / cls.real).toFixed(3)}  ${q(0.05)} / ${q(0.5)} / ${q(0.95)}`);
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

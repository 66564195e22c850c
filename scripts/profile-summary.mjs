#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Summarises a `node --cpu-prof` profile (scripts/profile-wasm.sh): of the samples inside the
// API's `compress` calls (the workload's own work left out), the functions with the most self
// time and the most inclusive time (a recursive function counted once per stack), as shares.
//
//   node scripts/profile-summary.mjs FILE.cpuprofile [--top N]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 30;
const profile = JSON.parse(readFileSync(args[0], 'utf8'));

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i]));
// Short names: C++ signatures without their parameters and std::__2.
const nameOf = (node) => {
  const frame = node.callFrame;
  const name = frame.functionName.replace(/std::__2::/g, '').replace(/\(anonymous namespace\)::/g, '');
  const cut = name.indexOf('(');
  const short = (cut > 0 ? name.slice(0, cut) : name) || '(anonymous)';
  return frame.url ? `${short} ${frame.url.split('/').pop()}` : short;
};
const inclusive = (node) => {
  let t = self.get(node.id) ?? 0;
  for (const child of node.children ?? []) t += inclusive(byId.get(child));
  node.total = t;
  return t;
};
inclusive(profile.nodes[0]);

const selfBy = new Map();
const totalBy = new Map();
let inCompress = 0;
const walk = (node, open) => {
  const name = nameOf(node);
  const first = !open.has(name);
  const entering = node.callFrame.functionName === 'compress' && !open.has('(compress)');
  const counted = entering || open.has('(compress)');
  if (first && counted) {
    totalBy.set(name, (totalBy.get(name) ?? 0) + node.total);
    open.add(name);
  }
  if (counted) selfBy.set(name, (selfBy.get(name) ?? 0) + (self.get(node.id) ?? 0));
  if (entering) {
    inCompress += node.total;
    open.add('(compress)');
    for (const child of node.children ?? []) walk(byId.get(child), open);
    open.delete('(compress)');
  } else {
    for (const child of node.children ?? []) walk(byId.get(child), open);
  }
  if (first && counted) open.delete(name);
};
walk(profile.nodes[0], new Set());

const base = inCompress || [...self.values()].reduce((a, b) => a + b, 0);
const print = (title, table) => {
  console.log(`\n${title} (% of the samples inside compress, ${(base / 1000).toFixed(0)} ms)`);
  for (const [name, t] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * t) / base).toFixed(1).padStart(6)} %  ${name.slice(0, 110)}`);
  }
};
print('self time', selfBy);
print('inclusive time', totalBy);

#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Where the bytes of a wasm module go: function bodies by name (needs a build linked with
// --profiling-funcs, which keeps the name section), grouped by source-level owner, plus data.
//
//   node scripts/wasm-functions.mjs build/wasm-prof/cce.wasm [TOP]
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: wasm-functions.mjs FILE.wasm [TOP]');
  process.exit(2);
}
const top = Number(topArg ?? 40);
const bytes = readFileSync(file);

let at = 8; // magic + version
function u32() {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return result;
    shift += 7;
  }
}
function name() {
  const n = u32();
  const s = bytes.subarray(at, at + n).toString('utf8');
  at += n;
  return s;
}

let importedFunctions = 0;
const bodies = []; // [start, end] per defined function
const names = new Map();
const sections = [];
while (at < bytes.length) {
  const id = bytes[at++];
  const size = u32();
  const start = at;
  const end = at + size;
  let label = `section ${id}`;
  if (id === 0) {
    label = `custom "${name()}"`;
    if (label === 'custom "name"') {
      while (at < end) {
        const sub = bytes[at++];
        const subSize = u32();
        const subEnd = at + subSize;
        if (sub === 1) {
          const count = u32();
          for (let i = 0; i < count; i++) {
            const index = u32();
            names.set(index, name());
          }
        }
        at = subEnd;
      }
    }
  } else if (id === 2) {
    const count = u32();
    for (let i = 0; i < count; i++) {
      name();
      name();
      const kind = bytes[at++];
      if (kind === 0) {
        u32();
        importedFunctions++;
      } else if (kind === 1) {
        at++;
        const flags = u32();
        u32();
        if (flags & 1) u32();
      } else if (kind === 2) {
        const flags = u32();
        u32();
        if (flags & 1) u32();
      } else if (kind === 3) {
        at += 2;
      }
    }
  } else if (id === 10) {
    const count = u32();
    for (let i = 0; i < count; i++) {
      const size = u32();
      bodies.push([at, at + size]);
      at += size;
    }
  }
  sections.push({ id, label: { 1: 'type', 2: 'import', 3: 'function', 5: 'memory', 7: 'export', 9: 'elem', 10: 'code', 11: 'data' }[id] ?? label, size });
  at = end;
}

const gz = (buf) => gzipSync(buf, { level: 9 }).length;
console.log(`${file}: ${bytes.length} bytes, gzip ${gz(bytes)}`);
for (const s of sections) console.log(`  ${s.label.padEnd(24)} ${String(s.size).padStart(8)}`);

const functions = bodies.map(([start, end], i) => {
  const index = importedFunctions + i;
  return { name: names.get(index) ?? `func${index}`, size: end - start, body: bytes.subarray(start, end) };
});
functions.sort((a, b) => b.size - a.size);
console.log(`\nlargest ${top} functions (raw bytes of the body):`);
for (const f of functions.slice(0, top)) console.log(`  ${String(f.size).padStart(7)}  ${f.name.slice(0, 110)}`);

// Owner: the namespace-qualified prefix of a demangled name, or the file-level symbol.
function owner(n) {
  if (/^(std::|__|emscripten|embind|dlmalloc|emmalloc|memcpy|memset|memmove|strlen)/.test(n)) {
    if (n.startsWith('std::')) {
      const m = n.match(/^std::__2::([a-z_]+)/);
      return `libc++ ${m ? m[1] : ''}`;
    }
    return 'runtime';
  }
  const m = n.match(/^cce::(?:\(anonymous namespace\)::)?((?:[a-z]+::)?)([A-Za-z_]+)/);
  if (m) return `cce::${m[1]}${m[2]}`;
  return n.split('(')[0].slice(0, 40);
}
const groups = new Map();
for (const f of functions) {
  const key = owner(f.name);
  const g = groups.get(key) ?? { size: 0, count: 0, parts: [] };
  g.size += f.size;
  g.count++;
  g.parts.push(f.body);
  groups.set(key, g);
}
const ranked = [...groups.entries()].sort((a, b) => b[1].size - a[1].size);
console.log(`\nby owner (raw bytes, functions, gzip of the bodies alone):`);
for (const [key, g] of ranked.slice(0, top)) {
  console.log(`  ${String(g.size).padStart(7)} ${String(g.count).padStart(4)} ${String(gz(Buffer.concat(g.parts))).padStart(7)}  ${key}`);
}

// SPDX-License-Identifier: MIT
// Reorders a wasm module's defined functions so that similar bodies sit next to each other,
// which is what gzip's 32 KB window can use: Binaryen leaves them ordered by how often they are
// called (for one-byte call indices), which scatters the libc++ instantiations, the stages'
// helpers and their look-alikes over the 100 KB code section. A greedy chain by shared 4-byte
// sequences brought cce.wasm's code 1 KB gzip smaller (scripts/pack-wasm.mjs runs this).
//
// Only function indices move: every `call`, the table's element segments, the exports, the start
// function and the function and local names are rewritten; bodies are otherwise copied byte for
// byte. Instructions are decoded to find the calls, for the features the modules are built with
// (MVP, bulk memory, sign extension, saturating truncation, SIMD); anything else is refused rather
// than guessed at, and the caller keeps the module it had.

import { deflateRawSync } from 'node:zlib';

import { Reader, concat, isNameSection, section, sectionsOf, u32Leb } from './wasm-bytes.mjs';

const SECTION = { custom: 0, type: 1, import: 2, function: 3, export: 7, start: 8, elem: 9, code: 10 };

const TOOL = 'reorder-functions';

function fail(message) {
  throw new Error(`${TOOL}: ${message}`);
}

// ---- instructions ------------------------------------------------------------------------------

// Immediates by opcode (MVP). 'none': no immediate; the others are read by skipImmediates.
const MEMARG = 'memarg';
const immediates = new Map();
const set = (from, to, kind) => {
  for (let op = from; op <= to; op++) immediates.set(op, kind);
};
set(0x00, 0x01, 'none'); // unreachable, nop
set(0x02, 0x04, 'blocktype'); // block, loop, if
set(0x05, 0x05, 'none'); // else
set(0x0b, 0x0b, 'none'); // end
set(0x0c, 0x0d, 'u32'); // br, br_if
set(0x0e, 0x0e, 'br_table');
set(0x0f, 0x0f, 'none'); // return
set(0x10, 0x10, 'call');
set(0x11, 0x11, 'u32u32'); // call_indirect: type, table
set(0x1a, 0x1b, 'none'); // drop, select
set(0x1c, 0x1c, 'select_t');
set(0x20, 0x24, 'u32'); // local.get/set/tee, global.get/set
set(0x25, 0x26, 'u32'); // table.get/set
set(0x28, 0x3e, MEMARG); // loads and stores
set(0x3f, 0x40, 'byte'); // memory.size, memory.grow
set(0x41, 0x42, 'sleb'); // i32.const, i64.const
set(0x43, 0x43, 'f32');
set(0x44, 0x44, 'f64');
set(0x45, 0xc4, 'none'); // numeric operators, sign extension
set(0xd0, 0xd0, 'byte'); // ref.null t
set(0xd1, 0xd1, 'none'); // ref.is_null
set(0xd2, 0xd2, 'ref_func');

// 0xFC-prefixed: saturating truncation (0-7), bulk memory and table operations.
const prefixedFC = new Map([
  [0, 'none'], [1, 'none'], [2, 'none'], [3, 'none'], [4, 'none'], [5, 'none'], [6, 'none'], [7, 'none'],
  [8, 'u32byte'], // memory.init data, memory
  [9, 'u32'], // data.drop
  [10, 'bytebyte'], // memory.copy
  [11, 'byte'], // memory.fill
  [12, 'u32u32'], // table.init
  [13, 'u32'], // elem.drop
  [14, 'u32u32'], // table.copy
  [15, 'u32'], [16, 'u32'], [17, 'u32'], // table.grow/size/fill
]);

// 0xFD-prefixed (SIMD): memory instructions take a memarg, lanes a byte, shuffles 16 bytes.
function simdImmediate(op) {
  if (op <= 11 || op === 92 || op === 93) return MEMARG; // v128.load*, store, load32/64_zero
  if (op === 12) return 'v128';
  if (op === 13) return 'shuffle';
  if (op >= 21 && op <= 34) return 'byte'; // extract/replace lane
  if (op >= 84 && op <= 91) return 'memlane'; // load/store lane
  return 'none';
}

/**
 * The body with every call's function index replaced by `newIndex[index]`; the rest is copied.
 */
function remapBody(body, newIndex) {
  const r = new Reader(body, TOOL);
  const out = [];
  let copiedTo = 0;
  // Locals: vec of (count, type).
  const groups = r.u32();
  for (let i = 0; i < groups; i++) {
    r.u32();
    r.byte();
  }
  const skipImmediate = (kind) => {
    switch (kind) {
      case 'none':
        return;
      case 'u32':
        r.u32();
        return;
      case 'u32u32':
        r.u32();
        r.u32();
        return;
      case 'u32byte':
        r.u32();
        r.byte();
        return;
      case 'byte':
        r.byte();
        return;
      case 'bytebyte':
        r.byte();
        r.byte();
        return;
      case 'sleb':
        r.skipLeb();
        return;
      case 'f32':
        r.skip(4);
        return;
      case 'f64':
      case 'v128':
        r.skip(kind === 'f64' ? 8 : 16);
        return;
      case 'shuffle':
        r.skip(16);
        return;
      case MEMARG:
        r.u32();
        r.u32();
        return;
      case 'memlane':
        r.u32();
        r.u32();
        r.byte();
        return;
      case 'blocktype': {
        const b = r.bytes[r.at];
        if (b === 0x40 || b === 0x7f || b === 0x7e || b === 0x7d || b === 0x7c || b === 0x7b || b === 0x70 || b === 0x6f) r.byte();
        else r.skipLeb(); // a type index (s33)
        return;
      }
      case 'br_table': {
        const n = r.u32();
        for (let i = 0; i <= n; i++) r.u32();
        return;
      }
      case 'select_t': {
        const n = r.u32();
        r.skip(n);
        return;
      }
      default:
        fail(`no reader for immediate ${kind}`);
    }
  };
  while (r.at < body.length) {
    const start = r.at;
    const op = r.byte();
    if (op === 0x10 || op === 0xd2) {
      const indexAt = r.at;
      const index = r.u32();
      if (newIndex[index] === undefined) fail(`call of function ${index}, which does not exist`);
      out.push(body.subarray(copiedTo, indexAt), u32Leb(newIndex[index]));
      copiedTo = r.at;
      continue;
    }
    if (op === 0xfc) {
      const sub = r.u32();
      const kind = prefixedFC.get(sub);
      if (kind === undefined) fail(`unknown instruction 0xfc ${sub} at ${start}`);
      skipImmediate(kind);
      continue;
    }
    if (op === 0xfd) {
      skipImmediate(simdImmediate(r.u32()));
      continue;
    }
    const kind = immediates.get(op);
    if (kind === undefined) fail(`unknown instruction 0x${op.toString(16)} at ${start}`);
    skipImmediate(kind);
  }
  out.push(body.subarray(copiedTo));
  return concat(out);
}

// ---- the order -----------------------------------------------------------------------------------

/** The distinct 4-byte sequences of each body. */
function gramsOf(bodies) {
  return bodies.map((b) => {
    const s = new Set();
    for (let i = 0; i + 4 <= b.length; i++) {
      s.add(b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24));
    }
    return s;
  });
}

/** The share of `a`'s distinct 4-byte sequences that `b` also has. */
function share(grams, a, b) {
  let shared = 0;
  for (const g of grams[a]) if (grams[b].has(g)) shared++;
  return shared / (grams[a].size + 1);
}

/**
 * A chain through the bodies: from the first, each step takes the remaining body with the largest
 * share of its distinct 4-byte sequences also found in the body placed last; ties keep the
 * original order. (On cce.wasm's code, gzip: 45.9 KB as Binaryen orders it, 44.8 scoring by
 * shared count over its square root, 44.6 by share, below; 3- or 6-byte sequences, or comparing
 * with the last two to five bodies placed, did no better.)
 */
function similarityChain(bodies, grams) {
  const left = new Set(bodies.keys());
  const order = [];
  let last = 0;
  left.delete(0);
  order.push(0);
  while (left.size > 0) {
    let best = -1;
    let bestScore = -1;
    for (const i of left) {
      const score = share(grams, i, last);
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    order.push(best);
    left.delete(best);
    last = best;
  }
  return order;
}

/**
 * Improves a chain by what deflate itself measures: each function in turn is tried right after
 * each of the six bodies it shares most with, and moved there when the concatenated code then
 * compresses smaller. A pass is 6 x n trials (cce.wasm: 2,400 deflates of 100 KB, some 13 s).
 * Measured before the calls are renumbered, so the gain is smaller in the finished module:
 * there, against the chain alone, one pass with three candidates -0.11 KB, two -0.15 KB; one
 * with six -0.16 KB, two with six -0.26 KB (taken for cce.wasm), one with ten -0.16 KB.
 */
function refineByDeflate(order, bodies, grams, passes) {
  const size = (o) => deflateRawSync(Buffer.concat(o.map((i) => bodies[i])), { level: 9 }).length;
  // Each body's six nearest, found once: they do not change between passes.
  const nearest = bodies.map((_, f) =>
    [...bodies.keys()]
      .filter((c) => c !== f)
      .map((c) => [share(grams, f, c), c])
      .sort((a, b) => b[0] - a[0] || a[1] - b[1])
      .slice(0, 6)
      .map(([, c]) => c),
  );
  let best = size(order);
  for (let pass = 0; pass < passes; pass++) {
    for (let f = 0; f < bodies.length; f++) {
      for (const c of nearest[f]) {
        const without = order.filter((x) => x !== f);
        const at = without.indexOf(c) + 1;
        const trial = [...without.slice(0, at), f, ...without.slice(at)];
        const trialSize = size(trial);
        if (trialSize < best) {
          best = trialSize;
          order = trial;
        }
      }
    }
  }
  return order;
}

// ---- the module ------------------------------------------------------------------------------------

/**
 * `module` (bytes) with its defined functions in `similarityChain` order, improved by
 * `refinePasses` passes of `refineByDeflate` (0: none).
 */
export function reorderFunctions(module, refinePasses = 0) {
  const sections = sectionsOf(module, TOOL);
  const find = (id) => sections.find((s) => s.id === id);

  let imported = 0;
  const imports = find(SECTION.import);
  if (imports) {
    const ir = new Reader(imports.body, TOOL);
    const n = ir.u32();
    for (let i = 0; i < n; i++) {
      ir.skip(ir.u32());
      ir.skip(ir.u32());
      const kind = ir.byte();
      if (kind === 0) {
        ir.u32();
        imported++;
      } else if (kind === 1) {
        ir.byte();
        const flags = ir.u32();
        ir.u32();
        if (flags & 1) ir.u32();
      } else if (kind === 2) {
        const flags = ir.u32();
        ir.u32();
        if (flags & 1) ir.u32();
      } else if (kind === 3) {
        ir.byte();
        ir.byte();
      } else fail(`import kind ${kind}`);
    }
  }

  const functions = find(SECTION.function);
  const code = find(SECTION.code);
  if (!functions || !code) return module;
  const fr = new Reader(functions.body, TOOL);
  const count = fr.u32();
  const types = [];
  for (let i = 0; i < count; i++) types.push(fr.u32());
  const cr = new Reader(code.body, TOOL);
  if (cr.u32() !== count) fail('function and code sections disagree');
  const bodies = [];
  for (let i = 0; i < count; i++) {
    const size = cr.u32();
    bodies.push(code.body.subarray(cr.at, cr.at + size));
    cr.skip(size);
  }

  const grams = gramsOf(bodies);
  let order = similarityChain(bodies, grams); // order[k]: old position of the k-th function
  if (refinePasses > 0) order = refineByDeflate(order, bodies, grams, refinePasses);
  const newIndex = [];
  for (let i = 0; i < imported; i++) newIndex[i] = i;
  order.forEach((old, k) => {
    newIndex[imported + old] = imported + k;
  });
  const index = (ir) => u32Leb(newIndex[ir.u32()]);

  const rewritten = new Map();
  rewritten.set(
    SECTION.function,
    concat([u32Leb(count), ...order.map((old) => u32Leb(types[old]))]),
  );
  rewritten.set(
    SECTION.code,
    concat([
      u32Leb(count),
      ...order.flatMap((old) => {
        const body = remapBody(bodies[old], newIndex);
        return [u32Leb(body.length), body];
      }),
    ]),
  );

  const exports = find(SECTION.export);
  if (exports) {
    const er = new Reader(exports.body, TOOL);
    const n = er.u32();
    const out = [u32Leb(n)];
    for (let i = 0; i < n; i++) {
      const start = er.at;
      er.skip(er.u32());
      const kind = er.byte();
      out.push(exports.body.subarray(start, er.at));
      out.push(kind === 0 ? index(er) : u32Leb(er.u32()));
    }
    rewritten.set(SECTION.export, concat(out));
  }

  const start = find(SECTION.start);
  if (start) rewritten.set(SECTION.start, index(new Reader(start.body, TOOL)));

  const elements = find(SECTION.elem);
  if (elements) {
    const er = new Reader(elements.body, TOOL);
    const n = er.u32();
    const out = [u32Leb(n)];
    for (let i = 0; i < n; i++) {
      const segmentStart = er.at;
      const flags = er.u32();
      if (flags !== 0) fail(`element segment ${i} has flags ${flags} (only active function lists are read)`);
      if (er.byte() !== 0x41) fail(`element segment ${i}'s offset is not an i32.const`);
      er.skipLeb();
      if (er.byte() !== 0x0b) fail(`element segment ${i}'s offset is not a constant expression`);
      out.push(elements.body.subarray(segmentStart, er.at));
      const m = er.u32();
      out.push(u32Leb(m));
      for (let k = 0; k < m; k++) out.push(index(er));
    }
    rewritten.set(SECTION.elem, concat(out));
  }

  const result = [module.subarray(0, 8)];
  for (const s of sections) {
    if (s.id === SECTION.custom && isNameSection(s.body)) {
      result.push(section(SECTION.custom, remapNames(s.body, newIndex)));
    } else {
      result.push(section(s.id, rewritten.get(s.id) ?? s.body));
    }
  }
  return concat(result);
}

/**
 * The name section with function names (subsection 1) and local names (2) under the new indices;
 * other function-indexed subsections (labels...) are dropped, the rest kept.
 */
function remapNames(body, newIndex) {
  const r = new Reader(body, TOOL, 5);
  const out = [body.subarray(0, 5)];
  while (r.at < body.length) {
    const id = r.byte();
    const size = r.u32();
    const start = r.at;
    r.skip(size);
    const payload = body.subarray(start, r.at);
    if (id === 1 || id === 2) {
      const pr = new Reader(payload, TOOL);
      const n = pr.u32();
      const entries = [];
      for (let i = 0; i < n; i++) {
        const from = pr.at;
        const old = pr.u32();
        const rest = pr.at;
        if (id === 1) {
          pr.skip(pr.u32());
        } else {
          const locals = pr.u32();
          for (let k = 0; k < locals; k++) {
            pr.u32();
            pr.skip(pr.u32());
          }
        }
        if (from === rest) fail('empty name entry');
        entries.push([newIndex[old], payload.subarray(rest, pr.at)]);
      }
      entries.sort((a, b) => a[0] - b[0]);
      const sub = concat([
        u32Leb(n),
        ...entries.flatMap(([i, rest]) => [u32Leb(i), rest]),
      ]);
      out.push(Uint8Array.of(id), u32Leb(sub.length), sub);
    } else if (id === 0 || id >= 4) {
      out.push(Uint8Array.of(id), u32Leb(size), payload);
    }
  }
  return concat(out);
}

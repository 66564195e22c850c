// SPDX-License-Identifier: MIT
// Writes src/jscompat/lower_case_table.inc from this Node's own String.prototype.toLowerCase.
//
// Usage: node scripts/gen-lower-case.mjs   (run with the Node the reference ran on: v20.20.2)
//
// Everything is measured through toLowerCase itself rather than read from Unicode data files, so
// the table reproduces exactly what V8 + ICU do, including which characters ICU treats as cased
// or case-ignorable for the Final_Sigma context.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const kMaxCodePoint = 0x10ffff;
const isSurrogate = (cp) => cp >= 0xd800 && cp <= 0xdfff;
const hex = (n) => '0x' + n.toString(16).toUpperCase().padStart(4, '0');

// Per code point: the single code point it lower-cases to (delta form), or a special string.
const delta = new Int32Array(kMaxCodePoint + 1);
const special = [];
for (let cp = 0; cp <= kMaxCodePoint; cp++) {
  if (isSurrogate(cp)) continue;
  const lower = [...String.fromCodePoint(cp).toLowerCase()].map((c) => c.codePointAt(0));
  if (lower.length === 1) {
    delta[cp] = lower[0] - cp;
  } else {
    special.push({ cp, units: String.fromCodePoint(cp).toLowerCase() });
  }
}

// Greedy runs: consecutive code points with one delta (stride 1), or every other code point with
// one delta and unmapped code points in between (stride 2: the Upper/lower alternation of Latin
// Extended and friends).
const ranges = [];
for (let cp = 0; cp <= kMaxCodePoint; cp++) {
  const d = delta[cp];
  if (d === 0) continue;
  let last = cp;
  let stride = 1;
  if (cp + 1 <= kMaxCodePoint && delta[cp + 1] === d) {
    while (last + 1 <= kMaxCodePoint && delta[last + 1] === d) last++;
  } else if (cp + 2 <= kMaxCodePoint && delta[cp + 1] === 0 && delta[cp + 2] === d) {
    stride = 2;
    while (last + 2 <= kMaxCodePoint && delta[last + 1] === 0 && delta[last + 2] === d) last += 2;
  }
  ranges.push({ first: cp, last, delta: d, stride });
  cp = last;
}

// Final_Sigma context classes, probed with a cased letter (A) on the other side:
//   "A" + c + "Σ": Σ is final when c is case-ignorable (skipped) or cased;
//   "AΣ" + c:      Σ is not final only when c is cased and not case-ignorable.
// ICU checks case-ignorable before cased, so the two probes separate the three classes.
const kFinal = 'ς';
const ignorable = new Uint8Array(kMaxCodePoint + 1);
const cased = new Uint8Array(kMaxCodePoint + 1);
for (let cp = 0; cp <= kMaxCodePoint; cp++) {
  const c = String.fromCodePoint(cp);
  const before = ('A' + c + 'Σ').toLowerCase().endsWith(kFinal);
  const after = ('AΣ' + c).toLowerCase()[1] === kFinal;
  if (!after) cased[cp] = 1;
  else if (before) ignorable[cp] = 1;
}
// The second probe reads the sigma at index 1 ("A" lower-cases to one unit), so c = Σ is probed
// like any other letter. Check a few known members of each class.
if (!cased[0x41] || !cased[0x3a3] || !ignorable[0x27] || !ignorable[0x301] || cased[0x20]) {
  throw new Error('unexpected Final_Sigma probe results');
}
const runsOf = (flags) => {
  const out = [];
  for (let cp = 0; cp <= kMaxCodePoint; cp++) {
    if (!flags[cp]) continue;
    let last = cp;
    while (last + 1 <= kMaxCodePoint && flags[last + 1]) last++;
    out.push([cp, last]);
    cp = last;
  }
  return out;
};
const ignorableRuns = runsOf(ignorable);
const casedRuns = runsOf(cased);

// The tables ship packed: each range as LEB128 varints relative to the end of the one before
// (code ranges: gap, last - first; lower ranges: gap, (last - first) << 1 | stride - 1, and the
// delta zigzag-encoded). That is a third of the bytes of the plain structs and half their gzip
// size (1.3 KB less in the browser download); lower_case.cpp unpacks them once, on first use.
const varint = (n, out) => {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
};
const zigzag = (d) => (d >= 0 ? d * 2 : -d * 2 - 1);
const packRuns = (runs) => {
  const out = [];
  let next = 0;
  for (const [first, last] of runs) {
    varint(first - next, out);
    varint(last - first, out);
    next = last + 1;
  }
  return out;
};
const packLower = (list) => {
  const out = [];
  let next = 0;
  for (const r of list) {
    varint(r.first - next, out);
    varint(((r.last - r.first) << 1) | (r.stride - 1), out);
    varint(zigzag(r.delta), out);
    next = r.last + 1;
  }
  return out;
};

// FNV-1a over every code point's simple lower-case delta and Final_Sigma class (0 none,
// 1 case-ignorable, 2 cased): the unit test recomputes it from the unpacked tables.
let digest = 0x811c9dc5;
const mix = (byte) => {
  digest = Math.imul(digest ^ byte, 0x01000193) >>> 0;
};
for (let cp = 0; cp <= kMaxCodePoint; cp++) {
  if (isSurrogate(cp)) continue;
  const d = delta[cp] >>> 0;
  for (let k = 0; k < 4; k++) mix((d >>> (8 * k)) & 0xff);
  mix(ignorable[cp] ? 1 : cased[cp] ? 2 : 0);
}

const lines = [];
lines.push('// SPDX-License-Identifier: MIT');
lines.push(
  '// Lower-case tables for lower_case.cpp, generated by scripts/gen-lower-case.mjs: do not edit.',
);
lines.push('');
const { icu, unicode } = process.versions;
lines.push(`// Measured on Node ${process.version} (ICU ${icu}, Unicode ${unicode}).`);
lines.push('');
const bytesOf = (name, bytes, what, count) => {
  lines.push(`// ${what}`);
  lines.push(`// ${count} ranges, packed (see scripts/gen-lower-case.mjs).`);
  lines.push(`constexpr std::size_t ${name}Count = ${count};`);
  lines.push(`constexpr unsigned char ${name}Packed[${bytes.length}] = {`);
  for (let i = 0; i < bytes.length; i += 16) {
    lines.push('    ' + bytes.slice(i, i + 16).join(', ') + ',');
  }
  lines.push('};');
  lines.push('');
};
bytesOf(
  'kLowerRanges',
  packLower(ranges),
  '{first, last, delta, stride}: first, first+stride, ... last map to cp + delta.',
  ranges.length,
);
lines.push('// Code points whose lower case is more than one code point (UTF-16 units).');
lines.push(`constexpr LowerSpecial kLowerSpecials[${special.length}] = {`);
for (const s of special) {
  const units = [...s.units].flatMap((ch) => {
    const out = [];
    for (let i = 0; i < ch.length; i++) out.push(hex(ch.charCodeAt(i)));
    return out;
  });
  if (units.length > 3) throw new Error('special mapping longer than the struct allows');
  lines.push(`    {${hex(s.cp)}, ${units.length}, {${units.join(', ')}}},`);
}
lines.push('};');
lines.push('');
bytesOf(
  'kCaseIgnorableRanges',
  packRuns(ignorableRuns),
  'Case-ignorable for Final_Sigma (checked before cased).',
  ignorableRuns.length,
);
bytesOf('kCasedRanges', packRuns(casedRuns), 'Cased and not case-ignorable.', casedRuns.length);
lines.push("// FNV-1a of every code point's lower-case delta and Final_Sigma class (the unit test).");
lines.push(`constexpr std::uint32_t kLowerCaseDigest = 0x${digest.toString(16).toUpperCase().padStart(8, '0')};`);
lines.push('');

const here = dirname(fileURLToPath(import.meta.url));
const outPath = join(here, '..', 'src', 'jscompat', 'lower_case_table.inc');
writeFileSync(outPath, lines.join('\n'));
console.log(
  `wrote ${outPath}: ${ranges.length} ranges, ${special.length} specials, ` +
    `${ignorableRuns.length} ignorable runs, ${casedRuns.length} cased runs`,
);

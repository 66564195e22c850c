#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The test data lives in the repository, compressed, under tests/corpus/: the reference's oracle
// corpus and scale session, its benchmark scenarios, and the real and native-format transcripts
// with their SOURCES.md. Every `X.gz` there is the gzip of a file `X`; other files (the Markdown
// sources and licences) are stored as they are.
//
//   node scripts/testdata.mjs            unpack tests/corpus/ into build/testdata/ (when stale)
//   node scripts/testdata.mjs --vendor DIR
//                                        refresh tests/corpus/ from a checkout of the shared data
//                                        (DIR holds conformance/ and data/); maintainers only
//
// Every test, benchmark and conformance run reads the unpacked tree, so a clone needs nothing
// beside it. Unpacking is idempotent: a stamp of the corpus's names and sizes skips the work
// when nothing changed.
import { createHash } from 'node:crypto';
import {
  existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, 'tests', 'corpus');
const unpacked = join(root, 'build', 'testdata');

// What the tests read from the shared data (the spec is documentation, not test data; check.mjs
// is another project's script).
const VENDORED = ['conformance/public', 'conformance/scale', 'data/bench', 'data/real', 'data/native'];
const KEPT_PLAIN = /\.(md|txt)$|LICEN[CS]E/i;
const LEFT_OUT = new Set(['data/native/check.mjs']);

function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

function writeFile(path, bytes) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

function vendor(sourceRoot) {
  rmSync(corpus, { recursive: true, force: true });
  let raw = 0;
  let stored = 0;
  for (const top of VENDORED) {
    for (const file of filesUnder(join(sourceRoot, top))) {
      const rel = relative(sourceRoot, file);
      if (LEFT_OUT.has(rel)) continue;
      let bytes = readFileSync(file);
      raw += bytes.length;
      // An already-compressed file is stored by its content so that every .gz means the same.
      let name = rel;
      if (rel.endsWith('.gz')) {
        bytes = gunzipSync(bytes);
        name = rel.slice(0, -3);
      }
      if (KEPT_PLAIN.test(name)) {
        writeFile(join(corpus, name), bytes);
        stored += bytes.length;
      } else {
        const packed = gzipSync(bytes, { level: 9 });  // header mtime 0: the same bytes every run
        writeFile(join(corpus, name + '.gz'), packed);
        stored += packed.length;
      }
    }
  }
  console.log(`testdata: vendored ${(raw / 1e6).toFixed(1)} MB as ${(stored / 1e6).toFixed(1)} MB in tests/corpus`);
}

function stampOf(files) {
  const hash = createHash('sha1');
  for (const file of files) hash.update(`${relative(corpus, file)}\0${statSync(file).size}\n`);
  return hash.digest('hex');
}

function unpack() {
  if (!existsSync(corpus)) {
    console.error(`testdata: ${corpus} is missing`);
    process.exit(1);
  }
  const files = filesUnder(corpus);
  const stamp = stampOf(files);
  const stampFile = join(unpacked, '.stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  rmSync(unpacked, { recursive: true, force: true });
  for (const file of files) {
    const rel = relative(corpus, file);
    if (rel.endsWith('.gz')) writeFile(join(unpacked, rel.slice(0, -3)), gunzipSync(readFileSync(file)));
    else writeFile(join(unpacked, rel), readFileSync(file));
  }
  writeFileSync(stampFile, stamp);
  console.log(`testdata: unpacked ${files.length} files into build/testdata`);
}

const at = process.argv.indexOf('--vendor');
if (at >= 0) {
  const source = process.argv[at + 1];
  if (!source || !existsSync(join(source, 'conformance'))) {
    console.error('usage: node scripts/testdata.mjs --vendor DIR   (DIR holds conformance/ and data/)');
    process.exit(2);
  }
  vendor(resolve(source));
} else {
  unpack();
}

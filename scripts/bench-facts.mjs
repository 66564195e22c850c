// SPDX-License-Identifier: MIT
// What bench:quality and bench:cost share: the o200k tokenizer (gpt-tokenizer, a devDependency)
// and the rules of a reused fact, so that both benchmarks measure the same thing.
import { createRequire } from 'node:module';
import path from 'node:path';

/** gpt-tokenizer's o200k_base, from the project's node_modules or `fallbackDir`. */
export function loadTokenizer(root, fallbackDir = '/tmp/tok') {
  for (const base of [root, fallbackDir]) {
    try {
      return createRequire(path.join(base, 'package.json'))('gpt-tokenizer/encoding/o200k_base');
    } catch {
      // next location
    }
  }
  console.error('gpt-tokenizer not found: npm install -D gpt-tokenizer (or --tokenizer-dir DIR)');
  process.exit(2);
}

const FACT_PATTERNS = [
  /https?:\/\/[^\s"'<>)\]]+/g,                                      // URLs
  /(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z]\w{0,5}\b/g,                      // paths with an extension
  /\b[\w-]+\.(?:py|ts|js|mjs|tsx|jsx|json|md|cpp|h|c|rs|go|java|rb|sh|yml|yaml|toml|txt|css|html)\b/g,
  /\bv?\d+\.\d+(?:\.\d+)+(?:[-+][\w.]+)?\b/g,                       // versions
  /\b\d+(?:\.\d+)?\s?(?:ms|s|KB|MB|GB|kB|B|%|px|tokens|lines|chars|bytes|min|h)\b/g, // numbers + unit
  /\b[a-z]+(?:[A-Z][a-z0-9]+)+\b/g,                                 // camelCase
  /\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b/g,                         // PascalCase
  /\b[a-z0-9]+(?:_[a-z0-9]+)+\b/g,                                  // snake_case
  /\b[a-zA-Z_]\w*(?:\.[a-zA-Z_]\w*)+\(?/g,                          // dotted identifiers
  /\b[0-9a-f]{7,}\b/g,                                               // hashes
  /`[^`\n]{3,60}`/g,                                                 // inline code
  /"[^"\n]{4,60}"/g,                                                 // quoted strings
  /^.*\b(?:Error|Exception|Traceback|FAILED|error:)\b.*$/gm,         // error lines
];

/** The facts of a text: the strings the reused-fact rules find, 4 to 200 units long. */
export function facts(text) {
  const found = new Set();
  for (const pattern of FACT_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const fact = match[0].trim().replace(/\($/, '');
      if (fact.length >= 4 && fact.length <= 200) found.add(fact);
    }
  }
  return found;
}

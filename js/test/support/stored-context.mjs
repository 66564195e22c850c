// SPDX-License-Identifier: MIT
// The session behind js/test/fixtures/context-state-1.json: a context manager taken through
// checkpoints, merges, aging and an undo, with messages whose values test the state's reading
// (tool calls, non-ASCII text, a lone surrogate, array content, fractions, large and negative
// numbers). `saved` runs it and returns the state as toJSON() gives it; `continueFrom` adds more
// turns to a manager and returns what each call answered, as JSON text.
//
// The fixture was written by an earlier build (the state users stored then), and the test checks
// that the current one reads it back unchanged and continues it exactly as that build did.

export const SETTINGS = {
  contextWindow: 1200,
  threshold: 0.7,
  keepLast: 3,
  maxCheckpoints: 2,
  ageAfter: 1,
  tokenEstimate: 'chars',
  promptBudget: 100.5,
};

export function clockFrom(start) {
  let t = start;
  return () => `2026-11-27T00:00:${String(t++ % 60).padStart(2, '0')}.000Z`;
}

const WORDS = 'the parser reads a token stream and builds the syntax tree while the lexer keeps line numbers'.split(' ');

function words(seed, n) {
  const out = [];
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]);
  }
  return out.join(' ');
}

/** Turn `i` of the session: a user message, then an assistant reply or a tool call and result. */
export function turn(i) {
  const user = { id: `u${i}`, role: 'user', content: `${words(i, 30 + (i % 7) * 5)} (step ${i})` };
  if (i % 4 === 1) {
    const call = `call_${i}`;
    return [
      user,
      {
        id: i,
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: call,
            type: 'function',
            function: { name: 'read_file', arguments: JSON.stringify({ path: `src/file_${i}.ts`, line: i * 1.5 }) },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: call,
        content: `${words(i + 1, 60)} — café ☕ 日本語 ${i / 3}`,
        metadata: { bytes: 1e21 + i, ratio: 0.1 + i / 7, delta: -0.25 * i, nested: [[{ a: null }], true] },
      },
    ];
  }
  if (i % 4 === 3) {
    return [
      user,
      {
        id: `a${i}`,
        role: 'assistant',
        content: [
          { type: 'text', text: `${words(i + 2, 25)} \ud800 lone` },
          { type: 'text', text: 'second part' },
        ],
      },
    ];
  }
  return [user, { id: `a${i}`, role: 'assistant', content: words(i + 3, 40) }];
}

/** The stored session: JSON text of toJSON() after 40 turns, compressions and an undo. */
export function saved({ createContextManager }) {
  const manager = createContextManager({ ...SETTINGS, clock: clockFrom(0) });
  for (let i = 0; i < 40; i++) {
    manager.addMany(turn(i));
    while (manager.shouldCompress()) {
      if (!manager.compress().compressed) break;
    }
    if (i === 30 && manager.checkpoints.length > 0) manager.undo(manager.checkpoints.at(-1).id);
  }
  return JSON.stringify(manager.toJSON());
}

/** What a restored manager answers over 12 more turns (JSON text). */
export function continueFrom(manager) {
  const answers = [manager.usage()];
  for (let i = 40; i < 52; i++) {
    answers.push(manager.addMany(turn(i)));
    while (manager.shouldCompress()) {
      const outcome = manager.compress();
      answers.push(outcome);
      if (!outcome.compressed) break;
    }
  }
  answers.push(manager.view(), manager.checkpoints, manager.archive);
  return JSON.stringify(answers);
}

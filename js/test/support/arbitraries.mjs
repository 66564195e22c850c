// SPDX-License-Identifier: MIT
// fast-check arbitraries: random conversations (every content shape the engine special-cases)
// and random compress options, plus the seed/runs settings of the property tests.
import fc from 'fast-check';

/** Fixed by default so CI is reproducible; FC_SEED / FC_RUNS override (FC_RUNS scales all). */
export const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : 20261121;

/** numRuns for a property whose default is `runs`; FC_RUNS replaces the default. */
export function runs(runsByDefault) {
  return process.env.FC_RUNS !== undefined ? Number(process.env.FC_RUNS) : runsByDefault;
}

// Prose the summarizer can shorten (sentences, capitalised entities), so groups really compress.
const SENTENCES = [
  'The deployment pipeline retried the upload three times before the storage node answered.',
  'Alice reviewed the migration plan and asked Bob to double-check the rollback steps.',
  'We should cache the parsed configuration instead of reading the file on every request.',
  'The flaky test fails only when the scheduler runs two workers on the same core.',
  'Memory usage grew slowly over the weekend, which points at the connection pool.',
  'Please keep the public interface stable until the next minor release is tagged.',
  'The customer reported that exports time out for reports larger than ten thousand rows.',
  'After the fix the latency dropped from four hundred to ninety milliseconds at p99.',
  'Remember that the staging cluster shares its database with the analytics team.',
  'I think the simplest option is to split the worker into a reader and a writer.',
  'Can you summarise what changed between the two releases of the billing service?',
  'The logs show a burst of timeouts right after the certificate rotation finished.',
];
const CJK = [
  '数据库连接在三次重试之后恢复正常，请检查连接池的配置。',
  'デプロイは成功しましたが、キャッシュの無効化に時間がかかりました。',
  '이 변경 사항은 다음 릴리스에서 기본값이 됩니다.',
  '我们需要在周五之前完成性能测试并提交报告。',
];
const EMOJI = ['🚀', '🎉', '👍🏽', '👨‍👩‍👧‍👦', '🇩🇪', '😀', '✅', '🔥'];
const ASTRAL = ['𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '𝒳 ∈ 𝒴', '𠜎𠜱𠝹', '🀄', '𓀀𓀁'];
const LONE = ['\ud800', '\udbff', '\udc00', '\udfff', '\ud83d'];
const CODE = [
  'function add(a, b) {\n  return a + b;\n}',
  'for (let i = 0; i < items.length; i++) {\n  total += items[i].price;\n}',
  'SELECT id, name FROM users WHERE active = 1 ORDER BY name;',
  'def retry(fn, times=3):\n    for _ in range(times):\n        try:\n' +
    '            return fn()\n        except IOError:\n            pass',
];

const sentence = fc.constantFrom(...SENTENCES);
const prose = fc
  .array(fc.oneof({ weight: 6, arbitrary: sentence }, fc.constantFrom(...CJK)), {
    minLength: 1,
    maxLength: 10,
  })
  .map((parts) => parts.join(' '));
const paragraphs = fc
  .array(prose, { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join('\n\n'));
const fenced = fc
  .tuple(paragraphs, fc.constantFrom('js', 'py', 'sql', ''), fc.constantFrom(...CODE), prose)
  .map(([before, lang, code, after]) => `${before}\n\n\`\`\`${lang}\n${code}\n\`\`\`\n\n${after}`);
const jsonBlob = fc
  .tuple(fc.jsonValue({ maxDepth: 3 }), fc.boolean())
  .map(([value, pretty]) => JSON.stringify({ data: value }, null, pretty ? 2 : 0));
const unicodeMix = fc
  .array(
    fc.oneof(
      sentence,
      fc.constantFrom(...CJK),
      fc.constantFrom(...EMOJI),
      fc.constantFrom(...ASTRAL),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
    ),
    { minLength: 1, maxLength: 16 },
  )
  .map((parts) => parts.join(' '));
const huge = fc
  .tuple(paragraphs, fc.integer({ min: 50_000, max: 70_000 }))
  .map(([text, size]) => {
    let out = text;
    while (out.length < size) out += `\n\n${text}`;
    return out;
  });
const short = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('ok', 'thanks', 'Done.', '👍', '好的'),
);

/** Inserts lone surrogates at random places (possibly splitting a pair). */
function withLoneSurrogates(text) {
  return fc
    .array(fc.tuple(fc.nat(), fc.constantFrom(...LONE)), { minLength: 1, maxLength: 3 })
    .map((inserts) => {
      let out = text;
      for (const [at, s] of inserts) {
        const i = out.length === 0 ? 0 : at % (out.length + 1);
        out = out.slice(0, i) + s + out.slice(i);
      }
      return out;
    });
}

const baseContent = fc.oneof(
  { weight: 8, arbitrary: paragraphs },
  { weight: 3, arbitrary: fenced },
  { weight: 2, arbitrary: jsonBlob },
  { weight: 3, arbitrary: unicodeMix },
  { weight: 3, arbitrary: short },
  { weight: 1, arbitrary: huge },
);

/** Message text: every shape above, sometimes with CRLF line ends or lone surrogates. */
export const content = fc
  .tuple(baseContent, fc.constantFrom('plain', 'plain', 'plain', 'crlf', 'lone'))
  .chain(([text, twist]) => {
    if (twist === 'crlf') return fc.constant(text.replace(/\n/g, '\r\n'));
    if (twist === 'lone') return withLoneSurrogates(text);
    return fc.constant(text);
  });

const metadata = fc.option(
  fc.oneof(
    fc.constant({}),
    fc.record({ source: fc.constantFrom('web', 'cli', 'api'), turn: fc.nat(50) }),
    fc.record({ tags: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }) }),
  ),
  { nil: undefined, freq: 3 },
);

/**
 * A message that arrives carrying `metadata._cce_original` it did not get from this round: a
 * summary an app copied, one from an earlier round, or one naming ids that exist nowhere. The ids
 * it names: earlier messages of the same conversation (which may be compressed now), ids that
 * come later, its own id, or nothing present.
 */
const carriesOriginal = fc
  .record({
    role: fc.constantFrom('user', 'assistant'),
    content,
    names: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.nat().map((of) => ({ of })) },
        fc.constantFrom('ghost', 'cce_sum_3t3a', '').map((ghost) => ({ ghost })),
        fc.constant({ self: true }),
        fc.integer({ min: 1, max: 3 }).map((ahead) => ({ ahead })),
      ),
      { maxLength: 3 },
    ),
    summaryId: fc.option(fc.constantFrom('s', 'cce_sum_3t3a'), { nil: undefined }),
    version: fc.nat(3),
  })
  .map((t) => [{ kind: 'carrier', ...t }]);

/**
 * One turn of a conversation: a plain message, an assistant message with tool calls followed by
 * exactly one result per call (results possibly out of order), or an exact / near duplicate of an
 * earlier message's content. Ids are assigned later.
 */
const turnKinds = [
  {
    weight: 10,
    arbitrary: fc
      .record({
        role: fc.constantFrom('system', 'user', 'user', 'assistant', 'assistant'),
        content,
        metadata,
      })
      .map((m) => [{ kind: 'plain', ...m }]),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.option(content, { nil: '' }),
        fc.array(fc.tuple(fc.constantFrom('read', 'grep', 'run'), content), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.boolean(),
      )
      .map(([text, calls, reversed]) => {
        const results = calls.map(([name, output], k) => ({
          kind: 'result',
          call: k,
          role: 'tool',
          name,
          content: output,
        }));
        if (reversed) results.reverse();
        const names = calls.map(([name]) => name);
        const call = { kind: 'call', role: 'assistant', content: text, calls: names };
        return [call, ...results];
      }),
  },
  {
    // A long run of short turns: what the safe mode's budget stubs ([cce:omitted ...]) are for.
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(sentence, fc.integer({ min: 1, max: 4 })), { minLength: 5, maxLength: 30 })
      .map((lines) =>
        lines.map(([text, times], k) => ({
          kind: 'plain',
          role: k % 2 ? 'assistant' : 'user',
          content: Array.from({ length: times }, () => text).join(' '),
          metadata: undefined,
        })),
      ),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.nat(), fc.constantFrom('exact', 'exact', 'near'), fc.integer({ min: 1, max: 3 }))
      .map(([of, how, times]) => Array.from({ length: times }, () => ({ kind: 'dup', of, how }))),
  },
];
const turn = fc.oneof(...turnKinds);
/** The same turns, and messages that carry `_cce_original` from elsewhere (carriesOriginal). */
const turnOrCarrier = fc.oneof(...turnKinds, { weight: 6, arbitrary: carriesOriginal });

/** Resolves turns into messages with unique string ids and well-formed tool call pairs. */
function assemble(turns, prefix) {
  const messages = [];
  let callNumber = 0;
  let pendingCalls = [];
  const id = () => `${prefix}${messages.length}`;
  for (const group of turns) {
    for (const t of group) {
      if (t.kind === 'plain') {
        const m = { id: id(), index: messages.length, role: t.role, content: t.content };
        if (t.metadata !== undefined) m.metadata = structuredClone(t.metadata);
        messages.push(m);
      } else if (t.kind === 'call') {
        pendingCalls = t.calls.map((name) => ({
          id: `call_${prefix}${callNumber++}`,
          type: 'function',
          function: { name, arguments: JSON.stringify({ path: `src/${name}.ts` }) },
        }));
        messages.push({
          id: id(),
          index: messages.length,
          role: 'assistant',
          content: t.content,
          tool_calls: pendingCalls,
        });
      } else if (t.kind === 'carrier') {
        const own = id();
        const ids = t.names.map((name) => {
          if (name.of !== undefined) {
            return messages.length === 0 ? 'ghost' : messages[name.of % messages.length].id;
          }
          if (name.ghost !== undefined) return name.ghost;
          if (name.self) return own;
          return `${prefix}${messages.length + name.ahead}`;
        });
        const original = { ids };
        if (t.summaryId !== undefined) original.summary_id = t.summaryId;
        original.version = t.version;
        messages.push({
          id: own,
          index: messages.length,
          role: t.role,
          content: t.content,
          metadata: { _cce_original: original },
        });
      } else if (t.kind === 'result') {
        messages.push({
          id: id(),
          index: messages.length,
          role: 'tool',
          tool_call_id: pendingCalls[t.call].id,
          name: t.name,
          content: t.content,
        });
      } else {
        // A duplicate repeats the content of an earlier user/assistant text message.
        const earlier = messages.filter(
          (m) =>
            (m.role === 'user' || m.role === 'assistant') &&
            !m.tool_calls &&
            m.content.length >= 200,
        );
        if (earlier.length === 0) continue;
        const source = earlier[t.of % earlier.length];
        let text = source.content;
        if (t.how === 'near') {
          const lines = text.split('\n');
          lines[lines.length - 1] = `${lines[lines.length - 1]} (edited)`;
          text = lines.join('\n');
        }
        messages.push({ id: id(), index: messages.length, role: source.role, content: text });
      }
    }
  }
  return messages;
}

/**
 * A conversation: 0 to `maxTurns` turns; ids `${prefix}0`, `${prefix}1`, ... With `carriers`,
 * some messages carry `_cce_original` naming other messages of it, later ids, or nothing.
 */
export function conversation({ maxTurns = 20, prefix = 'm', carriers = false } = {}) {
  return fc
    .array(carriers ? turnOrCarrier : turn, { maxLength: maxTurns })
    .map((turns) => assemble(turns, prefix));
}

/** Option fields shared by both modes (JSON-only: they also go to the native CLI). */
function optionRecord(minRecencyWindow) {
  return fc.record(
    {
      recencyWindow: fc.integer({ min: minRecencyWindow, max: 8 }),
      preserve: fc.subarray(['system', 'user', 'assistant', 'tool']),
      dedup: fc.boolean(),
      fuzzyDedup: fc.boolean(),
      fuzzyThreshold: fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
      tokenBudget: fc.integer({ min: 0, max: 6000 }),
      minRecencyWindow: fc.integer({ min: 0, max: 6 }),
      forceConverge: fc.boolean(),
      embedSummaryId: fc.boolean(),
      sourceVersion: fc.nat(3),
    },
    { requiredKeys: [] },
  );
}

/** Options of the default (safe) mode; a negative recencyWindow is an InvalidInput there. */
export const safeOptions = optionRecord(0);

/** Options with `compat: 'cce-1.0'` (the reference accepts a negative recencyWindow). */
export const compatOptions = optionRecord(-1).map((o) => ({ ...o, compat: 'cce-1.0' }));

/** Options of either mode. */
export const options = fc.oneof(safeOptions, compatOptions);

/** Options without a token budget (the paths where re-compression is specified, §1.6.1). */
export const unbudgetedOptions = options.map(
  ({ tokenBudget, minRecencyWindow, forceConverge, ...rest }) => rest,
);

/** The reference's token estimate of a conversation (spec §1.8), to scale budgets to it. */
function estimate(messages) {
  let tokens = 0;
  for (const m of messages) {
    tokens += Math.ceil((typeof m.content === 'string' ? m.content.length : 0) / 3.5);
  }
  return tokens;
}

/**
 * `[input, options]` pairs: a third of them get a tokenBudget of 1..120 % of the input's size, so
 * budgets bite (binary search, forceConverge, safe-mode escalation and stubs).
 */
export function cases(input, optionsArb) {
  return fc
    .tuple(input, optionsArb, fc.option(fc.integer({ min: 1, max: 120 }), { freq: 2 }))
    .map(([messages, o, percent]) =>
      percent === null
        ? [messages, o]
        : [messages, { ...o, tokenBudget: Math.floor((estimate(messages) * percent) / 100) }],
    );
}

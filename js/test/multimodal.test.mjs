// SPDX-License-Identifier: MIT
// Array content (issue 6 item 5) and the safe mode's token estimate (item 7), through the package.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';

import { CompressError, compress, defaultTokenCounter, uncompress } from 'cce-wasm';

// 265 characters, four sentences, no hard reason: compressible on its own.
const PROSE =
  'We should batch the inserts in groups of 500 rows. The importer currently commits after ' +
  'every single row, which is slow. Profiling shows that importRows spends most of its time ' +
  'waiting on the database. A second fix is to disable the audit trigger during the import.';
const HAN = '我们需要把数据库迁移到新的服务器上并且在迁移之前完成全部备份';

const image = () => ({ type: 'image_url', image_url: { url: 'https://example.com/chart.png' } });

const openAi = () => [
  {
    id: 'u1',
    role: 'user',
    content: [
      { type: 'text', text: 'Look at this chart.', cache_control: { type: 'ephemeral' } },
      image(),
      { type: 'text', text: PROSE },
    ],
  },
  { id: 'a1', role: 'assistant', content: 'Thanks, looking.' },
  { id: 'u2', role: 'user', content: 'And now?' },
];

const anthropic = () => [
  {
    id: 'a0',
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'The user wants the import sped up.', signature: 'sig' },
      { type: 'text', text: PROSE },
      { type: 'tool_use', id: 'tu1', name: 'grep', input: { pattern: 'importRows' } },
    ],
  },
  {
    id: 'u1',
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'src/import.ts:12' }],
  },
  { id: 'u2', role: 'user', content: 'Go on.' },
];

const restoredJson = (result) =>
  JSON.stringify(uncompress(result.messages, result.verbatim).messages);

describe('multimodal content', () => {
  test('summarises the text parts into the first one and keeps the image in place', () => {
    const input = openAi();
    const before = JSON.stringify(input);
    const result = compress(input, { recencyWindow: 2 });
    assert.equal(result.compression.messages_compressed, 1);
    const content = result.messages[0].content;
    assert.ok(Array.isArray(content));
    assert.equal(content.length, 2, 'the second text part is dropped');
    assert.equal(content[0].type, 'text');
    assert.ok(content[0].text.startsWith('[summary: Look at this chart. ... '));
    assert.deepEqual(content[0].cache_control, { type: 'ephemeral' });
    assert.equal(content[1], input[0].content[1], 'the image part is the caller\'s own object');
    assert.equal(result.messages[1], input[1]);
    assert.equal(JSON.stringify(input), before, 'the input is not mutated');
    assert.equal(restoredJson(result), before);
  });

  test('keeps thinking and tool_use blocks verbatim around an Anthropic text block', () => {
    const input = anthropic();
    const result = compress(input, { recencyWindow: 1 });
    const content = result.messages[0].content;
    assert.deepEqual(
      content.map((part) => part.type),
      ['thinking', 'text', 'tool_use'],
    );
    assert.ok(content[1].text.startsWith('[summary: '));
    assert.equal(content[0], input[0].content[0]);
    assert.equal(content[2], input[0].content[2]);
    assert.equal(result.messages[1], input[1], 'a tool_result without text is left alone');
    assert.equal(restoredJson(result), JSON.stringify(input));
  });

  test('never merges two messages with parts, nor deduplicates them', () => {
    const withParts = (id) => ({
      id,
      role: 'user',
      content: [{ type: 'text', text: PROSE }, image()],
    });
    const input = [
      withParts('u1'),
      withParts('u2'),
      { id: 'a1', role: 'assistant', content: 'ok' },
    ];
    const result = compress(input, { recencyWindow: 1 });
    assert.equal(result.messages.length, 3);
    assert.equal(result.compression.messages_deduped, undefined);
    for (const m of result.messages.slice(0, 2)) {
      assert.equal(m.metadata._cce_original.ids.length, 1);
      assert.equal(m.content[1].type, 'image_url');
    }
    const reference = compress(input, { recencyWindow: 1, compat: 'cce-1.0' });
    assert.equal(reference.messages[0], input[0], 'the reference sees array content as ""');
  });

  test('counts images with imageTokens in every budget decision', () => {
    const input = openAi();
    const result = compress(input, { tokenBudget: 800 });
    assert.equal(result.fits, true);
    assert.ok(result.tokenCount > 765, 'the image counts 765 tokens');
    assert.equal(result.compression.messages_compressed, 1);
    const cheap = compress(input, { tokenBudget: 800, imageTokens: 85 });
    assert.equal(cheap.messages, input, 'with cheap images the input fits as it is');
    assert.throws(
      () => compress(input, { imageTokens: -1 }),
      (e) => e instanceof CompressError && e.path === '/options/imageTokens',
    );
  });

  test('a token counter sees the text parts as a string; images cost imageTokens', () => {
    const seen = [];
    // A counter written for string contents, as most tokenizer wrappers are.
    const counter = (m) => {
      seen.push(m);
      if (typeof m.content !== 'string') throw new TypeError('content is not a string');
      return Math.ceil(m.content.length / 3.5);
    };
    const textOf = (parts) =>
      parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
    const cost = (m) =>
      Array.isArray(m.content)
        ? counter({ ...m, content: textOf(m.content) }) +
          100 * m.content.filter((p) => p.type === 'image_url').length
        : counter(m);
    const input = openAi();
    // u1: 19 + 1 + 265 = 285 characters of text (82) + one image (100); a1 5, u2 3: 190 > 170
    // until summarised.
    assert.equal(input.reduce((n, m) => n + cost(m), 0), 190);
    const result = compress(input, { tokenBudget: 170, tokenCounter: counter, imageTokens: 100 });
    assert.equal(result.fits, true);
    assert.ok(seen.length > 0 && seen.every((m) => typeof m.content === 'string'));
    assert.ok(seen.some((m) => m.id === 'u1' && m.content.startsWith('[summary')));
    assert.ok(Array.isArray(result.messages[0].content), 'the output keeps its parts');
    assert.equal(result.tokenCount, result.messages.reduce((n, m) => n + cost(m), 0));
    assert.equal(restoredJson(result), JSON.stringify(input));
  });
});

describe('token estimate', () => {
  const cjk = () => [
    { id: 'sys', role: 'system', content: '回答要简洁。' },
    { id: 'u1', role: 'user', content: `${HAN}，${HAN}。`.repeat(7) },
    { id: 'a1', role: 'assistant', content: '好的，我会先备份数据库然后再迁移。' },
    { id: 'u2', role: 'user', content: '备份需要多长时间？' },
  ];

  test('counts CJK text by script by default and by length with tokenEstimate chars', () => {
    // 7 x 60 ideographs at 0.858 tokens each: the length estimate sees a third of that. The
    // script estimate bills 4 tokens a message too, so the search settles at window 1 (as the
    // golden safe-estimate-cjk-budget says).
    const script = compress(cjk(), { tokenBudget: 200 });
    assert.equal(script.fits, true);
    assert.equal(script.compression.messages_compressed, 1);
    assert.equal(script.tokenCount, 126);
    const chars = compress(cjk(), { tokenBudget: 200, tokenEstimate: 'chars' });
    assert.equal(chars.compression.messages_compressed, 0);
    assert.equal(chars.tokenCount, 134);
    const compat = compress(cjk(), { tokenBudget: 200, compat: 'cce-1.0' });
    assert.equal(compat.tokenCount, 134, 'compat keeps the reference\'s estimate');
  });

  test('rejects an unknown estimate with a typed error', () => {
    assert.throws(
      () => compress(cjk(), { tokenEstimate: 'words' }),
      (e) =>
        e instanceof CompressError &&
        e.code === 'InvalidInput' &&
        e.path === '/options/tokenEstimate',
    );
  });
});

describe('safe-mode golden cases of items 3, 5 and 7 through the package', () => {
  const dir = new URL('../../tests/golden/safe/', import.meta.url);
  for (const name of [
    'safe-summary-keeps-identifiers',
    'safe-multimodal-summary',
    'safe-estimate-cjk-budget',
    'safe-estimate-cjk-budget-chars',
  ]) {
    test(name, () => {
      const c = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
      const result = compress(c.input.messages, c.input.options);
      assert.deepEqual(JSON.parse(JSON.stringify(result)), c.expected.compress);
      assert.deepEqual(uncompress(result.messages, result.verbatim).messages, c.input.messages);
    });
  }
});

// Image files of known sizes, built here byte by byte as their encoders write them: a complete
// PNG (IHDR, zlib-compressed IDAT, IEND with their CRCs), a complete GIF89a, the three WebP
// bitstreams' headers (lossy VP8 key frame, lossless VP8L, extended VP8X) and a JFIF JPEG whose
// frame header comes after a 4 KB EXIF block (past the first 512 bytes the estimate reads first).

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
};
/** A 1-bit greyscale PNG of w x h white pixels. */
function png(w, h) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([1, 0, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + Math.ceil(w / 8), 0xff);
  row[0] = 0; // filter: none
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
/** A GIF89a of w x h with one 1 x 1 frame (LZW minimum code size 2: clear, 0, end). */
function gif(w, h) {
  const b = Buffer.alloc(13 + 6 + 10 + 5 + 1);
  b.write('GIF89a', 0, 'ascii');
  b.writeUInt16LE(w, 6);
  b.writeUInt16LE(h, 8);
  b[10] = 0x80; // a global colour table of 2 entries
  b.set([0, 0, 0, 255, 255, 255], 13);
  b.set([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0], 19);
  b.set([2, 2, 0x44, 0x01, 0], 29);
  b[34] = 0x3b;
  return b;
}
function riff(fourcc, payload) {
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(12 + payload.length, 4);
  head.write('WEBP', 8, 'ascii');
  head.write(fourcc, 12, 'ascii');
  head.writeUInt32LE(payload.length, 16);
  return Buffer.concat([head, payload]);
}
const webpLossy = (w, h) => {
  const p = Buffer.alloc(10);
  p.set([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a], 0); // frame tag (key frame), start code
  p.writeUInt16LE(w, 6);
  p.writeUInt16LE(h, 8);
  return riff('VP8 ', p);
};
const webpLossless = (w, h) => {
  const p = Buffer.alloc(25); // the header and the first bytes of the image stream
  p[0] = 0x2f; // signature
  const bits = (w - 1) | ((h - 1) << 14); // 14 + 14 bits, then alpha and version (0)
  p.writeUInt32LE(bits >>> 0, 1);
  return riff('VP8L', p);
};
const webpExtended = (w, h) => {
  const p = Buffer.alloc(10);
  p.writeUIntLE(w - 1, 4, 3);
  p.writeUIntLE(h - 1, 7, 3);
  return riff('VP8X', p);
};
function jpeg(w, h, exifBytes = 4096) {
  const app0 = Buffer.from([0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const app1 = Buffer.alloc(4 + exifBytes);
  app1.set([0xff, 0xe1], 0);
  app1.writeUInt16BE(2 + exifBytes, 2);
  app1.write('Exif\0\0', 4, 'ascii');
  const sof = Buffer.alloc(19);
  sof.set([0xff, 0xc0, 0, 17, 8], 0);
  sof.writeUInt16BE(h, 5);
  sof.writeUInt16BE(w, 7);
  sof[9] = 3;
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, app1, sof, Buffer.from([0xff, 0xd9])]);
}

const dataUrl = (type, bytes) => `data:${type};base64,${bytes.toString('base64')}`;
const tiles = (n) => 85 + 170 * n;

describe('images priced by their pixel size (issue 17 item 5)', () => {
  const look = { type: 'text', text: 'look' };
  const count = (parts, options = {}) =>
    compress([{ id: 'u', role: 'user', content: parts }], { tokenBudget: 1e9, ...options }).tokenCount;
  const price = (part, options) => count([look, part], options) - count([look], options);
  const chat = (url, detail) => ({ type: 'image_url', image_url: detail ? { url, detail } : { url } });

  const cases = [
    // 2048 x 1024: shortest side to 768 -> 1536 x 768, 3 x 2 tiles.
    ['PNG 2048 x 1024', chat(dataUrl('image/png', png(2048, 1024))), tiles(6)],
    ['PNG 2048 x 1024, detail high', chat(dataUrl('image/png', png(2048, 1024)), 'high'), tiles(6)],
    ['PNG 2048 x 1024, detail auto (priced as high)', chat(dataUrl('image/png', png(2048, 1024)), 'auto'), tiles(6)],
    ['PNG 2048 x 1024, detail low', chat(dataUrl('image/png', png(2048, 1024)), 'low'), 85],
    ['GIF 100 x 100', chat(dataUrl('image/gif', gif(100, 100))), tiles(1)],
    ['WebP lossy 512 x 512', chat(dataUrl('image/webp', webpLossy(512, 512))), tiles(1)],
    ['WebP lossless 1500 x 300', chat(dataUrl('image/webp', webpLossless(1500, 300))), tiles(3)],
    ['WebP extended 1024 x 100', chat(dataUrl('image/webp', webpExtended(1024, 100))), tiles(2)],
    // 4000 x 3000: fit in 2048 -> 2048 x 1536, shortest to 768 -> 1024 x 768, 2 x 2 tiles.
    ['JPEG 4000 x 3000, frame after a 4 KB EXIF block', chat(dataUrl('image/jpeg', jpeg(4000, 3000))), tiles(4)],
    ['JPEG 1200 x 700', chat(dataUrl('image/jpeg', jpeg(1200, 700, 64))), tiles(6)],
    [
      'Anthropic-shaped image block, base64 source (PNG 300 x 200)',
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(300, 200).toString('base64') } },
      tiles(1),
    ],
    [
      'Responses input_image with a data URL (GIF 1100 x 90)',
      { type: 'input_image', image_url: dataUrl('image/gif', gif(1100, 90)), detail: 'auto' },
      tiles(3),
    ],
    ['a URL: imageTokens, default 765', chat('https://example.com/chart.png'), 765],
    ['an Anthropic URL source', { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }, 765],
  ];
  for (const [name, part, tokens] of cases) {
    test(name, () => assert.equal(price(part), tokens));
  }

  test('every file above is what its header says (the test builders are right)', () => {
    assert.equal(png(10, 4).readUInt32BE(16), 10);
    assert.equal(crc32(Buffer.from('IEND')), 0xae426082, 'the PNG chunk CRC of IEND');
    assert.equal(png(8, 1).subarray(-12).toString('hex'), '0000000049454e44ae426082');
    assert.equal(gif(7, 9).readUInt16LE(8), 9);
    assert.equal(jpeg(5, 6).length, 2 + 18 + 4100 + 19 + 2);
  });

  test('imageTokens, when given, prices every image (and a URL image) at that number', () => {
    const inline = chat(dataUrl('image/png', png(2048, 1024)));
    assert.equal(price(inline, { imageTokens: 100 }), 100);
    assert.equal(price(inline, { imageTokens: 0 }), 0);
    assert.equal(price(chat('https://example.com/a.png'), { imageTokens: 85 }), 85);
  });

  test('corrupted or unreadable headers cost the default and never throw', () => {
    const bad = [
      'data:image/png;base64,iVBORw0KGgo=', // a PNG signature, no IHDR
      'data:image/png;base64,!!!not base64!!!',
      'data:image/png;base64,',
      'data:image/png,plain-text-not-base64',
      dataUrl('image/png', Buffer.alloc(64)), // zeros
      dataUrl('image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8])), // a segment past the end
      dataUrl('image/jpeg', Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(600, 0x41)])), // no marker
      dataUrl('image/gif', gif(0, 0)),
      dataUrl('image/webp', riff('VP8Z', Buffer.alloc(12))),
    ];
    for (const url of bad) {
      assert.equal(price(chat(url)), 765, url.slice(0, 40));
      assert.equal(price(chat(url), { imageTokens: 85 }), 85);
    }
    // Odd shapes: not an image object, a part whose image_url getter throws.
    assert.equal(price({ type: 'image_url', image_url: 42 }), 765);
    const hostile = { type: 'image_url' };
    Object.defineProperty(hostile, 'image_url', { enumerable: true, get() { throw new Error('no'); } });
    assert.equal(price(hostile), 765);
  });

  test('a budget decision changes with the image\'s real size', () => {
    // A 64 x 64 PNG costs one tile (255), not the 765 of an unknown image: the conversation fits
    // a budget as it is, where the flat price would have had it compressed.
    const long = PROSE.repeat(3);
    const input = [
      { id: 'u1', role: 'user', content: [{ type: 'text', text: long }, chat(dataUrl('image/png', png(64, 64)))] },
      { id: 'a1', role: 'assistant', content: long },
      { id: 'u2', role: 'user', content: 'And now?' },
    ];
    const before = JSON.stringify(input);
    const full = compress(input, { tokenBudget: 1e9 }).tokenCount;
    const flat = compress(input, { tokenBudget: 1e9, imageTokens: 765 }).tokenCount;
    assert.equal(flat - full, 765 - tiles(1));
    const budget = full + 10;
    const priced = compress(input, { tokenBudget: budget, recencyWindow: 1 });
    assert.equal(priced.fits, true);
    assert.equal(priced.compression.messages_compressed, 0);
    assert.equal(priced.messages[0], input[0]);
    const flatRun = compress(input, { tokenBudget: budget, recencyWindow: 1, imageTokens: 765 });
    const { messages_compressed: compressed, messages_omitted: omitted } = flatRun.compression;
    assert.ok(compressed + omitted > 0, 'at the flat price the conversation must shrink to fit');
    assert.equal(JSON.stringify(input), before, 'the input is not mutated');
  });

  test('cce-1.0 reads no parts: images cost nothing there, as in the reference', () => {
    const part = chat(dataUrl('image/png', png(2048, 1024)));
    assert.equal(price(part, { compat: 'cce-1.0' }), 0);
  });
});

// SPDX-License-Identifier: MIT
// Pixel sizes of inline images, read from the PNG / JPEG / GIF / WebP header of their bytes (a
// data: URL, a base64 string or a Uint8Array), and what providers bill for an image of that size.
// Only the header is decoded: a few hundred bytes, or up to 64 KB for a JPEG with a large EXIF
// block before its frame header.

type Obj = Record<string, unknown>;

/** The first bytes (at most about `max`) of a base64 text; undefined when it is not base64. Only
 * the characters those bytes need are decoded (atob: every runtime this package supports has it). */
function decodeBase64(text: string, start: number, max: number): Uint8Array | undefined {
  let chunk = text.slice(start, start + Math.ceil(max / 3) * 4).replace(/[\r\n ]/g, '');
  chunk = chunk.replace(/-/g, '+').replace(/_/g, '/'); // base64url
  chunk = chunk.slice(0, chunk.length - (chunk.length % 4));
  let binary: string;
  try {
    binary = atob(chunk);
  } catch {
    return undefined;
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Width and height from an image file's first bytes, or undefined. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const b = bytes;
  const u16be = (i: number) => ((b[i] as number) << 8) | (b[i + 1] as number);
  const u16le = (i: number) => (b[i] as number) | ((b[i + 1] as number) << 8);
  const u24le = (i: number) => u16le(i) | ((b[i + 2] as number) << 16);
  const u32be = (i: number) => u16be(i) * 65536 + u16be(i + 2);
  const ascii = (i: number, s: string) => [...s].every((ch, k) => b[i + k] === ch.charCodeAt(0));
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 'PNG')) return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && ascii(0, 'GIF8')) return { width: u16le(6), height: u16le(8) };
  if (b.length >= 30 && ascii(0, 'RIFF') && ascii(8, 'WEBP')) {
    if (ascii(12, 'VP8 ')) return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    if (ascii(12, 'VP8L')) {
      const b1 = b[22] as number;
      const b2 = b[23] as number;
      const b3 = b[24] as number;
      return {
        width: 1 + ((b[21] as number) | ((b1 & 0x3f) << 8)),
        height: 1 + ((b1 >> 6) | (b2 << 2) | ((b3 & 0x0f) << 10)),
      };
    }
    if (ascii(12, 'VP8X')) return { width: 1 + u24le(24), height: 1 + u24le(27) };
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    // Walk the segments to the first start-of-frame marker (C0-CF but C4, C8, CC).
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1] as number;
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: u16be(i + 7), height: u16be(i + 5) };
      }
      i += 2 + u16be(i + 2);
    }
  }
  return undefined;
}

/** The first `max` inline bytes of an image block, part or source, whatever the format calls them. */
function inlineHead(value: unknown, max: number, depth = 0): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value.subarray(0, max);
  if (typeof value === 'string') {
    if (value.startsWith('data:')) {
      const comma = value.indexOf(',');
      return comma > 0 && value.slice(0, comma).endsWith(';base64') ? decodeBase64(value, comma + 1, max) : undefined;
    }
    // A bare base64 string of a PNG, GIF, WebP or JPEG starts with one of these.
    if (/^(iVBOR|R0lGOD|UklGR|\/9j\/)/.test(value)) return decodeBase64(value, 0, max);
    return undefined;
  }
  if (depth > 3 || typeof value !== 'object' || value === null) return undefined;
  for (const key of Object.keys(value as Obj)) {
    const head = inlineHead((value as Obj)[key], max, depth + 1);
    if (head) return head;
  }
  return undefined;
}

/** Pixel size of an inline image anywhere in `block`, or undefined (a URL, a file id, no image).
 * The first 512 bytes hold every PNG, GIF and WebP size and most JPEG frame headers; a JPEG with a
 * large EXIF block or embedded thumbnail before its frame is read again, up to 64 KB. */
export function inlineImageSize(block: unknown): { width: number; height: number } | undefined {
  const head = inlineHead(block, 512);
  if (!head) return undefined;
  const size = imageSize(head);
  if (size || head.length < 512 || head[0] !== 0xff) return size;
  const longer = inlineHead(block, 65536);
  return longer ? imageSize(longer) : undefined;
}

/**
 * What OpenAI bills for one image part of the main entry's messages (`image_url` with a data URL,
 * Responses `input_image`, an Anthropic-shaped `image` with base64 `source`), from the pixel size
 * in its header: 85 in low detail, else the tile formula ('auto' priced as 'high', its upper
 * bound). Undefined when no size can be read (a URL, a file id, a corrupted header): the caller's
 * `imageTokens` applies. Never throws.
 */
export function imagePartTokens(part: Obj): number | undefined {
  try {
    const nested = part.image_url;
    const detail = typeof nested === 'object' && nested !== null ? (nested as Obj).detail : part.detail;
    const size = inlineImageSize(part);
    if (!size || size.width <= 0 || size.height <= 0) return undefined;
    return detail === 'low' ? 85 : openAIImageTokens(size.width, size.height);
  } catch {
    return undefined; // a part with a getter that throws: priced by default
  }
}

/** OpenAI's price of an image in high detail: fit in 2048 x 2048, shortest side to 768, then 170
 * per 512-pixel tile plus 85. */
export function openAIImageTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Anthropic's price: width x height / 750, after scaling to at most 1568 pixels on the long
 * side and about 1.15 megapixels. */
export function anthropicImageTokens(width: number, height: number): number {
  let scale = Math.min(1, 1568 / Math.max(width, height));
  scale = Math.min(scale, Math.sqrt(1_150_000 / (width * height || 1)));
  return Math.ceil((width * scale * (height * scale)) / 750);
}

/**
 * Deterministic test images. `photoLikePng` writes PNG bytes itself with node:zlib — independent of
 * the image library under test — from a gradient plus noise, so PNG compression cannot shrink it and
 * its size is known in advance: (3 × width + 1) × height bytes of pixels, plus a few hundred.
 */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Gradient + xorshift noise, 8-bit RGB, `width × height × 3` bytes. */
export function photoLikePixels(width: number, height: number, seed = 1): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed >>> 0 || 1;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let channel = 0; channel < 3; channel += 1) {
        state ^= state << 13;
        state >>>= 0;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        const gradient = ((x + y * (channel + 1)) % 256) / 2;
        pixels[(y * width + x) * 3 + channel] = gradient + (state & 0x7f);
      }
    }
  }
  return pixels;
}

/** A PNG of 8-bit `colourType` rows (each with its filter byte), deflated at `level`. */
function png(width: number, height: number, colourType: 0 | 2, rows: Buffer, level: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, colourType, 0, 0, 0], 8); // bit depth 8, colour type (0 grey, 2 RGB), deflate, filter method 0, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An RGB PNG of photo-like pixels; stored (level 0) deflate keeps its size predictable. */
export function photoLikePng(width: number, height: number, seed = 1): Buffer {
  const pixels = photoLikePixels(width, height, seed);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) pixels.copy(rows, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  return png(width, height, 2, rows, 0);
}

/** The PNG with other dimensions in its header (and its IHDR CRC fixed): a lie about its pixels. */
export function withPngHeaderSize(png: Buffer, width: number, height: number): Buffer {
  const copy = Buffer.from(png);
  copy.writeUInt32BE(width, 16);
  copy.writeUInt32BE(height, 20);
  copy.writeUInt32BE(crc32(copy.subarray(12, 29)), 29);
  return copy;
}

/** The image part of a RunAgentInput user message. */
export function imagePart(mimeType: string, bytes: Uint8Array | string, filename?: string): Record<string, unknown> {
  const value = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('base64');
  return { type: 'image', source: { type: 'data', mimeType, value }, ...(filename ? { metadata: { filename } } : {}) };
}

/**
 * A valid grey PNG of any size that stays small: every row is the same zero bytes, which deflate
 * shrinks to almost nothing (a 1 × 20,000,000 image is about 40 KB). For images whose cost lies in
 * their dimensions, not their bytes.
 */
export function greyPng(width: number, height: number): Buffer {
  return png(width, height, 0, Buffer.alloc((width + 1) * height), 9);
}

/**
 * The peer's downsampling rules (docs/protocol.md §3.4) branch by branch, through the real sharp
 * codec: every output is decoded again with sharp to check what the kernel would receive.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { type ImageCodec, ImageDecodeError, type ImageEncoding } from '../../lib/core/ports.js';
import { type DownsampleRules, downsampleImage, ImageTooLargeError, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, PEER_RULES } from '../../lib/core/protocol/image-downsample.js';
import { sniffImageFormat } from '../../lib/core/protocol/image-format.js';
import { greyPng, photoLikePixels, photoLikePng, withPngHeaderSize } from '../support/images.js';

const codec = new SharpImageCodec();
const TARGET = 3_932_160;

/** The real codec, recording which encodings the rules asked for and how often pixels were verified (nothing is faked). */
function recording(): { codec: ImageCodec; encodings: ImageEncoding[]; verified: () => number } {
  const encodings: ImageEncoding[] = [];
  let verified = 0;
  return {
    encodings,
    verified: () => verified,
    codec: {
      inspect: (bytes) => codec.inspect(bytes),
      verify: (bytes) => {
        verified += 1;
        return codec.verify(bytes);
      },
      encode: (bytes, encoding) => {
        encodings.push(encoding);
        return codec.encode(bytes, encoding);
      },
    },
  };
}

const raw = (width: number, height: number, seed = 1) => sharp(photoLikePixels(width, height, seed), { raw: { width, height, channels: 3 } });

/** A smooth gradient compresses well: large in pixels, small in PNG bytes. */
function gradientPng(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i += 1) pixels.fill(Math.floor(((i % width) / width) * 255), i * 3, i * 3 + 3);
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

async function animatedGif(): Promise<Buffer> {
  const [width, height, frames] = [40, 30, 3];
  return sharp(photoLikePixels(width, height * frames), { raw: { width, height: height * frames, channels: 3, pageHeight: height } })
    .gif({ loop: 0, delay: [100, 100, 100] })
    .toBuffer();
}

describe('the peer rules', () => {
  it('are 3,932,160 bytes (5 MiB × 3/4), 2000 px, JPEG 80/60/40/20, last resort 1000 px at 20; the adapter’s own caps are 8192² pixels and 16,384 px a side', () => {
    expect(PEER_RULES).toEqual({ targetBytes: TARGET, maxSide: 2000, jpegQualities: [80, 60, 40, 20], lastResortSide: 1000, lastResortQuality: 20 });
    expect(MAX_IMAGE_PIXELS).toBe(67_108_864);
    expect(MAX_IMAGE_SIDE).toBe(16_384);
  });
});

describe('fast path', () => {
  it('returns a small PNG byte for byte, as image/png, after decoding it', async () => {
    const png = await raw(300, 200).png().toBuffer();
    const { codec: watched, encodings } = recording();
    const out = await downsampleImage(png, watched);
    expect(out).toMatchObject({ mediaType: 'image/png', original: true });
    expect(Buffer.from(out.bytes).equals(png)).toBe(true);
    expect(encodings).toEqual([]);
  });

  it('leaves an animated GIF untouched and animated', async () => {
    const gif = await animatedGif();
    const out = await downsampleImage(gif, codec);
    expect(out).toMatchObject({ mediaType: 'image/gif', original: true });
    expect(Buffer.from(out.bytes).equals(gif)).toBe(true);
    expect((await sharp(out.bytes).metadata()).pages).toBe(3);
  });

  it('keeps WebP and JPEG as they are', async () => {
    const webp = await raw(120, 80).webp().toBuffer();
    const jpeg = await raw(120, 80).jpeg().toBuffer();
    expect(await downsampleImage(webp, codec)).toMatchObject({ mediaType: 'image/webp', original: true });
    expect(await downsampleImage(jpeg, codec)).toMatchObject({ mediaType: 'image/jpeg', original: true });
  });
});

describe('shrinking', () => {
  it('fits large dimensions into 2000×2000, aspect kept, and keeps a PNG as PNG when it then fits', async () => {
    const png = await gradientPng(4000, 1000);
    expect(png.length).toBeLessThan(TARGET);
    const out = await downsampleImage(png, codec);
    expect(out).toMatchObject({ mediaType: 'image/png', original: false });
    const decoded = await sharp(out.bytes).metadata();
    expect(decoded).toMatchObject({ format: 'png', width: 2000, height: 500 });
  });

  it('never enlarges: a 6 MiB photo-like PNG within 2000 px keeps its size and becomes JPEG at quality 80', async () => {
    const png = photoLikePng(1448, 1448);
    expect(png.length).toBeGreaterThan(6_000_000);
    const { codec: watched, encodings } = recording();
    const out = await downsampleImage(png, watched);
    expect(encodings).toEqual([
      { format: 'png', fit: 2000 },
      { format: 'jpeg', quality: 80, fit: 2000 },
    ]);
    expect(out).toMatchObject({ mediaType: 'image/jpeg', original: false });
    expect(out.bytes.length).toBeLessThanOrEqual(TARGET);
    expect(await sharp(out.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 1448, height: 1448, channels: 3 });
  });

  it('turns a JPEG that is too large into a smaller JPEG within 2000×2000, dropping its EXIF', async () => {
    const jpeg = await raw(3000, 2400)
      .jpeg({ quality: 98 })
      .withExif({ IFD0: { Copyright: 'test' } })
      .toBuffer();
    expect(jpeg.length).toBeGreaterThan(TARGET);
    const out = await downsampleImage(jpeg, codec);
    const decoded = await sharp(out.bytes).metadata();
    expect(decoded).toMatchObject({ format: 'jpeg', width: 2000, height: 1600 });
    expect(decoded.exif).toBeUndefined();
    expect(out.bytes.length).toBeLessThanOrEqual(TARGET);
  });

  it('drops alpha and animation when a GIF must be re-encoded: JPEG of the first frame', async () => {
    const gif = await animatedGif();
    const rules: DownsampleRules = { ...PEER_RULES, targetBytes: gif.length - 1 };
    const out = await downsampleImage(gif, codec, rules);
    expect(out.mediaType).toBe('image/jpeg');
    const decoded = await sharp(out.bytes).metadata();
    expect(decoded).toMatchObject({ format: 'jpeg', width: 40, height: 30, channels: 3 });
    expect(decoded.pages).toBeUndefined();
  });

  it('walks the JPEG qualities down to the first that fits, then the 1000 px last resort, then gives up', async () => {
    const png = photoLikePng(1200, 900);
    const q80 = (await codec.encode(png, { format: 'jpeg', quality: 80, fit: 2000 })).length;
    const q40 = (await codec.encode(png, { format: 'jpeg', quality: 40, fit: 2000 })).length;
    const watched = recording();
    const ladder = await downsampleImage(png, watched.codec, { ...PEER_RULES, targetBytes: q40 });
    expect(watched.encodings.map((encoding) => (encoding.format === 'jpeg' ? encoding.quality : 'png'))).toEqual(['png', 80, 60, 40]);
    expect(ladder.bytes.length).toBe(q40);
    expect(q80).toBeGreaterThan(q40);

    const last = recording();
    const lastResort = await downsampleImage(png, last.codec, { ...PEER_RULES, targetBytes: 60_000, lastResortSide: 200 });
    expect(last.encodings.at(-1)).toEqual({ format: 'jpeg', quality: 20, fit: 200 });
    expect(await sharp(lastResort.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 200, height: 150 });

    await expect(downsampleImage(png, codec, { ...PEER_RULES, targetBytes: 1_000 })).rejects.toBeInstanceOf(ImageTooLargeError);
  });
});

describe('formats', () => {
  it('takes the type from the bytes: a JPEG is image/jpeg whatever it was declared as', async () => {
    const jpeg = await raw(64, 64).jpeg().toBuffer();
    expect(sniffImageFormat(jpeg)).toBe('jpeg');
    expect((await downsampleImage(jpeg, codec)).mediaType).toBe('image/jpeg');
  });

  it('re-encodes TIFF, the one other format taken, as PNG', async () => {
    const tiff = await raw(64, 48).tiff().toBuffer();
    const out = await downsampleImage(tiff, codec);
    expect(out).toMatchObject({ mediaType: 'image/png', original: false });
    expect(await sharp(out.bytes).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
  });

  it('refuses BMP, SVG and other data without handing it to the library', async () => {
    const bmp = Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    for (const bytes of [bmp, svg, Buffer.alloc(0)]) {
      const { codec: watched, encodings } = recording();
      await expect(downsampleImage(bytes, watched)).rejects.toBeInstanceOf(ImageDecodeError);
      expect(encodings).toEqual([]);
    }
  });
});

describe('undecodable images', () => {
  it('refuses a truncated small PNG on the fast path and a truncated large JPEG while shrinking', async () => {
    const png = await raw(300, 200).png().toBuffer();
    await expect(downsampleImage(png.subarray(0, Math.floor(png.length * 0.7)), codec)).rejects.toThrow(ImageDecodeError);
    const jpeg = await raw(3000, 2400).jpeg({ quality: 98 }).toBuffer();
    await expect(downsampleImage(jpeg.subarray(0, Math.floor(jpeg.length * 0.7)), codec)).rejects.toThrow(ImageDecodeError);
  });

  it('refuses data that starts like a PNG but is not one, and a decompression bomb before decoding it', async () => {
    const fake = Buffer.concat([photoLikePng(1, 1).subarray(0, 8), Buffer.alloc(100)]);
    await expect(downsampleImage(fake, codec)).rejects.toThrow(ImageDecodeError);
    // A 20000×20000 header over one row of pixels: refused from the header alone.
    const bomb = withPngHeaderSize(photoLikePng(20_000, 1), 20_000, 20_000);
    const { codec: watched, encodings } = recording();
    await expect(downsampleImage(bomb, watched)).rejects.toThrow(ImageTooLargeError);
    expect(encodings).toEqual([]);
  });
});

describe('images too large in pixels or on a side', () => {
  it('refuses a tall, thin image (1 × 20,000,000, 40 KB) from its header, before any pixel is decoded', async () => {
    const tall = greyPng(1, 20_000_000);
    const { codec: watched, encodings, verified } = recording();
    const refused = downsampleImage(tall, watched);
    await expect(refused).rejects.toThrow(ImageTooLargeError);
    await expect(refused).rejects.toThrow(/16384 px/);
    await expect(downsampleImage(greyPng(20_000_000, 1), watched)).rejects.toThrow(ImageTooLargeError);
    expect([encodings, verified()]).toEqual([[], 0]);
  });

  it('refuses more than 8192² pixels from the header; exactly a side of 16,384 px within the pixel cap is taken', async () => {
    const { codec: watched, encodings, verified } = recording();
    await expect(downsampleImage(greyPng(8193, 8192), watched)).rejects.toThrow(/at most 67108864/);
    expect([encodings, verified()]).toEqual([[], 0]);
    const long = await downsampleImage(greyPng(MAX_IMAGE_SIDE, 16), codec);
    expect(long.mediaType).toBe('image/png');
  });
});

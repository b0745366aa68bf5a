/**
 * A run request's images, downsampled before admission (docs/protocol.md §3.4): the type sent is
 * the decoded one, failures name their part, the size limits count the bytes as received, and the
 * request digest is that of the request as received. Base64 round trips exactly.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { base64ToBytes, bytesToBase64, decodedLength } from '../../lib/core/base64.js';
import { SERVICE } from '../../lib/core/caller.js';
import { AdapterError, type FieldIssue } from '../../lib/core/errors.js';
import type { ImageCodec } from '../../lib/core/ports.js';
import { parseRunRequest } from '../../lib/core/protocol/run-request.js';
import { downsampleUserImages } from '../../lib/core/protocol/user-images.js';
import { runBody } from '../support/fixtures.js';
import { imagePart, photoLikePixels, photoLikePng } from '../support/images.js';

const codec = new SharpImageCodec();
const parse = (content: unknown) => parseRunRequest(runBody({ content }), { allowedRoots: [], caller: SERVICE });

/** The real codec, counting how often it was asked anything. */
function counting(): { codec: ImageCodec; calls: () => number } {
  let calls = 0;
  const counted = <T>(result: T): T => {
    calls += 1;
    return result;
  };
  return {
    calls: () => calls,
    codec: {
      inspect: (bytes) => counted(codec.inspect(bytes)),
      verify: (bytes) => counted(codec.verify(bytes)),
      encode: (bytes, encoding) => counted(codec.encode(bytes, encoding)),
    },
  };
}

async function invalidInput(promise: Promise<unknown>): Promise<AdapterError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AdapterError);
  expect((error as AdapterError).code).toBe('INVALID_INPUT');
  return error as AdapterError;
}

describe('base64', () => {
  it('round-trips every length and byte value, and agrees with Buffer', () => {
    const all = Uint8Array.from({ length: 256 }, (_, index) => index);
    for (let length = 0; length <= 7; length += 1) {
      const bytes = all.subarray(250 - length, 250);
      const text = Buffer.from(bytes).toString('base64');
      expect(bytesToBase64(bytes)).toBe(text);
      expect(decodedLength(text)).toBe(length);
      expect(Buffer.from(base64ToBytes(text)).equals(Buffer.from(bytes))).toBe(true);
    }
    expect(bytesToBase64(all)).toBe(Buffer.from(all).toString('base64'));
  });
});

describe('downsampleUserImages', () => {
  it('sends a JPEG declared as PNG as image/jpeg, untouched, keeping text parts and filenames', async () => {
    const jpeg = await sharp(photoLikePixels(64, 48), { raw: { width: 64, height: 48, channels: 3 } })
      .jpeg()
      .toBuffer();
    const request = parse([{ type: 'text', text: 'look' }, imagePart('image/png', jpeg, 'shot.png')]);
    const out = await downsampleUserImages(request, codec);
    expect(out.userMessage?.parts).toEqual([{ text: 'look' }, { data: { filename: 'shot.png', bytes: jpeg.toString('base64') }, mediaType: 'image/jpeg' }]);
    expect(out.digest).toBe(request.digest);
  });

  it('replaces a large image with its downsampled bytes; the digest stays that of the request as received', async () => {
    const png = photoLikePng(2400, 873);
    const request = parse([imagePart('image/png', png)]);
    const out = await downsampleUserImages(request, codec);
    const part = out.userMessage?.parts[0] as { data: { filename: string; bytes: string }; mediaType: string };
    // Shrunk to 2000×728, the Lanczos-smoothed noise fits as PNG again, so it stays PNG.
    expect(part.mediaType).toBe('image/png');
    expect(part.data.filename).toBe('agui-image-1');
    const bytes = Buffer.from(part.data.bytes, 'base64');
    expect(bytes.length).toBeLessThanOrEqual(3_932_160);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 2000, height: 728 });
    expect(out.digest).toBe(request.digest);
  });

  it('names every undecodable part in one INVALID_INPUT, and leaves a request without images alone', async () => {
    const png = await sharp(photoLikePixels(30, 30), { raw: { width: 30, height: 30, channels: 3 } })
      .png()
      .toBuffer();
    const request = parse([
      imagePart('image/png', png),
      { type: 'text', text: 'and' },
      imagePart('image/png', png.subarray(0, 60)),
      imagePart('image/gif', Buffer.from('BM not an image')),
    ]);
    const error = await invalidInput(downsampleUserImages(request, codec));
    expect(error.messageKey).toBe('invalidImage');
    expect((error.details as FieldIssue[] | undefined)?.map((detail) => detail.path)).toEqual(['messages[0].content[2]', 'messages[0].content[3]']);

    const watched = counting();
    const textOnly = parse('just text');
    expect(await downsampleUserImages(textOnly, watched.codec)).toBe(textOnly);
    expect(watched.calls()).toBe(0);
  });

  it('counts the 10 MiB total on the bytes as received: refused while parsing, before any image is decoded', () => {
    // Two 5.5 MiB photo-like PNGs: each would shrink far below 1 MiB, but together they are over 10 MiB as sent.
    const png = photoLikePng(1550, 1240);
    expect(png.length).toBeGreaterThan(5.5 * 1024 * 1024);
    let thrown: unknown;
    try {
      parse([imagePart('image/png', png), imagePart('image/png', png)]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AdapterError);
    expect(thrown).toMatchObject({ code: 'INVALID_INPUT', messageKey: 'imageTooLarge', details: [{ path: 'messages[0].content' }] });
  });
});

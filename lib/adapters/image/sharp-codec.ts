/**
 * The ImageCodec port over sharp (libvips), the one place that calls it (docs/architecture.md §4.6).
 *
 * sharp is a native Node-API module: the esbuild bundle leaves it external and `npm run build`
 * copies it with its Linux x64 binaries beside the bundle (scripts/build/runtime-packages.ts). It is
 * imported on the first image only, so neither start-up nor a turn without images pays for
 * loading libvips. Every failure of sharp on the caller's bytes leaves as ImageDecodeError; a
 * failure to load sharp itself is the deployment's fault and propagates as it is (500).
 */
import type SharpFactory from 'sharp';
import { onceUntilFailure } from '../../core/once-until-failure.js';
import { type ImageCodec, ImageDecodeError, type ImageEncoding, type ImageFormat, type ImageInfo } from '../../core/ports.js';
import { MAX_IMAGE_PIXELS } from '../../core/protocol/image-downsample.js';

type Sharp = typeof SharpFactory;

const FORMATS: readonly string[] = ['png', 'jpeg', 'gif', 'webp', 'tiff'] satisfies ImageFormat[];

/** The sharp module, imported once, on first use. */
const loadSharp = onceUntilFailure(async (): Promise<Sharp> => {
  const sharp = (await import('sharp')).default;
  // libvips' operation cache would keep decoded images of past requests in memory; a server
  // never re-processes the same image, so caching only costs memory.
  sharp.cache(false);
  return sharp;
});

/**
 * Truncated data fails, as the peer's decoder does; the pixel cap refuses a decompression bomb
 * before libvips allocates for it. Only the first frame of an animation is read.
 */
const INPUT = { failOn: 'truncated', limitInputPixels: MAX_IMAGE_PIXELS } as const;

async function onImage<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // libvips' own words stay in the cause (logged), never in the caller's answer (docs/protocol.md §2.5).
    const overPixelLimit = error instanceof Error && /pixel limit/i.test(error.message);
    const reason = overPixelLimit ? `it has more than ${MAX_IMAGE_PIXELS} pixels` : 'its data is corrupt, truncated or not an image';
    throw new ImageDecodeError(`The image cannot be ${what}: ${reason}.`, { cause: error });
  }
}

export class SharpImageCodec implements ImageCodec {
  async inspect(bytes: Uint8Array): Promise<ImageInfo> {
    const sharp = await loadSharp();
    const metadata = await onImage('read', () => sharp(bytes, INPUT).metadata());
    const { format, width, height } = metadata;
    // For an animation, `height` covers every frame unless pageHeight says one frame's height.
    const frameHeight = metadata.pageHeight ?? height;
    if (!FORMATS.includes(format)) throw new ImageDecodeError(`The image is ${format}, not a PNG, JPEG, GIF, WebP or TIFF image.`);
    return { format: format as ImageFormat, width, height: frameHeight };
  }

  async verify(bytes: Uint8Array): Promise<void> {
    const sharp = await loadSharp();
    // stats() reads every pixel through libvips' streaming pipeline without holding the image.
    await onImage('decoded', () => sharp(bytes, INPUT).stats());
  }

  async encode(bytes: Uint8Array, encoding: ImageEncoding): Promise<Uint8Array> {
    const sharp = await loadSharp();
    let pipeline = sharp(bytes, INPUT);
    if (encoding.fit !== undefined) pipeline = pipeline.resize(encoding.fit, encoding.fit, { fit: 'inside', withoutEnlargement: true, kernel: 'lanczos3' });
    pipeline =
      encoding.format === 'png'
        ? pipeline.png({ compressionLevel: 9, adaptiveFiltering: true })
        : pipeline.removeAlpha().toColourspace('srgb').jpeg({ quality: encoding.quality, optimiseCoding: true, mozjpeg: false });
    const output = await onImage('decoded', () => pipeline.toBuffer());
    return new Uint8Array(output.buffer, output.byteOffset, output.byteLength);
  }
}

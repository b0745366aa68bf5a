/**
 * The ImageCodec port over sharp (libvips), the one place that calls it (docs/architecture.md §4.6).
 *
 * sharp is a native Node-API module: the esbuild bundle leaves it external and `npm run build`
 * copies it with its Linux x64 binaries beside the bundle (scripts/build/runtime-packages.ts). It is
 * imported on the first image only, so neither start-up nor a turn without images pays for
 * loading libvips. Every failure of sharp on the caller's bytes leaves as ImageDecodeError; a
 * failure to load sharp itself is the deployment's fault and propagates as it is (500).
 *
 * At most IMAGE_WORK_CONCURRENCY sharp operations run at once, whatever the number of requests:
 * each occupies a thread of libuv's pool (4 by default) for as long as libvips works, and the file
 * store's disk work, DNS lookups and zlib share that pool — four large images at once used to queue
 * every other thread's disk work behind them (docs/architecture.md §4.6). The rest wait their turn
 * (work-gate.ts).
 */
import type SharpFactory from 'sharp';
import { onceUntilFailure } from '../../core/once-until-failure.js';
import { type ImageCodec, ImageDecodeError, type ImageEncoding, type ImageFormat, type ImageInfo } from '../../core/ports.js';
import { MAX_IMAGE_PIXELS } from '../../core/protocol/image-downsample.js';
import { WorkGate } from './work-gate.js';

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
/**
 * Reading the header decodes no pixel: the core compares the dimensions with its limits itself and
 * says which one an image passes (docs/protocol.md §3.4); the cap above guards every decode.
 */
const HEADER = { failOn: 'truncated', limitInputPixels: false } as const;

/** sharp operations of this process at once: half of libuv's default pool, the other half left to everything else. */
export const IMAGE_WORK_CONCURRENCY = 2;

/** One queue for the whole process: the pool it protects is the process's. */
const imageWork = new WorkGate(IMAGE_WORK_CONCURRENCY);

async function onImage<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await imageWork.run(work);
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
    const metadata = await onImage('read', () => sharp(bytes, HEADER).metadata());
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

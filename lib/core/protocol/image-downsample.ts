/**
 * One image, downsampled exactly as iac-code's own adapter does (docs/protocol.md §3.4), so that no
 * data part ever reaches the kernel's 5 MiB inline limit:
 *
 * 1. the bytes must be PNG, JPEG, GIF, WebP or TIFF (sniffed), and the library must agree; an
 *    image over MAX_IMAGE_PIXELS pixels or MAX_IMAGE_SIDE px on a side is refused from its header,
 *    before any pixel is decoded;
 * 2. TIFF (the one other format taken) is re-encoded as PNG first and treated as PNG;
 * 3. fast path: at most 3,932,160 bytes and both sides at most 2000 px → the original bytes,
 *    untouched (an animated GIF stays animated), once every pixel decoded;
 * 4. else shrink to fit 2000×2000 (aspect kept, never enlarged, Lanczos);
 * 5. a PNG is kept as PNG if it then fits 3,932,160 bytes;
 * 6. else JPEG at quality 80, 60, 40, 20, the first that fits;
 * 7. last resort: from the original, fit 1000×1000 at quality 20; still too big is an error.
 *
 * Decoding is the ImageCodec port's (docs/architecture.md §4.6); what to try, in which order, and
 * what to send is decided here.
 */
import { type ImageCodec, ImageDecodeError, type ImageFormat, type ImageInfo } from '../ports.js';
import { mediaTypeOf, sniffImageFormat } from './image-format.js';

/** The kernel's cap on a data part's decoded bytes (`MAX_BINARY_INLINE_BYTES`). */
export const KERNEL_INLINE_IMAGE_BYTES = 5 * 1024 * 1024;

export interface DownsampleRules {
  /** An image sent is at most this many bytes. */
  targetBytes: number;
  /** The fast path needs both sides at most this; a re-encoded image is shrunk to fit maxSide × maxSide. */
  maxSide: number;
  jpegQualities: readonly number[];
  lastResortSide: number;
  lastResortQuality: number;
}

/** The peer's rules: the target's base64 (4/3 larger) fits the kernel's cap: 3,932,160 bytes. */
export const PEER_RULES: DownsampleRules = {
  targetBytes: (KERNEL_INLINE_IMAGE_BYTES * 3) / 4,
  maxSide: 2000,
  jpegQualities: [80, 60, 40, 20],
  lastResortSide: 1000,
  lastResortQuality: 20,
};

/**
 * Pixels of the first frame beyond which an image is refused without decoding it (docs/protocol.md
 * §1.4, §3.4): 8192 × 8192, about 67 megapixels — a 50-megapixel photo fits. The peer's resizer
 * inherits Pillow's 178,956,970; that many pixels cost seconds of CPU to decode, and a TIFF is
 * re-encoded at full size first (4.7 s for 169 megapixels on this project's machine, against
 * 1.8 s at 64), so the adapter takes fewer than the peer (docs/protocol.md §10.2).
 */
export const MAX_IMAGE_PIXELS = 8192 * 8192;

/**
 * The longest side an image may have, refused from its header too: libvips works through a tall,
 * thin image a row at a time, so a 1 × 100,000,000 PNG of 254 KB — far under the pixel limit — cost
 * about 25 s of CPU. 16,384 px is WebP's own ceiling and the texture limit of most GPUs; at that
 * side even a 1-px-wide image decodes in milliseconds.
 */
export const MAX_IMAGE_SIDE = 16_384;

export interface DownsampledImage {
  bytes: Uint8Array;
  mediaType: string;
  /** True when `bytes` are the caller's own, untouched (the fast path). */
  original: boolean;
}

/** Not even the last resort brings the image under the target size. */
export class ImageTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageTooLargeError';
  }
}

/** `rules` are the peer's; tests pass smaller ones to reach the ladder's lower rungs with small images. */
export async function downsampleImage(original: Uint8Array, codec: ImageCodec, rules: DownsampleRules = PEER_RULES): Promise<DownsampledImage> {
  const { targetBytes, maxSide } = rules;
  const info = await inspect(original, codec);
  let source = original;
  let format: Exclude<ImageFormat, 'tiff'>;
  if (info.format === 'tiff') {
    source = await codec.encode(original, { format: 'png' });
    format = 'png';
  } else {
    format = info.format;
  }

  if (source.length <= targetBytes && info.width <= maxSide && info.height <= maxSide) {
    // A re-encoded TIFF was decoded in full by the encoding; the caller's own bytes are decoded here.
    if (source === original) await codec.verify(original);
    return { bytes: source, mediaType: mediaTypeOf(format), original: source === original };
  }
  if (format === 'png') {
    const png = await codec.encode(source, { format: 'png', fit: maxSide });
    if (png.length <= targetBytes) return { bytes: png, mediaType: 'image/png', original: false };
  }
  for (const quality of rules.jpegQualities) {
    const jpeg = await codec.encode(source, { format: 'jpeg', quality, fit: maxSide });
    if (jpeg.length <= targetBytes) return { bytes: jpeg, mediaType: 'image/jpeg', original: false };
  }
  const last = await codec.encode(source, { format: 'jpeg', quality: rules.lastResortQuality, fit: rules.lastResortSide });
  if (last.length <= targetBytes) return { bytes: last, mediaType: 'image/jpeg', original: false };
  throw new ImageTooLargeError(`Even at ${rules.lastResortSide}×${rules.lastResortSide} px and JPEG quality ${rules.lastResortQuality} the image exceeds ${targetBytes} bytes.`);
}

/** The header, checked against the sniffed format and the pixel and side limits before any pixel is decoded. */
async function inspect(bytes: Uint8Array, codec: ImageCodec): Promise<ImageInfo> {
  if (bytes.length === 0) throw new ImageDecodeError('The image is empty.');
  const sniffed = sniffImageFormat(bytes);
  if (!sniffed) throw new ImageDecodeError('The data is not a PNG, JPEG, GIF, WebP or TIFF image.');
  const info = await codec.inspect(bytes);
  if (info.format !== sniffed) throw new ImageDecodeError(`The data starts like ${sniffed} but does not decode as one.`);
  if (info.width < 1 || info.height < 1) throw new ImageDecodeError('The image has no pixels.');
  if (info.width > MAX_IMAGE_SIDE || info.height > MAX_IMAGE_SIDE) {
    throw new ImageTooLargeError(`The image is ${info.width}×${info.height} px; a side may be at most ${MAX_IMAGE_SIDE} px.`);
  }
  if (info.width * info.height > MAX_IMAGE_PIXELS) throw new ImageTooLargeError(`The image has ${info.width * info.height} pixels; at most ${MAX_IMAGE_PIXELS} are taken.`);
  return info;
}

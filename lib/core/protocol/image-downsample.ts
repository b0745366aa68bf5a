/**
 * One image, downsampled exactly as iac-code's own adapter does (docs/protocol.md §3.4), so that no
 * data part ever reaches the kernel's 5 MiB inline limit:
 *
 * 1. the bytes must be PNG, JPEG, GIF, WebP or TIFF (sniffed), and the library must agree;
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
 * Pixels of the first frame beyond which an image is refused without decoding it: Pillow's
 * decompression-bomb error threshold (2 × MAX_IMAGE_PIXELS), which the peer's resizer inherits.
 */
export const MAX_IMAGE_PIXELS = 2 * Math.floor((1024 * 1024 * 1024) / 4 / 3);

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

/** The header, checked against the sniffed format and the pixel limit before any pixel is decoded. */
async function inspect(bytes: Uint8Array, codec: ImageCodec): Promise<ImageInfo> {
  if (bytes.length === 0) throw new ImageDecodeError('The image is empty.');
  const sniffed = sniffImageFormat(bytes);
  if (!sniffed) throw new ImageDecodeError('The data is not a PNG, JPEG, GIF, WebP or TIFF image.');
  const info = await codec.inspect(bytes);
  if (info.format !== sniffed) throw new ImageDecodeError(`The data starts like ${sniffed} but does not decode as one.`);
  if (info.width < 1 || info.height < 1) throw new ImageDecodeError('The image has no pixels.');
  if (info.width * info.height > MAX_IMAGE_PIXELS) throw new ImageDecodeError(`The image has more than ${MAX_IMAGE_PIXELS} pixels.`);
  return info;
}

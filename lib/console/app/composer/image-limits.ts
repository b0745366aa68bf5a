/**
 * The adapter's limits on images (docs/protocol.md §1, §3), checked before sending so the person
 * hears about a too-large or unsupported file at once instead of from a 413 or INVALID_INPUT:
 * png, jpeg, gif or webp; at most 8 MiB decoded per image and 10 MiB for all images; the JSON body
 * (base64 grows bytes by a third) at most 12 MiB. No DOM here.
 */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
export const MAX_TOTAL_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_BODY_BYTES = 12 * 1024 * 1024;
/** Room left in the body for the envelope, ids and settings around the message. */
const ENVELOPE_ALLOWANCE = 16 * 1024;

export interface ImageFacts {
  name: string;
  type: string;
  size: number;
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** Why a file cannot be added next to the ones already attached, or undefined when it fits. */
export function imageProblem(file: ImageFacts, attached: readonly ImageFacts[]): string | undefined {
  if (!(IMAGE_TYPES as readonly string[]).includes(file.type)) return `${file.name}: only PNG, JPEG, GIF and WebP images can be attached.`;
  if (file.size > MAX_IMAGE_BYTES) return `${file.name} is ${mib(file.size)}; an image may be at most ${mib(MAX_IMAGE_BYTES)}.`;
  const total = attached.reduce((sum, image) => sum + image.size, 0) + file.size;
  if (total > MAX_TOTAL_IMAGE_BYTES) return `${file.name} would bring the images to ${mib(total)}; all images together may be at most ${mib(MAX_TOTAL_IMAGE_BYTES)}.`;
  return undefined;
}

/** Why a message with this text and these images would be too large a request, or undefined. */
export function bodyProblem(text: string, images: readonly ImageFacts[]): string | undefined {
  const textBytes = new TextEncoder().encode(JSON.stringify(text)).byteLength;
  const estimate = textBytes + images.reduce((sum, image) => sum + base64Length(image.size) + image.name.length + 128, 0) + ENVELOPE_ALLOWANCE;
  return estimate > MAX_BODY_BYTES ? `This message would be about ${mib(estimate)}; a request may be at most ${mib(MAX_BODY_BYTES)}.` : undefined;
}

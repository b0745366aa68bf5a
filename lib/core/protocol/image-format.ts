/**
 * An image's format from its first bytes (docs/protocol.md §3.4). The declared `mimeType` is only
 * a gate; what the bytes are decides what is decoded and which type the kernel is told. Only these
 * formats are handed to the image library at all, so a caller cannot make it parse SVG, PDF or
 * anything else it happens to read.
 */
import type { ImageFormat } from '../ports.js';

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0): boolean => signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

const SIGNATURES: ReadonlyArray<{ format: ImageFormat; matches: (bytes: Uint8Array) => boolean }> = [
  { format: 'png', matches: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { format: 'jpeg', matches: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { format: 'gif', matches: (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')) },
  { format: 'webp', matches: (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8) },
  { format: 'tiff', matches: (b) => startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a]) },
];

/** The format the bytes start like, or undefined for anything else (BMP, SVG, text, …). */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  return SIGNATURES.find((signature) => signature.matches(bytes))?.format;
}

/** The media type the kernel is told for a format it accepts as a data part (docs/protocol.md §3.4). */
export function mediaTypeOf(format: Exclude<ImageFormat, 'tiff'>): string {
  return `image/${format}`;
}

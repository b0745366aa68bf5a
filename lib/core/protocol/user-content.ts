/**
 * The latest user message's content → A2A message parts (docs/protocol.md §3.3).
 *
 * Text becomes `{text}`; an inline image becomes a data part `{data:{filename, bytes}, mediaType}`.
 * Remote URLs, audio, video, documents and generic binaries are rejected; a legacy `binary` part
 * with inline image data is upgraded to an image. All failures are INVALID_INPUT before the
 * stream (docs/protocol.md §2.3), each naming its field. The 8 MiB and 10 MiB limits count the bytes as
 * received, before any downsampling (docs/protocol.md §3.4).
 */

import type { WirePart } from '../a2a/wire-types.js';
import { decodedLength } from '../base64.js';
import { AdapterError, type FieldIssue } from '../errors.js';
import type { MessageKey } from '../i18n/catalogue.js';

export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
export const MAX_TOTAL_IMAGE_BYTES = 10 * 1024 * 1024;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i;

interface ImageCandidate {
  mimeType: unknown;
  data: unknown;
  filename: unknown;
}

class ContentErrors {
  readonly issues: FieldIssue[] = [];
  key: MessageKey | undefined;
  add(key: MessageKey, path: string, message: string): void {
    this.key ??= key;
    this.issues.push({ path, message });
  }
}

export function userContentToParts(content: unknown, path: string): WirePart[] {
  const errors = new ContentErrors();
  const parts: WirePart[] = [];
  let totalImageBytes = 0;

  if (typeof content === 'string') {
    if (content.length === 0) errors.add('invalidUserContent', path, 'The user message is empty.');
    else parts.push({ text: content });
  } else if (Array.isArray(content)) {
    if (content.length === 0) errors.add('invalidUserContent', path, 'The user message is empty.');
    content.forEach((part, index) => {
      const partPath = `${path}[${index}]`;
      const image = imageCandidate(part, partPath, errors);
      if (image === 'text') {
        parts.push({ text: (part as { text: string }).text });
        return;
      }
      if (!image) return;
      const bytes = checkImage(image, partPath, errors);
      if (bytes === undefined) return;
      totalImageBytes += bytes;
      parts.push({
        data: { filename: safeFilename(image.filename) ?? `agui-image-${parts.length + 1}`, bytes: image.data as string },
        mediaType: (image.mimeType as string).toLowerCase(),
      });
    });
  } else {
    errors.add('invalidUserContent', path, 'Content must be a string or a list of parts.');
  }

  if (totalImageBytes > MAX_TOTAL_IMAGE_BYTES) {
    errors.add('imageTooLarge', path, `Images exceed ${MAX_TOTAL_IMAGE_BYTES} decoded bytes in total.`);
  }
  if (errors.key) throw new AdapterError('INVALID_INPUT', errors.key, errors.issues);
  return parts;
}

/** Classifies one content part: 'text', an image to check, or undefined after recording an error. */
function imageCandidate(part: unknown, path: string, errors: ContentErrors): ImageCandidate | 'text' | undefined {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) {
    errors.add('invalidUserContent', path, 'A content part must be an object.');
    return undefined;
  }
  const record = part as Record<string, unknown>;
  switch (record['type']) {
    case 'text':
      if (typeof record['text'] === 'string') return 'text';
      errors.add('invalidUserContent', `${path}.text`, 'Text must be a string.');
      return undefined;
    case 'image': {
      const source = record['source'] as Record<string, unknown> | undefined;
      if (source?.['type'] === 'url') {
        errors.add('remoteMediaUnsupported', `${path}.source`, 'Remote media URLs are not supported.');
        return undefined;
      }
      if (source?.['type'] !== 'data') {
        errors.add('onlyTextAndImages', `${path}.source`, 'Only inline data image sources are supported.');
        return undefined;
      }
      const metadata = record['metadata'] as Record<string, unknown> | undefined;
      return { mimeType: source['mimeType'], data: source['value'], filename: metadata?.['filename'] };
    }
    case 'binary': {
      // Legacy AG-UI part: upgraded when it carries inline data with an image mime type (docs/protocol.md §3.3).
      if (typeof record['data'] !== 'string') {
        const key = typeof record['url'] === 'string' ? 'remoteMediaUnsupported' : 'onlyTextAndImages';
        errors.add(key, path, 'A binary part must carry inline image data.');
        return undefined;
      }
      return { mimeType: record['mimeType'], data: record['data'], filename: record['filename'] };
    }
    default:
      errors.add('onlyTextAndImages', `${path}.type`, 'Only text and inline data images are supported.');
      return undefined;
  }
}

/**
 * Checks an image as far as the request alone allows and returns its decoded size, or undefined
 * after recording an error. The declared type is only a gate: whether the bytes decode, and as
 * what, is decided when the image is downsampled (lib/core/protocol/user-images.ts,
 * docs/protocol.md §3.4).
 */
function checkImage(image: ImageCandidate, path: string, errors: ContentErrors): number | undefined {
  const mime = typeof image.mimeType === 'string' ? image.mimeType.toLowerCase() : '';
  if (!(IMAGE_MIME_TYPES as readonly string[]).includes(mime)) {
    errors.add('onlyTextAndImages', path, `Image type must be one of ${IMAGE_MIME_TYPES.join(', ')}.`);
    return undefined;
  }
  const data = image.data;
  if (typeof data !== 'string' || !isStrictBase64(data)) {
    errors.add('invalidImage', path, 'Image data must be strict base64.');
    return undefined;
  }
  const size = decodedLength(data);
  if (size > MAX_IMAGE_BYTES) {
    errors.add('imageTooLarge', path, `An image may hold at most ${MAX_IMAGE_BYTES} decoded bytes.`);
    return undefined;
  }
  return size;
}

/** Padded standard base64 with no whitespace; a linear scan (a regex over megabytes overflows the stack). */
function isStrictBase64(data: string): boolean {
  if (data.length === 0 || data.length % 4 !== 0) return false;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  for (let i = 0; i < data.length - padding; i += 1) {
    const c = data.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

/**
 * The caller's filename is kept only when it is already safe as an artifact name (≤ 255 UTF-8
 * bytes, no path, no control characters, not a Windows device name); otherwise the adapter names
 * the image itself (docs/protocol.md §3.4).
 */
export function safeFilename(candidate: unknown): string | undefined {
  if (typeof candidate !== 'string' || candidate.length === 0) return undefined;
  if (new TextEncoder().encode(candidate).length > 255) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a file name must not hold
  if (/[\u0000-\u001f\u007f/\\:*?"<>|]/.test(candidate)) return undefined;
  if (candidate.startsWith('.') || candidate.endsWith('.') || candidate.trim() !== candidate) return undefined;
  if (WINDOWS_RESERVED.test(candidate.split('.')[0] ?? '')) return undefined;
  return candidate;
}

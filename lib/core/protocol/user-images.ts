/**
 * The images of a new run's user message, downsampled (docs/protocol.md §3.4): each image part is
 * replaced by the bytes to send and the type decoded from them. Called by the run route after
 * `parseRunRequest` and before admission (docs/architecture.md §2.1): the request digest stays
 * that of the request as received (docs/protocol.md §3.7), and a refused image writes nothing.
 * Every failing image is named in one INVALID_INPUT.
 */
import type { WirePart } from '../a2a/wire-types.js';
import { base64ToBytes, bytesToBase64 } from '../base64.js';
import { AdapterError, type FieldIssue } from '../errors.js';
import type { MessageKey } from '../i18n/catalogue.js';
import { type ImageCodec, ImageDecodeError } from '../ports.js';
import { downsampleImage, ImageTooLargeError } from './image-downsample.js';
import type { RunRequest } from './run-request.js';

interface ImagePart extends WirePart {
  data: { filename: string; bytes: string };
  mediaType: string;
}

/** The data parts `userContentToParts` makes from image content (lib/core/protocol/user-content.ts). */
function isImagePart(part: WirePart): part is ImagePart {
  const data = part.data as { bytes?: unknown } | undefined;
  return typeof data?.bytes === 'string' && typeof part.mediaType === 'string' && part.mediaType.startsWith('image/');
}

export async function downsampleUserImages(request: RunRequest, codec: ImageCodec): Promise<RunRequest> {
  const message = request.userMessage;
  if (!message?.parts.some(isImagePart)) return request;
  const issues: FieldIssue[] = [];
  let key: MessageKey | undefined;
  const parts: WirePart[] = [];
  // One image at a time: at most one decoded image is held in memory per request.
  for (const [index, part] of message.parts.entries()) {
    if (!isImagePart(part)) {
      parts.push(part);
      continue;
    }
    try {
      const image = await downsampleImage(base64ToBytes(part.data.bytes), codec);
      parts.push({ data: { filename: part.data.filename, bytes: image.original ? part.data.bytes : bytesToBase64(image.bytes) }, mediaType: image.mediaType });
    } catch (error) {
      if (!(error instanceof ImageDecodeError || error instanceof ImageTooLargeError)) throw error;
      key ??= error instanceof ImageTooLargeError ? 'imageTooLarge' : 'invalidImage';
      // Each content part became exactly one wire part, so the wire index is the content index.
      issues.push({ path: `${message.contentPath}[${index}]`, message: error.message });
    }
  }
  if (key) throw new AdapterError('INVALID_INPUT', key, issues);
  return { ...request, userMessage: { ...message, parts } };
}

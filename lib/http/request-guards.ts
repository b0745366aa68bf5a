/**
 * Checks every protected route makes before reading a body (SPEC §2): bearer token (scheme
 * case-insensitive, token compared in constant time), JSON content type, and a size-limited body
 * read that stops as soon as the limit is crossed, whatever Content-Length claimed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AdapterError } from '../core/errors.js';
import type { MessageKey } from '../core/i18n/catalogue.js';
import type { Secret } from '../core/secret.js';

export function checkBearer(request: Request, token: Secret | undefined): void {
  if (!token) return;
  const header = request.headers.get('authorization') ?? '';
  const space = header.indexOf(' ');
  const scheme = space < 0 ? '' : header.slice(0, space);
  const presented = space < 0 ? '' : header.slice(space + 1).trim();
  // Hashing both sides gives equal lengths, so the comparison time does not depend on the token.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const matches = timingSafeEqual(digest(presented), digest(token.reveal()));
  if (scheme.toLowerCase() !== 'bearer' || !matches) throw new AdapterError('UNAUTHORIZED', 'unauthorized');
}

export function checkJsonContentType(request: Request): void {
  const mediaType = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') throw new AdapterError('UNSUPPORTED_MEDIA_TYPE', 'unsupportedMediaType');
}

export async function readJsonBody(request: Request, limit: number, tooLarge: MessageKey): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw new AdapterError('REQUEST_TOO_LARGE', tooLarge);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        throw new AdapterError('REQUEST_TOO_LARGE', tooLarge);
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new AdapterError('INVALID_JSON', 'invalidJson');
  }
}

/**
 * Checks every protected route makes before reading a body (SPEC §2): bearer token (scheme
 * case-insensitive, token compared in constant time), JSON content type, and a size-limited body
 * read that stops as soon as the limit is crossed, whatever Content-Length claimed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AdapterError } from '../core/errors.js';
import type { MessageKey } from '../core/i18n/catalogue.js';
import type { Secret } from '../core/secret.js';
import { parseJsonBody } from './json-body.js';

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

/**
 * `application/json`, parameters allowed; a `charset` parameter must name UTF-8 (docs/protocol.md
 * §1.3): the body is always decoded as UTF-8, so another charset would be misread, not converted.
 * Charset labels are resolved as the WHATWG Encoding standard does (TextDecoder: `utf8`,
 * `unicode-1-1-utf-8`, … are UTF-8; an unknown label is not).
 */
export function checkJsonContentType(request: Request): void {
  const [mediaType, ...parameters] = (request.headers.get('content-type') ?? '').split(';');
  if (mediaType?.trim().toLowerCase() !== 'application/json') throw new AdapterError('UNSUPPORTED_MEDIA_TYPE', 'unsupportedMediaType');
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const label = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!isUtf8Label(label)) throw new AdapterError('UNSUPPORTED_MEDIA_TYPE', 'unsupportedCharset');
  }
}

function isUtf8Label(label: string): boolean {
  try {
    return new TextDecoder(label).encoding === 'utf-8';
  } catch {
    return false;
  }
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
  return parseJsonBody(bytes);
}

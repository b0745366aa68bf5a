/**
 * Checks every protected route makes before reading a body (docs/protocol.md §1.2, §1.3): bearer token (scheme
 * case-insensitive, token compared in constant time), JSON content type, and a body read within
 * its size limit and deadline (read-body.ts) that must decode as JSON — all of them at once, in
 * order, through readProtectedJson.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AdapterError } from '../core/errors.js';
import type { Secret } from '../core/secret.js';
import type { AppConfig } from './app.js';
import { parseJsonBody } from './json-body.js';
import { type BodyLimits, DEFAULT_BODY_TIMEOUT_MS, readBody } from './read-body.js';

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

/**
 * The checks every protected JSON route makes before it looks at its body, in the order of
 * docs/protocol.md §1.3 (steps 2–6): bearer, content type, the body within its size limit and the
 * body deadline, UTF-8, nesting, JSON. Returns the parsed body.
 */
export async function readProtectedJson(request: Request, config: Pick<AppConfig, 'authToken' | 'bodyTimeoutMs'>, body: Omit<BodyLimits, 'timeoutMs'>): Promise<unknown> {
  checkBearer(request, config.authToken);
  checkJsonContentType(request);
  // Depth first, then JSON.parse: the scan is linear and refuses what would make parsing or the
  // digest recurse too deep (docs/protocol.md §1.4).
  return parseJsonBody(await readBody(request, { ...body, timeoutMs: config.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS }));
}

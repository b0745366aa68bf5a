/**
 * Checks every protected route makes before reading a body (SPEC §2): bearer token (scheme
 * case-insensitive, token compared in constant time), JSON content type, and a body read within
 * its size limit and deadline (read-body.ts) that must decode as JSON.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AdapterError } from '../core/errors.js';
import type { Secret } from '../core/secret.js';
import { type BodyLimits, readBody } from './read-body.js';

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

export async function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  const bytes = await readBody(request, limits);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new AdapterError('INVALID_JSON', 'invalidJson');
  }
}

/**
 * Conditional headers, which OSS treats very differently on reads and writes (docs/architecture.md §9.3):
 * - PutObject does not implement them: If-Match, If-None-Match, If-Modified-Since or
 *   If-Unmodified-Since on a PUT is answered 400 NotImplemented naming the header (OSS EC
 *   0017-00000245) and nothing is written. This is why the OSS driver cannot do ETag
 *   compare-and-swap and builds on `x-oss-forbid-overwrite` instead.
 * - GetObject/HeadObject evaluate them in the RFC 7232 order: If-Match, If-Unmodified-Since
 *   (412 PreconditionFailed), If-None-Match, If-Modified-Since (304 Not Modified).
 */
import type { StoredObject } from './bucket-store.js';
import { ossErrors } from './errors.js';
import { header, type OssRequest } from './request.js';

const PUT_CONDITIONS = [
  ['if-modified-since', 'If-Modified-Since'],
  ['if-unmodified-since', 'If-Unmodified-Since'],
  ['if-match', 'If-Match'],
  ['if-none-match', 'If-None-Match'],
] as const;

export function rejectConditionalPut(request: OssRequest): void {
  for (const [name, display] of PUT_CONDITIONS) {
    if (header(request, name) !== undefined) throw ossErrors.conditionalPutNotImplemented(display);
  }
}

/** `"A", W/"B", *` → ['A', 'B', '*'] (quotes and weak markers stripped). */
function etagList(value: string): string[] {
  return value
    .split(',')
    .map((item) =>
      item
        .trim()
        .replace(/^W\//, '')
        .replace(/^"(.*)"$/, '$1'),
    )
    .filter((item) => item !== '');
}

function matches(value: string, object: StoredObject): boolean {
  const bare = object.etag.replace(/^"(.*)"$/, '$1');
  return etagList(value).some((item) => item === '*' || item === bare);
}

/** Whole seconds, the resolution of HTTP dates. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** Throws 412 PreconditionFailed; returns 'not-modified' for a 304; 'proceed' otherwise. */
export function evaluateReadConditions(request: OssRequest, object: StoredObject): 'proceed' | 'not-modified' {
  const modified = seconds(object.lastModified.getTime());
  const ifMatch = header(request, 'if-match');
  if (ifMatch !== undefined && !matches(ifMatch, object)) throw ossErrors.preconditionFailed('If-Match');
  const ifUnmodifiedSince = Date.parse(header(request, 'if-unmodified-since') ?? '');
  if (ifMatch === undefined && !Number.isNaN(ifUnmodifiedSince) && modified > seconds(ifUnmodifiedSince)) {
    throw ossErrors.preconditionFailed('If-Unmodified-Since');
  }
  const ifNoneMatch = header(request, 'if-none-match');
  if (ifNoneMatch !== undefined) return matches(ifNoneMatch, object) ? 'not-modified' : 'proceed';
  const ifModifiedSince = Date.parse(header(request, 'if-modified-since') ?? '');
  if (!Number.isNaN(ifModifiedSince) && modified <= seconds(ifModifiedSince)) return 'not-modified';
  return 'proceed';
}

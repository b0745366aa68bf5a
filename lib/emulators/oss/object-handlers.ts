/**
 * PutObject, GetObject, HeadObject and DeleteObject as OSS answers them (docs/architecture.md §9.3):
 * - PutObject stores the bytes and answers 200 with the quoted upper-case MD5 ETag, Content-MD5
 *   and x-oss-request-id. `x-oss-forbid-overwrite: true` on an existing key → 409
 *   FileAlreadyExists (its only atomic write condition; any value other than true/false is 400
 *   InvalidArgument, OSS EC 0017-00000279). Conditional headers → 400 NotImplemented, nothing
 *   written (lib/emulators/oss/conditional.ts). No Content-Type → application/octet-stream.
 * - GetObject/HeadObject answer 404 NoSuchKey (HEAD without a body), honour If-Match (412) and
 *   If-None-Match (304), and send Content-Type, Content-Length, ETag, Last-Modified,
 *   x-oss-object-type, x-oss-storage-class and the user's x-oss-meta-* headers.
 * - DeleteObject answers 204 whether or not the key existed (OSS DeleteObject documentation).
 */
import type { BucketStore, StoredObject } from './bucket-store.js';
import { evaluateReadConditions, rejectConditionalPut } from './conditional.js';
import { verifyContentMd5 } from './content-md5.js';
import { ossErrors } from './errors.js';
import { emptyReply, type OssReply } from './reply.js';
import { header, type OssRequest } from './request.js';

/** OSS object names: 1..1023 UTF-8 bytes, not starting with '/' or '\'. */
function checkObjectName(key: string): void {
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes === 0 || bytes > 1023 || key.startsWith('/') || key.startsWith('\\')) throw ossErrors.invalidObjectName();
}

function forbidOverwrite(request: OssRequest): boolean {
  const value = header(request, 'x-oss-forbid-overwrite');
  if (value === undefined) return false;
  const normalised = value.trim().toLowerCase();
  if (normalised !== 'true' && normalised !== 'false') {
    throw ossErrors.invalidArgument('Invalid x-oss-forbid-overwrite header value', 'x-oss-forbid-overwrite', value, '0017-00000279');
  }
  return normalised === 'true';
}

function userMetadata(request: OssRequest): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const name of Object.keys(request.headers)) {
    if (name.startsWith('x-oss-meta-')) metadata[name] = header(request, name) ?? '';
  }
  return metadata;
}

export function putObject(store: BucketStore, request: OssRequest, bucket: string): OssReply {
  checkObjectName(request.key);
  rejectConditionalPut(request);
  const createOnly = forbidOverwrite(request);
  verifyContentMd5(request);
  // Check and write happen in one synchronous step: no other request can slip in between.
  if (createOnly && store.get(bucket, request.key) !== undefined) throw ossErrors.fileAlreadyExists();
  const contentType = header(request, 'content-type') ?? 'application/octet-stream';
  const stored = store.put(bucket, request.key, request.body, contentType, userMetadata(request), request.now());
  return emptyReply(200, { ETag: stored.etag, 'Content-MD5': Buffer.from(stored.etag.slice(1, -1), 'hex').toString('base64') });
}

function objectHeaders(object: StoredObject): Record<string, string> {
  return {
    'Content-Type': object.contentType,
    'Content-Length': String(object.body.length),
    ETag: object.etag,
    'Last-Modified': object.lastModified.toUTCString(),
    'Accept-Ranges': 'bytes',
    'x-oss-object-type': 'Normal',
    'x-oss-storage-class': 'Standard',
    ...object.userMetadata,
  };
}

/** GetObject and HeadObject share everything but the body (writeReply drops it for HEAD). */
export function readObject(store: BucketStore, request: OssRequest, bucket: string): OssReply {
  const object = store.get(bucket, request.key);
  if (object === undefined) throw ossErrors.noSuchKey(request.key);
  if (header(request, 'range') !== undefined) throw ossErrors.emulatorUnsupported('Range requests');
  if (evaluateReadConditions(request, object) === 'not-modified') {
    return emptyReply(304, { ETag: object.etag, 'Last-Modified': object.lastModified.toUTCString() });
  }
  return { status: 200, headers: objectHeaders(object), body: object.body };
}

export function deleteObject(store: BucketStore, request: OssRequest, bucket: string): OssReply {
  store.delete(bucket, request.key);
  return emptyReply(204);
}

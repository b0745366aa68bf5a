/**
 * Runs one request against the buckets in OSS's order of checks: the bucket must exist
 * (404 NoSuchBucket, answered before authentication as OSS does), the request must be authentic
 * (lib/emulators/oss/authenticate.ts), then the operation itself. Throws OssError for every
 * failure; the server turns it into the XML answer.
 */
import { type AuthSettings, authenticate } from './authenticate.js';
import type { BucketStore } from './bucket-store.js';
import { deleteMultipleObjects } from './delete-multiple.js';
import { ossErrors } from './errors.js';
import { listPage, parseListParams } from './list-objects.js';
import { listObjectsXml } from './list-objects-xml.js';
import { deleteObject, putObject, readObject } from './object-handlers.js';
import type { OssOperation } from './operations.js';
import { type OssReply, xmlReply } from './reply.js';
import type { OssRequest } from './request.js';

const HTTP_METHODS = new Set(['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS']);

export function dispatch(store: BucketStore, auth: AuthSettings, request: OssRequest, operation: OssOperation): OssReply {
  if (!HTTP_METHODS.has(request.method)) throw ossErrors.methodNotAllowed();
  if (request.bucket === undefined) throw ossErrors.emulatorUnsupported('service-level operations (ListBuckets)');
  const bucket = request.bucket;
  if (!store.hasBucket(bucket)) throw ossErrors.noSuchBucket(bucket);
  authenticate(auth, request);
  switch (operation) {
    case 'PutObject':
      return putObject(store, request, bucket);
    case 'GetObject':
    case 'HeadObject':
      return readObject(store, request, bucket);
    case 'DeleteObject':
      return deleteObject(store, request, bucket);
    case 'ListObjects':
    case 'ListObjectsV2': {
      const params = parseListParams(request, operation === 'ListObjects' ? 1 : 2);
      return xmlReply(200, listObjectsXml(bucket, params, listPage(store, bucket, params)));
    }
    case 'DeleteMultipleObjects':
      return deleteMultipleObjects(store, request, bucket);
    case 'Unsupported':
      throw ossErrors.emulatorUnsupported(`${request.method} with these parameters`);
  }
}

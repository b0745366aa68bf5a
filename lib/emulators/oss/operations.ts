/**
 * Names the OSS API operation a request is, with OSS's own operation names (they key the
 * emulator's counters and fault matching). Only the subset the OSS thread-store driver needs is
 * implemented (docs/architecture.md §9.3); anything else — bucket management, ACLs, multipart, any object
 * sub-resource — is 'Unsupported' and answered 501 by the emulator rather than silently treated as
 * a plain object request.
 */
import { hasQuery, queryValue, type Target } from './request.js';
import { V1_SUB_RESOURCES } from './signature-v1.js';

export const OPERATIONS = ['PutObject', 'GetObject', 'HeadObject', 'DeleteObject', 'ListObjects', 'ListObjectsV2', 'DeleteMultipleObjects', 'Unsupported'] as const;

export type OssOperation = (typeof OPERATIONS)[number];

export function classify(method: string, target: Target): OssOperation {
  const subResources = target.query.filter((param) => V1_SUB_RESOURCES.has(param.name)).map((param) => param.name);
  if (target.bucket === undefined) return 'Unsupported';
  if (target.key === '') {
    if (method === 'GET' && queryValue(target, 'list-type') === '2') {
      return subResources.every((name) => name === 'continuation-token') ? 'ListObjectsV2' : 'Unsupported';
    }
    if (method === 'GET') return subResources.length === 0 && !hasQuery(target, 'list-type') ? 'ListObjects' : 'Unsupported';
    if (method === 'POST') return subResources.length === 1 && subResources[0] === 'delete' ? 'DeleteMultipleObjects' : 'Unsupported';
    return 'Unsupported';
  }
  if (subResources.length > 0) return 'Unsupported';
  switch (method) {
    case 'PUT':
      return 'PutObject';
    case 'GET':
      return 'GetObject';
    case 'HEAD':
      return 'HeadObject';
    case 'DELETE':
      return 'DeleteObject';
    default:
      return 'Unsupported';
  }
}

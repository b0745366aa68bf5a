/**
 * ListObjects (GetBucket) and ListObjectsV2 (GetBucketV2) paging, as OSS documents them
 * (docs/architecture.md §9.3):
 * - keys come in lexicographic order of their UTF-8 bytes, strictly after the V1 `marker`, the V2
 *   `start-after`, or the position a V2 `continuation-token` encodes (the token wins);
 * - only keys starting with `prefix`; with a `delimiter`, keys that contain it after the prefix
 *   roll up into one CommonPrefixes entry each (up to and including the delimiter);
 * - objects and common prefixes together count against `max-keys` (1..1000, default 100);
 * - a truncated page says so and names where to resume: V1 NextMarker, V2 NextContinuationToken
 *   (an opaque token; here the base64url of the last name returned).
 */
import { type BucketStore, compareUtf8, type StoredObject } from './bucket-store.js';
import { ossErrors } from './errors.js';
import { type OssRequest, queryValue } from './request.js';

export type ListEntry = { kind: 'object'; key: string; object: StoredObject } | { kind: 'prefix'; prefix: string };

export interface ListParams {
  version: 1 | 2;
  prefix: string;
  delimiter: string;
  maxKeys: number;
  /** List strictly after this name ('' = from the start). */
  after: string;
  encodeUrl: boolean;
  fetchOwner: boolean;
  /** Request values echoed in the answer. */
  marker: string;
  startAfter: string | undefined;
  continuationToken: string | undefined;
}

export interface ListPage {
  entries: ListEntry[];
  truncated: boolean;
  /** The name to resume after when truncated. */
  resumeAfter: string | undefined;
}

function parseMaxKeys(raw: string | undefined): number {
  if (raw === undefined) return 100;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 1 && value <= 1000)) throw ossErrors.invalidArgument('Argument max-keys must be an integer between 1 and 1000.', 'max-keys', raw);
  return value;
}

export function encodeContinuationToken(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url');
}

function decodeContinuationToken(token: string): string {
  const name = Buffer.from(token, 'base64url').toString('utf8');
  if (token === '' || encodeContinuationToken(name) !== token) {
    throw ossErrors.invalidArgument('The continuation token provided is incorrect.', 'continuation-token', token);
  }
  return name;
}

export function parseListParams(request: OssRequest, version: 1 | 2): ListParams {
  const encodingType = queryValue(request, 'encoding-type');
  if (encodingType !== undefined && encodingType !== 'url') throw ossErrors.invalidArgument('Invalid Encoding Method specified in Request', 'encoding-type', encodingType);
  const marker = queryValue(request, 'marker') ?? '';
  const startAfter = queryValue(request, 'start-after');
  const continuationToken = queryValue(request, 'continuation-token');
  const after = version === 1 ? marker : continuationToken !== undefined ? decodeContinuationToken(continuationToken) : (startAfter ?? '');
  return {
    version,
    prefix: queryValue(request, 'prefix') ?? '',
    delimiter: queryValue(request, 'delimiter') ?? '',
    maxKeys: parseMaxKeys(queryValue(request, 'max-keys')),
    after,
    encodeUrl: encodingType === 'url',
    fetchOwner: queryValue(request, 'fetch-owner') === 'true',
    marker,
    startAfter,
    continuationToken,
  };
}

export function entryName(entry: ListEntry): string {
  return entry.kind === 'object' ? entry.key : entry.prefix;
}

export function listPage(store: BucketStore, bucket: string, params: ListParams): ListPage {
  const entries: ListEntry[] = [];
  for (const key of store.sortedKeys(bucket)) {
    if (entries.length > params.maxKeys) break;
    if (!key.startsWith(params.prefix) || compareUtf8(key, params.after) <= 0) continue;
    const cut = params.delimiter === '' ? -1 : key.indexOf(params.delimiter, params.prefix.length);
    if (cut !== -1) {
      const prefix = key.slice(0, cut + params.delimiter.length);
      const last = entries.at(-1);
      // Skip a prefix already returned on this page, or named by the marker (a previous page's end).
      if ((last?.kind === 'prefix' && last.prefix === prefix) || compareUtf8(prefix, params.after) <= 0) continue;
      entries.push({ kind: 'prefix', prefix });
      continue;
    }
    const object = store.get(bucket, key);
    if (object !== undefined) entries.push({ kind: 'object', key, object });
  }
  const truncated = entries.length > params.maxKeys;
  const page = entries.slice(0, params.maxKeys);
  const lastEntry = page.at(-1);
  return { entries: page, truncated, resumeAfter: truncated && lastEntry !== undefined ? entryName(lastEntry) : undefined };
}

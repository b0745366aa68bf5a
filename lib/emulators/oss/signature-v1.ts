/**
 * OSS signature V1 (`Authorization: OSS <AccessKeyId>:<Signature>`), recomputed from the request
 * as received, so a mis-signing client fails here as it would on real OSS (docs/architecture.md §9.3).
 *
 *   Signature = base64(HMAC-SHA1(secret, VERB \n Content-MD5 \n Content-Type \n Date \n
 *                                CanonicalizedOSSHeaders CanonicalizedResource))
 *
 * Facts (OSS "Include a V1 signature in the Authorization header"; ali-oss 6.23
 * lib/common/signUtils.js buildCanonicalString, which real OSS accepts):
 * - Date: ali-oss sends no Date header, only `x-oss-date` (RFC 1123), and signs that value in the
 *   Date line; so x-oss-date is used when present, otherwise Date.
 * - CanonicalizedOSSHeaders: every `x-oss-*` header, lower-cased, value trimmed, sorted, `k:v\n`.
 * - CanonicalizedResource: `/<bucket>/<key>` with the key *decoded* (UTF-8, not URL-encoded),
 *   `/<bucket>/` for bucket-level requests, then only the *sub-resources* from the query, sorted,
 *   `name` or `name=value` (decoded). Ordinary parameters such as prefix, marker, max-keys and
 *   list-type are not signed. The sub-resource list is the one the official OSS SDKs sign
 *   (aliyun-oss-go-sdk oss/conn.go signKeyList; ali-oss puts continuation-token among them).
 */
import { createHmac } from 'node:crypto';
import { header, type OssRequest } from './request.js';

export const V1_SUB_RESOURCES: ReadonlySet<string> = new Set([
  'acl',
  'uploads',
  'location',
  'cors',
  'logging',
  'website',
  'referer',
  'lifecycle',
  'delete',
  'append',
  'tagging',
  'objectMeta',
  'uploadId',
  'partNumber',
  'security-token',
  'position',
  'img',
  'style',
  'styleName',
  'replication',
  'replicationProgress',
  'replicationLocation',
  'cname',
  'bucketInfo',
  'comp',
  'qos',
  'live',
  'status',
  'vod',
  'startTime',
  'endTime',
  'symlink',
  'x-oss-process',
  'response-content-type',
  'x-oss-traffic-limit',
  'response-content-language',
  'response-expires',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
  'udf',
  'udfName',
  'udfImage',
  'udfId',
  'udfImageDesc',
  'udfApplication',
  'udfApplicationLog',
  'restore',
  'callback',
  'callback-var',
  'qosInfo',
  'policy',
  'stat',
  'encryption',
  'versions',
  'versioning',
  'versionId',
  'requestPayment',
  'x-oss-request-payer',
  'sequential',
  'inventory',
  'inventoryId',
  'continuation-token',
  'asyncFetch',
  'worm',
  'wormId',
  'wormExtend',
  'withHashContext',
  'x-oss-enable-md5',
  'x-oss-enable-sha1',
  'x-oss-enable-sha256',
  'x-oss-hash-ctx',
  'x-oss-md5-ctx',
  'transferAcceleration',
  'regionList',
  'cloudboxes',
  'x-oss-ac-source-ip',
  'x-oss-ac-subnet-mask',
  'x-oss-ac-vpc-id',
  'x-oss-ac-forward-allow',
  'metaQuery',
  'resourceGroup',
  'rtc',
]);

export interface V1Authorization {
  accessKeyId: string;
  signature: string;
}

/** `OSS <ak>:<sig>`; undefined when the header is not a V1 authorization. */
export function parseV1Authorization(value: string): V1Authorization | undefined {
  const match = /^OSS ([^:\s]+):(\S+)$/.exec(value.trim());
  return match ? { accessKeyId: match[1] ?? '', signature: match[2] ?? '' } : undefined;
}

function canonicalizedOssHeaders(request: OssRequest): string {
  return Object.keys(request.headers)
    .filter((name) => name.startsWith('x-oss-'))
    .sort()
    .map((name) => `${name}:${(header(request, name) ?? '').trim()}\n`)
    .join('');
}

function canonicalizedResource(request: OssRequest): string {
  const path = `/${request.bucket ?? ''}${request.bucket === undefined ? '' : '/'}${request.key}`;
  const subResources = request.query
    .filter((param) => V1_SUB_RESOURCES.has(param.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((param) => (param.value === '' ? param.name : `${param.name}=${param.value}`));
  return subResources.length === 0 ? path : `${path}?${subResources.join('&')}`;
}

/** The date the client signed: x-oss-date when present (what ali-oss signs), else Date. */
export function v1SignedDate(request: OssRequest): string | undefined {
  return header(request, 'x-oss-date') ?? header(request, 'date');
}

export function v1StringToSign(request: OssRequest): string {
  return [
    request.method,
    header(request, 'content-md5') ?? '',
    header(request, 'content-type') ?? '',
    v1SignedDate(request) ?? '',
    `${canonicalizedOssHeaders(request)}${canonicalizedResource(request)}`,
  ].join('\n');
}

export function v1Signature(accessKeySecret: string, stringToSign: string): string {
  return createHmac('sha1', accessKeySecret).update(stringToSign, 'utf8').digest('base64');
}

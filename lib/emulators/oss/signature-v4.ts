/**
 * OSS signature V4 (`Authorization: OSS4-HMAC-SHA256 Credential=<ak>/<yyyymmdd>/<region>/oss/
 * aliyun_v4_request[,AdditionalHeaders=<h1;h2>],Signature=<hex>`), recomputed from the request as
 * received (docs/architecture.md §9.3).
 *
 * Facts (OSS "Include a V4 signature in the Authorization header"; ali-oss 6.23
 * lib/common/signUtils.js getCanonicalRequest/authorizationV4; alibabacloud-oss-go-sdk-v2
 * signer/v4.go getCanonicalQuery):
 *   CanonicalRequest = VERB \n CanonicalURI \n CanonicalQuery \n CanonicalHeaders \n
 *                      AdditionalHeaders \n x-oss-content-sha256 (UNSIGNED-PAYLOAD)
 * - CanonicalURI is `/<bucket>/<key>` — with the bucket even for virtual-host requests — each
 *   character RFC 3986-encoded except '/'.
 * - CanonicalQuery is *every* query parameter (unlike V1), names and values RFC 3986-encoded,
 *   sorted by name, and a parameter with an empty value appears as its bare name (`delete`, not
 *   `delete=`).
 * - CanonicalHeaders: content-type, content-md5, every x-oss-* header and the AdditionalHeaders,
 *   lower-cased, values trimmed, sorted, `k:v\n` each.
 * - StringToSign = "OSS4-HMAC-SHA256" \n x-oss-date \n <date>/<region>/oss/aliyun_v4_request \n
 *   hex(SHA-256(CanonicalRequest)); the key is HMAC-SHA256 chained over "aliyun_v4"+secret, date,
 *   region, "oss", "aliyun_v4_request"; the signature is lower-case hex.
 */
import { createHash, createHmac } from 'node:crypto';
import { header, type OssRequest } from './request.js';

export const V4_ALGORITHM = 'OSS4-HMAC-SHA256';

export interface V4Authorization {
  accessKeyId: string;
  /** yyyymmdd from the credential scope. */
  date: string;
  region: string;
  product: string;
  terminator: string;
  additionalHeaders: string[];
  signature: string;
}

/** Parses the V4 Authorization value; throws a short reason when it is malformed. */
export function parseV4Authorization(value: string): V4Authorization {
  const fields = new Map<string, string>();
  for (const part of value.trim().slice(V4_ALGORITHM.length).split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) throw new Error('Authorization header fields must be key=value pairs.');
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential');
  const signature = fields.get('Signature');
  if (!credential || !signature) throw new Error('Authorization header requires Credential and Signature.');
  const scope = credential.split('/');
  if (scope.length !== 5) throw new Error('Credential must be <AccessKeyId>/<SignDate>/<Region>/oss/aliyun_v4_request.');
  const [accessKeyId = '', date = '', region = '', product = '', terminator = ''] = scope;
  const additional = fields.get('AdditionalHeaders');
  if (additional?.split(';').some((name) => name === '')) {
    throw new Error('AdditionalHeaders must not contain empty header names.');
  }
  return { accessKeyId, date, region, product, terminator, additionalHeaders: additional === undefined ? [] : additional.split(';'), signature };
}

/** encodeURIComponent plus the RFC 3986 reserved characters it leaves alone. */
export function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function canonicalUri(request: OssRequest): string {
  const path = request.bucket === undefined ? '/' : `/${request.bucket}/${request.key}`;
  return rfc3986(path).replace(/%2F/g, '/');
}

function canonicalQuery(request: OssRequest): string {
  return request.query
    .map((param) => ({ name: rfc3986(param.name), value: rfc3986(param.value) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .map((param) => (param.value === '' ? param.name : `${param.name}=${param.value}`))
    .join('&');
}

function canonicalHeaders(request: OssRequest, additionalHeaders: readonly string[]): string {
  const names = new Set(additionalHeaders.map((name) => name.toLowerCase()));
  for (const name of Object.keys(request.headers)) {
    if (name === 'content-type' || name === 'content-md5' || name.startsWith('x-oss-')) names.add(name);
  }
  return [...names]
    .sort()
    .map((name) => `${name}:${(header(request, name) ?? '').trim()}\n`)
    .join('');
}

export function v4CanonicalRequest(request: OssRequest, auth: V4Authorization): string {
  return [
    request.method,
    canonicalUri(request),
    canonicalQuery(request),
    canonicalHeaders(request, auth.additionalHeaders),
    auth.additionalHeaders.join(';'),
    header(request, 'x-oss-content-sha256') ?? 'UNSIGNED-PAYLOAD',
  ].join('\n');
}

export function v4StringToSign(timestamp: string, auth: V4Authorization, canonicalRequest: string): string {
  const scope = `${auth.date}/${auth.region}/${auth.product}/${auth.terminator}`;
  return [V4_ALGORITHM, timestamp, scope, createHash('sha256').update(canonicalRequest, 'utf8').digest('hex')].join('\n');
}

export function v4Signature(accessKeySecret: string, auth: V4Authorization, stringToSign: string): string {
  const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
  const signingKey = hmac(hmac(hmac(hmac(`aliyun_v4${accessKeySecret}`, auth.date), auth.region), auth.product), auth.terminator);
  return createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
}

/**
 * Alibaba Cloud API signature V3 (`ACS3-HMAC-SHA256`), recomputed from the request as received.
 * FC 3.0's control plane signs this way (FC 3.0 "Signature mechanism": ROA-style APIs, V3), and
 * @alicloud/fc20230330 4.7 signs this way by default (@alicloud/openapi-core 1.0 `doRequest` →
 * `Utils.getAuthorization`, signatureAlgorithm defaulting to "ACS3-HMAC-SHA256").
 *
 * Facts (Alibaba Cloud SDK "V3 request structure and signature"; openapi-core dist/utils.js):
 *   Authorization: ACS3-HMAC-SHA256 Credential=<AccessKeyId>,SignedHeaders=<h1;h2;…>,Signature=<hex>
 *   CanonicalRequest = METHOD \n CanonicalURI \n CanonicalQueryString \n CanonicalHeaders \n
 *                      SignedHeaders \n HashedRequestPayload
 * - CanonicalURI: the path as sent (already percent-encoded), with `+`→%20, `*`→%2A, %7E→`~`.
 * - CanonicalQueryString: parameters sorted by name, `name=value`, values RFC 3986-encoded, `&`-joined.
 * - CanonicalHeaders: each signed header, lower-cased, `name:trimmed value\n`, sorted by name.
 *   The signed set must include host, content-type when present and every x-acs-* header.
 * - HashedRequestPayload = x-acs-content-sha256 = hex(SHA-256(body)) (of "" for GET).
 * - StringToSign = "ACS3-HMAC-SHA256" \n hex(SHA-256(CanonicalRequest));
 *   Signature = hex(HMAC-SHA256(AccessKeySecret, StringToSign)).
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const ACS3_ALGORITHM = 'ACS3-HMAC-SHA256';

export interface Acs3Authorization {
  accessKeyId: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses the Authorization value; throws a short reason when it is malformed. */
export function parseAcs3Authorization(value: string): Acs3Authorization {
  const trimmed = value.trim();
  if (!trimmed.startsWith(`${ACS3_ALGORITHM} `)) throw new Error(`Authorization must use ${ACS3_ALGORITHM}.`);
  const fields = new Map<string, string>();
  for (const part of trimmed.slice(ACS3_ALGORITHM.length).split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) throw new Error('Authorization fields must be key=value pairs.');
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const accessKeyId = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!accessKeyId || !signedHeaders || !signature) throw new Error('Authorization requires Credential, SignedHeaders and Signature.');
  return { accessKeyId, signedHeaders: signedHeaders.split(';'), signature };
}

/** encodeURIComponent plus the RFC 3986 reserved characters it leaves alone. */
function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decodeQueryPart(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '));
}

export function canonicalUri(rawPath: string): string {
  return rawPath.replace(/\+/g, '%20').replace(/\*/g, '%2A').replace(/%7E/g, '~');
}

export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return '';
  return rawQuery
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeQueryPart(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decodeQueryPart(pair.slice(eq + 1));
      return { name: rfc3986(name), value: rfc3986(value) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((param) => `${param.name}=${param.value}`)
    .join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim();
}

export function acs3CanonicalRequest(method: string, rawPath: string, rawQuery: string, headers: IncomingHttpHeaders, auth: Acs3Authorization): string {
  const signed = [...auth.signedHeaders].map((name) => name.toLowerCase()).sort();
  return [
    method,
    canonicalUri(rawPath),
    canonicalQuery(rawQuery),
    signed.map((name) => `${name}:${headerValue(headers, name)}\n`).join(''),
    signed.join(';'),
    headerValue(headers, 'x-acs-content-sha256'),
  ].join('\n');
}

export function acs3StringToSign(canonicalRequest: string): string {
  return `${ACS3_ALGORITHM}\n${createHash('sha256').update(canonicalRequest, 'utf8').digest('hex')}`;
}

export function acs3Signature(accessKeySecret: string, stringToSign: string): string {
  return createHmac('sha256', accessKeySecret).update(stringToSign, 'utf8').digest('hex');
}

export function sha256Hex(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

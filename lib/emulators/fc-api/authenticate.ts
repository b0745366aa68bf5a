/**
 * Request authentication as FC 3.0's API gateway does it for a V3-signed request (see
 * acs3-signature.ts for the algorithm and its sources): the common headers must be present and
 * signed, x-acs-content-sha256 must be the body's hash, x-acs-date within 15 minutes, the
 * AccessKeyId known, an STS credential must come with its token (`x-acs-security-token`, sent by
 * openapi-core together with `x-acs-accesskey-id`), and the signature must recompute. Errors are
 * FC's (errors.ts). Afterwards the credential's allowed actions decide (AccessDenied otherwise).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { acs3CanonicalRequest, acs3Signature, acs3StringToSign, parseAcs3Authorization, sha256Hex } from './acs3-signature.js';
import { fcApiErrors } from './errors.js';

export interface FcApiCredential {
  accessKeyId: string;
  accessKeySecret: string;
  /** When set, requests with this AccessKeyId must carry it as `x-acs-security-token` (STS). */
  securityToken?: string;
  /** FC actions this identity may call (e.g. ['GetFunction']); all when unset. */
  allowedActions?: readonly string[];
}

export interface SignedRequest {
  method: string;
  rawPath: string;
  rawQuery: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const MAX_SKEW_MS = 15 * 60 * 1000;
/** The common request headers of a V3 request (V3 signature doc, "RequestHeader"). */
const REQUIRED_HEADERS = ['host', 'x-acs-action', 'x-acs-version', 'x-acs-date', 'x-acs-signature-nonce', 'x-acs-content-sha256'] as const;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `2026-01-02T03:04:05Z` → epoch ms (NaN when malformed). */
function parseAcsDate(value: string): number {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(value) ? Date.parse(value) : Number.NaN;
}

/** Every header that must be signed: host, content-type when present, every x-acs-* header. */
function mustBeSigned(headers: IncomingHttpHeaders): string[] {
  return Object.keys(headers).filter((name) => name === 'host' || name === 'content-type' || name.startsWith('x-acs-'));
}

/** Throws the FcApiError FC would answer; returns the credential when the request is authentic. */
export function authenticate(credentials: readonly FcApiCredential[], request: SignedRequest): FcApiCredential {
  const authorization = single(request.headers, 'authorization');
  if (authorization === undefined || authorization.trim() === '') throw fcApiErrors.missingHeader('Authorization');
  let auth: ReturnType<typeof parseAcs3Authorization>;
  try {
    auth = parseAcs3Authorization(authorization);
  } catch (error) {
    throw fcApiErrors.invalidArgument((error as Error).message);
  }
  for (const name of REQUIRED_HEADERS) {
    if (single(request.headers, name) === undefined) throw fcApiErrors.missingHeader(name);
  }
  const signed = new Set(auth.signedHeaders.map((name) => name.toLowerCase()));
  for (const name of mustBeSigned(request.headers)) {
    if (!signed.has(name)) throw fcApiErrors.invalidArgument(`header ${name} must be listed in SignedHeaders`);
  }
  if (single(request.headers, 'x-acs-content-sha256') !== sha256Hex(request.body)) throw fcApiErrors.invalidArgument('x-acs-content-sha256 does not match the request body');
  const date = parseAcsDate(single(request.headers, 'x-acs-date') ?? '');
  if (Number.isNaN(date)) throw fcApiErrors.invalidArgument('x-acs-date must be an ISO 8601 UTC time such as 2026-01-02T03:04:05Z');
  if (Math.abs(Date.now() - date) > MAX_SKEW_MS) throw fcApiErrors.requestTimeTooSkewed();

  const credential = credentials.find((candidate) => candidate.accessKeyId === auth.accessKeyId);
  if (credential === undefined) throw fcApiErrors.invalidAccessKeyId(auth.accessKeyId);
  const token = single(request.headers, 'x-acs-security-token');
  if (credential.securityToken !== undefined || token !== undefined) {
    if (token === undefined || credential.securityToken === undefined || !sameText(token, credential.securityToken)) throw fcApiErrors.invalidSecurityToken();
    if (single(request.headers, 'x-acs-accesskey-id') !== auth.accessKeyId) throw fcApiErrors.invalidArgument('x-acs-accesskey-id must name the Credential of an STS request');
  }

  const canonicalRequest = acs3CanonicalRequest(request.method, request.rawPath, request.rawQuery, request.headers, auth);
  if (!sameText(acs3Signature(credential.accessKeySecret, acs3StringToSign(canonicalRequest)), auth.signature)) throw fcApiErrors.signatureNotMatch();
  return credential;
}

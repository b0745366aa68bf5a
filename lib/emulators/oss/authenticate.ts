/**
 * Request authentication as OSS does it for a private bucket (docs/architecture.md §9.3):
 * anonymous → 403 AccessDenied; unknown AccessKeyId → 403 InvalidAccessKeyId; STS credentials
 * without the matching `x-oss-security-token` → 403 (InvalidAccessKeyId when the token is missing,
 * OSS EC 0002-00000003; InvalidSecurityToken when it is wrong, EC 0002-00000006; past the
 * credential's `expiresAt`, SecurityTokenExpired, EC 0002-00000007); a request time
 * more than 15 minutes away → 403 RequestTimeTooSkewed; a signature that does not recompute →
 * 403 SignatureDoesNotMatch, whose body carries the server-side StringToSign (and, for V4, the
 * CanonicalRequest) as real OSS does, so a mis-signing driver can see what differs.
 */
import { timingSafeEqual } from 'node:crypto';
import { ossErrors } from './errors.js';
import { header, type OssRequest } from './request.js';
import type { OssCredential } from './server.js';
import { parseV1Authorization, v1Signature, v1SignedDate, v1StringToSign } from './signature-v1.js';
import { parseV4Authorization, V4_ALGORITHM, v4CanonicalRequest, v4Signature, v4StringToSign } from './signature-v4.js';

const MAX_SKEW_MS = 15 * 60 * 1000;

export interface AuthSettings {
  credentials: readonly OssCredential[];
  /** Standard region id (`cn-hangzhou`); V4 scopes must name it. */
  region: string;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function findCredential(settings: AuthSettings, request: OssRequest, accessKeyId: string): OssCredential {
  const credential = settings.credentials.find((candidate) => candidate.accessKeyId === accessKeyId);
  if (credential === undefined) throw ossErrors.invalidAccessKeyId(accessKeyId);
  const token = header(request, 'x-oss-security-token');
  if (credential.securityToken !== undefined && token === undefined) throw ossErrors.invalidAccessKeyId(accessKeyId, '0002-00000003');
  if (token !== undefined && token !== credential.securityToken) throw ossErrors.invalidSecurityToken();
  if (credential.expiresAt !== undefined && Date.now() >= credential.expiresAt) throw ossErrors.securityTokenExpired();
  return credential;
}

function checkSkew(requestTimeMs: number): void {
  if (Number.isNaN(requestTimeMs)) throw ossErrors.accessDenied('The request date is missing or not a valid HTTP date.');
  if (Math.abs(Date.now() - requestTimeMs) > MAX_SKEW_MS) throw ossErrors.requestTimeTooSkewed();
}

/** `20261130T153307Z` → epoch ms (NaN when malformed). */
function parseIsoBasic(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) : Number.NaN;
}

function authenticateV1(settings: AuthSettings, request: OssRequest, authorization: string): void {
  const parsed = parseV1Authorization(authorization);
  if (parsed === undefined) throw ossErrors.invalidArgument('Authorization header is invalid.', 'Authorization', authorization);
  const credential = findCredential(settings, request, parsed.accessKeyId);
  checkSkew(Date.parse(v1SignedDate(request) ?? ''));
  const stringToSign = v1StringToSign(request);
  if (!sameText(v1Signature(credential.accessKeySecret, stringToSign), parsed.signature)) {
    throw ossErrors.signatureDoesNotMatch([
      ['StringToSign', stringToSign],
      ['SignatureProvided', parsed.signature],
      ['OSSAccessKeyId', parsed.accessKeyId],
    ]);
  }
}

function authenticateV4(settings: AuthSettings, request: OssRequest, authorization: string): void {
  let auth: ReturnType<typeof parseV4Authorization>;
  try {
    auth = parseV4Authorization(authorization);
  } catch (error) {
    throw ossErrors.invalidArgument((error as Error).message, 'Authorization', authorization);
  }
  if (auth.product !== 'oss' || auth.terminator !== 'aliyun_v4_request') {
    throw ossErrors.invalidArgument('Credential must end with /oss/aliyun_v4_request.', 'Authorization', authorization);
  }
  if (auth.region !== settings.region) throw ossErrors.invalidArgument('Invalid signing region in Authorization header.', 'Authorization', authorization);
  for (const name of auth.additionalHeaders) {
    if (header(request, name.toLowerCase()) === undefined) throw ossErrors.invalidArgument(`AdditionalHeaders names ${name}, which the request lacks.`);
  }
  const credential = findCredential(settings, request, auth.accessKeyId);
  const timestamp = header(request, 'x-oss-date');
  if (timestamp === undefined) throw ossErrors.accessDenied('A V4-signed request must carry x-oss-date.');
  checkSkew(parseIsoBasic(timestamp));
  if (!timestamp.startsWith(auth.date)) throw ossErrors.invalidArgument('Invalid signing date in Authorization header.', 'Authorization', authorization);
  if (header(request, 'x-oss-content-sha256') === undefined) throw ossErrors.invalidArgument('A V4-signed request must carry x-oss-content-sha256.');
  const canonicalRequest = v4CanonicalRequest(request, auth);
  const stringToSign = v4StringToSign(timestamp, auth, canonicalRequest);
  if (!sameText(v4Signature(credential.accessKeySecret, auth, stringToSign), auth.signature)) {
    throw ossErrors.signatureDoesNotMatch([
      ['CanonicalRequest', canonicalRequest],
      ['StringToSign', stringToSign],
      ['SignatureProvided', auth.signature],
      ['OSSAccessKeyId', auth.accessKeyId],
    ]);
  }
}

/** Throws the OssError OSS would answer; returns normally when the request is authentic. */
export function authenticate(settings: AuthSettings, request: OssRequest): void {
  const authorization = header(request, 'authorization');
  if (authorization === undefined || authorization.trim() === '') throw ossErrors.anonymousDenied();
  if (authorization.startsWith(`${V4_ALGORITHM} `)) authenticateV4(settings, request, authorization);
  else if (authorization.startsWith('OSS ')) authenticateV1(settings, request, authorization);
  else throw ossErrors.invalidArgument('Authorization header is invalid.', 'Authorization', authorization);
}

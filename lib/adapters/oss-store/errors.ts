/**
 * What an ali-oss failure means to the driver (docs/state-store.md "Errors"). ali-oss throws plain
 * Errors carrying `status`, `code`, `name` and `requestId`; the driver only ever sees the sanitized
 * OssRequestError below, which keeps those and drops everything else (ali-oss attaches the request
 * parameters to some errors — never let them near a log or an error message).
 *
 * - `notFound`   404 NoSuchKey.
 * - `exists`     409 FileAlreadyExists: the create-only write met an existing object.
 * - `transient`  5xx, 429, a dropped or reset connection (ali-oss status −1), a timeout (−2,
 *                ResponseTimeoutError, ConnectionTimeoutError): the request may or may not have been
 *                applied; worth retrying.
 * - `rejected`   every other answer (403 AccessDenied / InvalidAccessKeyId / SignatureDoesNotMatch /
 *                SecurityTokenExpired, 400, 404 NoSuchBucket…): retrying with the same credentials
 *                cannot help.
 */
export type OssFailureKind = 'notFound' | 'exists' | 'transient' | 'rejected';

export type OssOperationName = 'PutObject' | 'GetObject' | 'ListObjectsV2' | 'DeleteObject' | 'DeleteMultipleObjects';

export class OssRequestError extends Error {
  constructor(
    readonly operation: OssOperationName,
    readonly kind: OssFailureKind,
    readonly status: number | undefined,
    readonly code: string | undefined,
    readonly requestId: string | undefined,
  ) {
    super(`OSS ${operation} failed: ${describe(status, code)}`);
    this.name = 'OssRequestError';
  }
}

function describe(status: number | undefined, code: string | undefined): string {
  return [status === undefined ? 'no answer' : status < 0 ? 'network error or timeout' : `HTTP ${status}`, code].filter(Boolean).join(' ');
}

/** Only short identifier-like codes are kept (a code is echoed from the wire). */
function safeCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(value) ? value : undefined;
}

export function classifyOssFailure(operation: OssOperationName, error: unknown): OssRequestError {
  if (error instanceof OssRequestError) return error;
  const raw = (error ?? {}) as { status?: unknown; code?: unknown; name?: unknown; requestId?: unknown };
  const status = typeof raw.status === 'number' ? raw.status : undefined;
  const code = safeCode(raw.code) ?? safeCode(raw.name);
  const requestId = typeof raw.requestId === 'string' && /^[0-9A-Za-z-]{1,64}$/.test(raw.requestId) ? raw.requestId : undefined;
  const name = typeof raw.name === 'string' ? raw.name : '';
  let kind: OssFailureKind;
  if (status === 404 && raw.code === 'NoSuchKey') kind = 'notFound';
  else if (status === 409 && raw.code === 'FileAlreadyExists') kind = 'exists';
  else if (status === undefined || status < 0 || status >= 500 || status === 429 || /Timeout/.test(name)) kind = 'transient';
  else kind = 'rejected';
  return new OssRequestError(operation, kind, status, code, requestId);
}

/**
 * OSS's answers for credentials it no longer accepts (docs/protocol.md §1.7): an expired STS token
 * (SecurityTokenExpired, EC 0002-00000007), a token OSS does not recognise or that belongs to
 * another key, an AccessKey that does not exist or is disabled. Not AccessDenied (the credentials
 * work; the role's policy refuses) nor SignatureDoesNotMatch (a signing fault as much as a key).
 */
const CREDENTIAL_REFUSALS = new Set(['SecurityTokenExpired', 'InvalidSecurityToken', 'AccessKeyIdAndSecurityTokenNotMatch', 'InvalidAccessKeyId']);

export function isCredentialRefusal(error: unknown): error is OssRequestError {
  return error instanceof OssRequestError && error.kind === 'rejected' && error.code !== undefined && CREDENTIAL_REFUSALS.has(error.code);
}

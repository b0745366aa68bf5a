/** Error code → HTTP status for answers before the stream (docs/protocol.md §2.3). Kept in the transport layer. */
import type { ErrorCode } from '../core/errors.js';

const STATUS: Partial<Record<ErrorCode, number>> = {
  UNAUTHORIZED: 401,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_TOO_LARGE: 413,
  INVALID_JSON: 400,
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  DUPLICATE_RUN_ID: 409,
  RUN_ID_CONFLICT: 409,
  THREAD_BUSY: 409,
  THREAD_BINDING_CONFLICT: 409,
  RESUME_REQUIRED: 409,
  EXECUTION_LOST: 409,
  STATE_UNAVAILABLE: 503,
  EXECUTION_NOT_FOUND: 404,
  OBSERVATION_IDENTITY_CHANGED: 409,
  EVENT_ID_MISMATCH: 409,
  EVENT_ID_EXPIRED: 409,
  REQUEST_TIMEOUT: 408,
  SERVER_BUSY: 503,
  IDENTITY_PROVIDER_UNAVAILABLE: 503,
  // Before a stream only where a read needs the kernel's answer: a thread's conversation (§6.16).
  A2A_UNAVAILABLE: 502,
};

export function httpStatusFor(code: ErrorCode): number {
  return STATUS[code] ?? 500;
}

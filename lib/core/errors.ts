/**
 * One error family for everything the adapter itself reports (docs/protocol.md §2.1).
 *
 * The error carries a stable `code` and a message *key* into the i18n catalogue, never a
 * translated string: the HTTP layer (before the stream) or the run (as RUN_ERROR) translates it
 * into the request's language. The code → HTTP status table lives in lib/http, not here
 * (a2a-js style: transport concerns stay in the transport).
 */
import type { MessageKey } from './i18n/catalogue.js';

export const ERROR_CODES = [
  'UNAUTHORIZED',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_TOO_LARGE',
  'INVALID_JSON',
  'INVALID_INPUT',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'DUPLICATE_RUN_ID',
  'RUN_ID_CONFLICT',
  'THREAD_BUSY',
  'THREAD_BINDING_CONFLICT',
  'RESUME_REQUIRED',
  'EXECUTION_LOST',
  'STATE_UNAVAILABLE',
  'EXECUTION_NOT_FOUND',
  'OBSERVATION_IDENTITY_CHANGED',
  'EVENT_ID_MISMATCH',
  'EVENT_ID_EXPIRED',
  'INCOMPLETE_RESUME',
  'UNKNOWN_INTERRUPT',
  'RESUME_PAYLOAD_INVALID',
  'RESUME_ALREADY_APPLIED',
  'STATE_PERSISTENCE_FAILED',
  'A2A_UNAVAILABLE',
  'A2A_PROTOCOL_ERROR',
  'A2A_EXECUTION_FAILED',
  'CANCELLED',
  'SESSION_BACKUP_NOT_READY',
  'REQUEST_TIMEOUT',
  'SERVER_BUSY',
  'IDENTITY_PROVIDER_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One failing field of an INVALID_INPUT answer (docs/protocol.md §2.2). */
export interface FieldIssue {
  path: string;
  message: string;
}

/**
 * Who holds a busy thread (`THREAD_BUSY`'s details, docs/protocol.md §2.2): the run to reattach to
 * (subscribe) or to stop (cancel), whether its caller is still reading it, and — for a detached one —
 * until when it is kept for a reader to come back before it is cancelled.
 */
export interface ThreadHolder {
  executionId: string;
  runId: string;
  state: 'live' | 'detached';
  /** Epoch milliseconds; only on a detached run. */
  detachedUntil?: number;
}

export class AdapterError extends Error {
  readonly code: ErrorCode;
  readonly messageKey: MessageKey;
  /** INVALID_INPUT: every failing field; THREAD_BUSY: the run holding the thread. */
  readonly details: FieldIssue[] | ThreadHolder | undefined;
  /** A stable name for why, answered beside the message (`error.reason`): a refused token's (docs/protocol.md §1.2). */
  readonly reason: string | undefined;

  constructor(code: ErrorCode, messageKey: MessageKey, details?: FieldIssue[] | ThreadHolder, options?: { cause?: unknown; reason?: string }) {
    super(`${code}: ${messageKey}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AdapterError';
    this.code = code;
    this.messageKey = messageKey;
    this.details = Array.isArray(details) && details.length === 0 ? undefined : details;
    this.reason = options?.reason;
  }
}

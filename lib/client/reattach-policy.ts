/**
 * When a reader (the console, IacCodeAgent) reattaches to a run whose stream was lost — a dropped
 * connection, or a reload (docs/protocol.md §6.14) — and when it stops (the loop is reattach.ts;
 * this file is pure, so it is unit-tested without a browser):
 *
 * - a network failure, a stream that ends without its terminal event, a 5xx, or an observation
 *   that ends `RUN_ERROR A2A_UNAVAILABLE` ("subscribe again": the adapter's instance shut down, the
 *   kernel's subscription broke) → try again after a backoff that doubles from BASE_DELAY_MS up to
 *   MAX_DELAY_MS, at most `maxAttempts` times in a row; an attempt that brought something new
 *   starts the count again;
 * - 409 EVENT_ID_EXPIRED / EVENT_ID_MISMATCH, or 400 for the id → the adapter no longer holds what
 *   follows the last event shown (or never did: a store without a journal): followed again at
 *   once without the id (§6.15) — `eventIdRefused` — when the reader can show the run again from
 *   its start (the console); a reader that promised each event once ends there instead;
 * - 404 EXECUTION_NOT_FOUND → gone: the run ended long ago, or — with no detach grace configured —
 *   was cancelled when its caller left with no answer owed (§6.8): there is nothing to catch up on;
 * - 409 OBSERVATION_IDENTITY_CHANGED → replaced: another execution started on the thread;
 * - 401 → the token; any other answer → failed, as the adapter said it.
 */
import { type EventRecord, str } from './event-record.js';
import { type Failure, failureOf } from './failures.js';

export const BASE_DELAY_MS = 500;
export const MAX_DELAY_MS = 8_000;
export const MAX_ATTEMPTS = 8;

export type ReattachEnd =
  | { kind: 'terminal'; terminal: EventRecord }
  | { kind: 'gone' | 'replaced' | 'unauthorized' | 'failed' | 'exhausted'; failure: Failure }
  | { kind: 'aborted' };

export function backoffMs(attempt: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
}

export type Attempt = { retry: true; failure: Failure; heldBack?: EventRecord } | { retry: false; end: ReattachEnd };

/** What one observation's result means (pure: the table at the top of this file). */
export function judgeAttempt(terminal: EventRecord | undefined, thrown: unknown, aborted: boolean): Attempt {
  if (aborted) return { retry: false, end: { kind: 'aborted' } };
  if (terminal) {
    if (terminal.type === 'RUN_ERROR' && str(terminal, 'code') === 'A2A_UNAVAILABLE') {
      return { retry: true, failure: { kind: 'run', code: 'A2A_UNAVAILABLE', message: str(terminal, 'message') ?? 'The kernel is unavailable.', details: [] }, heldBack: terminal };
    }
    return { retry: false, end: { kind: 'terminal', terminal } };
  }
  if (thrown === undefined) return { retry: true, failure: streamEnded() };
  const failure = failureOf(thrown);
  const status = (thrown as { status?: unknown }).status;
  if (typeof status !== 'number') return { retry: true, failure };
  if (status === 404) return { retry: false, end: { kind: 'gone', failure: nothingToWatch(failure) } };
  if (status === 409) return { retry: false, end: { kind: 'replaced', failure: anotherExecution(failure) } };
  if (status === 401) return { retry: false, end: { kind: 'unauthorized', failure } };
  if (status >= 500 || status === 429) return { retry: true, failure };
  return { retry: false, end: { kind: 'failed', failure } };
}

/** Codes that refuse the event id, not the observation (docs/protocol.md §6.15). */
const ID_REFUSALS = new Set(['EVENT_ID_EXPIRED', 'EVENT_ID_MISMATCH']);

/** The adapter refused the reader's event id: follow again without it. */
export function eventIdRefused(thrown: unknown): boolean {
  if (thrown === undefined) return false;
  const status = (thrown as { status?: unknown }).status;
  if (status !== 409 && status !== 400) return false;
  const failure = failureOf(thrown);
  return ID_REFUSALS.has(failure.code) || (status === 400 && failure.details.some((detail) => /last-event-id|afterSequence/i.test(detail.path)));
}

export function streamEnded(): Failure {
  return { kind: 'unreachable', code: 'STREAM_ENDED', message: 'The stream ended before the run did.', details: [] };
}

function nothingToWatch(failure: Failure): Failure {
  return {
    ...failure,
    message:
      'Nothing is left to watch: the run has ended, or it was cancelled when its connection closed (with no answer owed, the adapter cancels a run nobody reads). Its remaining output is lost; send a new message to go on.',
  };
}

function anotherExecution(failure: Failure): Failure {
  return { ...failure, message: 'Another execution has started on this thread since (from another tab or client), so this run can no longer be followed here.' };
}

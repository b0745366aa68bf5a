/**
 * The reattach loop (docs/protocol.md §6.14, §6.15), the console's and IacCodeAgent's: observes the
 * execution through the subscribe route until the run's terminal event arrives or nothing is left
 * to watch, waiting between attempts as reattach-policy.ts decides. Each attempt continues after the last event shown
 * (`Last-Event-ID`), so attempts add up to the run without a gap or a repeat; an id the adapter no
 * longer holds is dropped and the run is followed without one.
 */
import type { BaseEvent } from '@ag-ui/client';
import type { Connection } from './connection.js';
import type { EventRecord } from './event-record.js';
import { type Failure, failureOf } from './failures.js';
import { backoffMs, eventIdRefused, judgeAttempt, type ReattachEnd, streamEnded } from './reattach-policy.js';
import { type ObservationTarget, streamObservation } from './subscribe-client.js';

export interface ReattachOptions {
  /** The adapter, and the headers (the token) each attempt carries: read afresh per attempt. */
  connection: Connection;
  /** Stops the loop (the person cancelled, or left the thread). */
  signal: AbortSignal;
  /** Wait before the first attempt (a dropped stream: the network may need a moment). */
  firstDelayMs: number;
  maxAttempts: number;
  /** Before each attempt: its number (1-based) in the current series, and the series' maximum. */
  attempting(attempt: number, maxAttempts: number): void;
  /** The id of the last event shown, if any: the next attempt continues after it. */
  lastEventId(): string | undefined;
  /**
   * The adapter refused the id (it no longer holds what follows it): attempts go on without one —
   * unless this answers `false` (a reader that cannot take the run again from its start), which
   * ends the loop `failed` with the adapter's refusal.
   */
  forgetEventId(): unknown;
  /** The adapter accepted an attempt: the run streams again. */
  opened(): void;
  /** Every event of every attempt except a held-back retryable RUN_ERROR, with its id; `true` ends the attempt's read (the reader has all it follows). */
  event(event: EventRecord, id: string | undefined): unknown;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

export async function reattach(target: ObservationTarget, options: ReattachOptions): Promise<ReattachEnd> {
  let attempt = 0;
  let last: Failure = streamEnded();
  let heldBack: EventRecord | undefined;
  let delay = options.firstDelayMs;
  while (attempt < options.maxAttempts) {
    attempt += 1;
    options.attempting(attempt, options.maxAttempts);
    await sleep(delay, options.signal);
    if (options.signal.aborted) return { kind: 'aborted' };
    const abort = new AbortController();
    const stop = () => abort.abort();
    options.signal.addEventListener('abort', stop);
    let terminal: EventRecord | undefined;
    const from = options.lastEventId();
    const streamed = { connection: options.connection, lastEventId: from, abort, opened: options.opened };
    const { thrown } = await streamObservation(target, streamed, (event: BaseEvent, id) => {
      const record = event as unknown as EventRecord;
      if (record.type === 'RUN_FINISHED' || record.type === 'RUN_ERROR') {
        terminal = record;
        // Held back until it is known whether it ends the run or only this attempt.
        if (judgeAttempt(record, undefined, false).retry) return;
      }
      return options.event(record, id);
    });
    options.signal.removeEventListener('abort', stop);
    if (from !== undefined && eventIdRefused(thrown)) {
      if (options.forgetEventId() === false) return { kind: 'failed', failure: failureOf(thrown) };
      // Followed again at once without the id (docs/protocol.md §6.15): not a failed attempt.
      attempt -= 1;
      delay = 0;
      continue;
    }
    const progressed = options.lastEventId() !== from;
    const judged = judgeAttempt(terminal, thrown, options.signal.aborted);
    if (!judged.retry) return judged.end;
    last = judged.failure;
    heldBack = judged.heldBack;
    if (progressed) attempt = 0;
    delay = backoffMs(attempt + 1);
  }
  if (heldBack) {
    options.event(heldBack, undefined);
    return { kind: 'terminal', terminal: heldBack };
  }
  return { kind: 'exhausted', failure: last };
}

/**
 * The reattach loop (docs/protocol.md §6.14): observes the execution through the subscribe route
 * until the run's terminal event arrives or nothing is left to watch, waiting between attempts as
 * run/reattach-policy.ts decides.
 */
import type { BaseEvent } from '@ag-ui/client';
import type { Failure } from '../connection/failures.js';
import type { EventRecord } from '../transcript/event-fields.js';
import { backoffMs, judgeAttempt, type ReattachEnd, streamEnded } from './reattach-policy.js';
import { type ObservationTarget, streamObservation } from './subscribe-client.js';

export interface ReattachOptions {
  token: () => string | undefined;
  /** Stops the loop (the person cancelled, or left the thread). */
  signal: AbortSignal;
  /** Wait before the first attempt (a dropped stream: the network may need a moment). */
  firstDelayMs: number;
  maxAttempts: number;
  /** Before each attempt: its number (1-based) in the current series, and the series' maximum. */
  attempting(attempt: number, maxAttempts: number): void;
  /** Every event of every attempt except a held-back retryable RUN_ERROR. */
  event(event: EventRecord): void;
}

/** Events that carry nothing new: every attempt starts with them. */
const PREAMBLE = new Set(['RUN_STARTED', 'CUSTOM']);

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
    let progressed = false;
    const { thrown } = await streamObservation(target, options.token(), abort, (event: BaseEvent) => {
      const record = event as unknown as EventRecord;
      if (record.type === 'RUN_FINISHED' || record.type === 'RUN_ERROR') {
        terminal = record;
        // Held back until it is known whether it ends the run or only this attempt.
        if (judgeAttempt(record, undefined, false).retry) return;
      } else if (!PREAMBLE.has(record.type)) {
        progressed = true;
      }
      options.event(record);
    });
    options.signal.removeEventListener('abort', stop);
    const judged = judgeAttempt(terminal, thrown, options.signal.aborted);
    if (!judged.retry) return judged.end;
    last = judged.failure;
    heldBack = judged.heldBack;
    if (progressed) attempt = 0;
    delay = backoffMs(attempt + 1);
  }
  if (heldBack) {
    options.event(heldBack);
    return { kind: 'terminal', terminal: heldBack };
  }
  return { kind: 'exhausted', failure: last };
}

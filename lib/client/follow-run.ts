/**
 * One run as a reader of this client sees it: one stream from `RUN_STARTED` to exactly one terminal
 * event, whatever happens to the connections under it (docs/protocol.md §6.15). The first
 * connection is the run's own (`POST /`) or the thread's current run (`POST …/threads/{id}/subscribe`,
 * §6.16). Each event's SSE id is kept (event-stream.ts); when the stream ends before its terminal
 * event, the run is reattached through the execution's subscribe route with `Last-Event-ID`
 * (reattach.ts), which continues exactly after the last event passed on — so nothing arrives twice
 * and nothing is missing. The execution comes from the run's session event (§4.9), or, when the
 * stream broke before it, from the thread read (§6.16), which names the run holding the thread.
 *
 * Ends that are not the run's own become a `RUN_ERROR` a UI can show, never only a thrown error:
 * an error answered before the stream (§2.3: its code and message), a run that cannot be followed
 * any more (404: nothing left to watch; 409: another execution; the attempts exhausted).
 */
import type { BaseEvent } from '@ag-ui/client';
import { Observable } from 'rxjs';
import type { Connection, FetchFn } from './connection.js';
import { CUSTOM_SESSION, type EventRecord, isTerminal, obj, str } from './event-record.js';
import { readEventStream } from './event-stream.js';
import { type Failure, failureOf } from './failures.js';
import { reattach } from './reattach.js';
import { BASE_DELAY_MS, MAX_ATTEMPTS, streamEnded } from './reattach-policy.js';
import { readThread } from './thread-client.js';

/** The identities a run's session event names (§4.9). */
export interface RunSession {
  threadId: string;
  runId: string;
  executionId: string;
  rosInvocationId: string;
}

export interface FollowRunOptions {
  connection: Connection;
  threadId: string;
  /** The run's id when the caller chose it (`POST /`); else it is the one its `RUN_STARTED` names. */
  runId?: string | undefined;
  /** The thread's rosInvocationId, for the subscribe route; the session event's wins. */
  rosInvocationId?: string | undefined;
  /** The caller's stop (HttpAgent's abortController): the run is no longer read; no event follows. */
  signal: AbortSignal;
  maxAttempts?: number;
  /** Passed on right after the run's `RUN_STARTED` (connect's conversation snapshot). */
  afterRunStarted?: () => BaseEvent[];
  /** The first connection answered 204: the thread is idle; these events are the whole stream. */
  idle?: () => Promise<BaseEvent[]>;
  /** The run's session event arrived. */
  session?: (session: RunSession) => void;
}

/** Thrown by an `open` that met an idle thread (204, §6.16). */
export const IDLE = Symbol('idle thread');

export function runError(failure: Pick<Failure, 'code' | 'message'>): BaseEvent {
  return { type: 'RUN_ERROR', code: failure.code, message: failure.message, timestamp: Date.now() } as BaseEvent;
}

export function followRun(open: (fetch: FetchFn, signal: AbortSignal) => Promise<Response>, options: FollowRunOptions): Observable<BaseEvent> {
  return new Observable<BaseEvent>((subscriber) => {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    if (options.signal.aborted) stop.abort();
    else options.signal.addEventListener('abort', onAbort, { once: true });

    let lastEventId: string | undefined;
    let executionId: string | undefined;
    let runId = options.runId;
    let rosInvocationId = options.rosInvocationId;
    let started = false;
    let ended = false;

    /** Passes one event on; `true` once the run's terminal event has been (nothing is read after it). */
    const pass = (event: BaseEvent, id: string | undefined): boolean => {
      if (ended || stop.signal.aborted) return true;
      if (id) lastEventId = id;
      const record = event as unknown as EventRecord;
      if (record.type === 'RUN_STARTED') {
        started = true;
        runId ??= str(record, 'runId');
        subscriber.next(event);
        for (const extra of options.afterRunStarted?.() ?? []) subscriber.next(extra);
        return false;
      }
      if (record.type === 'CUSTOM' && record['name'] === CUSTOM_SESSION) {
        const value = obj(record, 'value');
        executionId = str(value, 'executionId') ?? executionId;
        rosInvocationId = str(value, 'rosInvocationId') ?? rosInvocationId;
        runId ??= str(value, 'aguiRunId');
        if (executionId && rosInvocationId && runId) options.session?.({ threadId: options.threadId, runId, executionId, rosInvocationId });
      }
      subscriber.next(event);
      if (isTerminal(record)) ended = true;
      return ended;
    };

    const end = (failure?: Pick<Failure, 'code' | 'message'>) => {
      if (failure && !ended && !stop.signal.aborted) subscriber.next(runError(failure));
      ended = true;
      subscriber.complete();
    };

    /** The run holding the thread, when it is the one followed (or any, when its id is not known yet). */
    const holder = async () => {
      const run = await readThread(options.connection, options.threadId, stop.signal).catch(() => null);
      if (!run || (runId !== undefined && run.runId !== runId)) return undefined;
      return run;
    };

    (async () => {
      const first = await readEventStream((fetch) => open(fetch, stop.signal), { fetch: options.connection.fetch, signal: stop.signal }, pass);
      if (ended || stop.signal.aborted) return end();
      if (first.thrown === IDLE) {
        for (const event of (await options.idle?.()) ?? []) subscriber.next(event);
        return end();
      }
      const status = (first.thrown as { status?: unknown } | undefined)?.status;
      if (!started && typeof status === 'number') return end(failureOf(first.thrown)); // answered before the stream (§2.3)
      if (started && lastEventId === undefined) return end(first.thrown === undefined ? streamEnded() : failureOf(first.thrown));
      if (!executionId) {
        // Lost before the session event (or before RUN_STARTED: the run may have been admitted).
        const run = await holder();
        if (!run) return end(first.thrown === undefined ? streamEnded() : failureOf(first.thrown));
        executionId = run.executionId;
        runId ??= run.runId;
      }
      if (!runId || !rosInvocationId) return end(streamEnded());
      const target = { executionId, threadId: options.threadId, runId, rosInvocationId };
      const result = await reattach(target, {
        connection: options.connection,
        signal: stop.signal,
        // The network may need a moment; the run waits for its reader for the detach grace (§6.15).
        firstDelayMs: BASE_DELAY_MS,
        maxAttempts: options.maxAttempts ?? MAX_ATTEMPTS,
        attempting: () => undefined,
        lastEventId: () => lastEventId,
        // Taken again from its start, the run would repeat what was passed on: end instead.
        forgetEventId: () => false,
        opened: () => undefined,
        event: (event, id) => pass(event as unknown as BaseEvent, id),
      });
      if (ended || result.kind === 'aborted' || result.kind === 'terminal') return end();
      return end(result.failure);
    })().catch((error: unknown) => {
      if (!ended && !stop.signal.aborted) subscriber.error(error);
    });

    return () => {
      options.signal.removeEventListener('abort', onAbort);
      stop.abort();
    };
  });
}

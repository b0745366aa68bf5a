/**
 * Reattaching to an execution through the subscribe route (docs/protocol.md §6.14, §6.15): `POST
 * /extensions/iac-code/v1/executions/{executionId}/subscribe` with exactly `{threadId, runId,
 * rosInvocationId}`, and `Last-Event-ID` when the reader holds the id of the last event it got.
 * With the id the stream is the rest of the run — every event after that one, none twice, then the
 * run live to its terminal event; without it, the run from its `RUN_STARTED` (or, on a store that
 * keeps no journal, what the kernel's snapshot adds to what the thread already announced).
 *
 * It is read with @ag-ui/client's transport and parser (event-stream.ts) but not through
 * `runAgent`: the rest of a run starts mid-run, which the client's run-shape checks (a first
 * `RUN_STARTED`, a text message opened in the same stream) would refuse. Whoever reads follows the
 * run's shape across the two streams (follow-run.ts, the console's run view).
 */
import { type Connection, routes, urlOf } from './connection.js';
import { type OnEvent, readEventStream, type Streamed } from './event-stream.js';

/** What the route needs: the execution, and the thread's identities the run was admitted under. */
export interface ObservationTarget {
  executionId: string;
  threadId: string;
  /** Any runId admitted on the thread (§6.14 check 3); readers use the run they follow. */
  runId: string;
  rosInvocationId: string;
}

export function subscribePath(executionId: string): string {
  return routes.subscribe(executionId);
}

/** Reads one observation to its end, each event to `onEvent` with its id; `opened` once the adapter accepted it (the stream began). */
export function streamObservation(
  target: ObservationTarget,
  options: { connection: Connection; lastEventId: string | undefined; abort: AbortController; opened: () => void },
  onEvent: OnEvent,
): Promise<Streamed> {
  const headers: Record<string, string> = {
    ...options.connection.headers(),
    'Content-Type': 'application/json',
    Accept: 'text/event-stream',
    ...(options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {}),
  };
  // Anything beyond the three identities is 400 INVALID_INPUT (§6.14 "Request").
  const body = JSON.stringify({ threadId: target.threadId, runId: target.runId, rosInvocationId: target.rosInvocationId });
  return readEventStream(
    async (fetch) => {
      const response = await fetch(urlOf(options.connection, subscribePath(target.executionId)), { method: 'POST', headers, body, signal: options.abort.signal });
      if (response.ok) options.opened();
      return response;
    },
    { fetch: options.connection.fetch, signal: options.abort.signal },
    onEvent,
  );
}

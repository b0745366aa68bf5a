/**
 * Reattaching to an execution through the subscribe route (docs/protocol.md §6.14, §6.15): `POST
 * /extensions/iac-code/v1/executions/{executionId}/subscribe` with exactly `{threadId, runId,
 * rosInvocationId}`, and `Last-Event-ID` when the console holds the id of the last event it showed.
 * With the id the stream is the rest of the run — every event after that one, none twice, then the
 * run live to its terminal event; without it, the run from its `RUN_STARTED` (or, on a store that
 * keeps no journal, what the kernel's snapshot adds to what the thread already announced).
 *
 * The official HttpAgent reads it — its transport and its SSE parser (`run`) — but not through
 * `runAgent`: the rest of a run starts mid-run, which the client's run-shape checks (a first
 * `RUN_STARTED`, a text message opened in the same stream) would refuse. The console's own run
 * view is what follows the run's shape across the two streams.
 */
import { type BaseEvent, HttpAgent, type RunAgentInput } from '@ag-ui/client';
import { authHeaders } from '../connection/session-token.js';
import { type OnEvent, type Streamed, tappedFetch } from './run-client.js';

/** What the route needs: the execution, and the thread's identities the run was admitted under. */
export interface ObservationTarget {
  executionId: string;
  threadId: string;
  /** Any runId admitted on the thread (§6.14 check 3); the console uses the run it watches. */
  runId: string;
  rosInvocationId: string;
}

export function subscribePath(executionId: string): string {
  return `/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/subscribe`;
}

class ObservationAgent extends HttpAgent {
  constructor(
    private readonly target: ObservationTarget,
    headers: Record<string, string>,
    fetch: (url: string, init: RequestInit) => Promise<Response>,
  ) {
    super({ url: subscribePath(target.executionId), headers, threadId: target.threadId, fetch });
  }

  // Anything beyond the three identities is 400 INVALID_INPUT, so the RunAgentInput is not sent.
  protected override requestInit(input: RunAgentInput): RequestInit {
    return {
      ...super.requestInit(input),
      body: JSON.stringify({ threadId: this.target.threadId, runId: this.target.runId, rosInvocationId: this.target.rosInvocationId }),
    };
  }
}

/**
 * Reads one observation to its end, each event to `onEvent` with its id; `opened` once the adapter
 * accepted it (the stream began). A failure is returned, not thrown, as `drive` does.
 */
export function streamObservation(
  target: ObservationTarget,
  options: { token: string | undefined; lastEventId: string | undefined; abort: AbortController; opened: () => void },
  onEvent: OnEvent,
): Promise<Streamed> {
  const connection = tappedFetch();
  const headers: Record<string, string> = { ...authHeaders(options.token), ...(options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {}) };
  const agent = new ObservationAgent(target, headers, async (url, init) => {
    const response = await connection.fetch(url, init);
    if (response.ok) options.opened();
    return response;
  });
  agent.abortController = options.abort;
  const input: RunAgentInput = { threadId: target.threadId, runId: target.runId, messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
  return new Promise((resolve) => {
    const done = (thrown: unknown) => {
      subscription?.unsubscribe();
      thrown ??= connection.broken();
      resolve(thrown === undefined ? {} : { thrown });
    };
    let subscription: { unsubscribe(): void } | undefined;
    subscription = agent.run(input).subscribe({
      next: (event: BaseEvent) => onEvent(event, connection.tap.idOf(event)),
      error: (error: unknown) => done(error),
      complete: () => done(undefined),
    });
    // An abort ends the stream without an error from the client: it is the caller's own stop.
    options.abort.signal.addEventListener('abort', () => done(undefined), { once: true });
  });
}

/**
 * Reattaching to an execution through the subscribe route (docs/protocol.md §6.14): `POST
 * /extensions/iac-code/v1/executions/{executionId}/subscribe` with exactly `{threadId, runId,
 * rosInvocationId}`. The stream is an ordinary run stream — RUN_STARTED with the body's runId, the
 * session event, what the kernel's snapshot adds to what the thread already announced, then one
 * terminal event — so the same official HttpAgent reads it; only the URL and the body differ.
 */
import { type BaseEvent, HttpAgent, type RunAgentInput } from '@ag-ui/client';
import { authHeaders } from '../connection/session-token.js';
import { drive, type Streamed } from './run-client.js';

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
    token: string | undefined,
    fetch: (url: string, init: RequestInit) => Promise<Response>,
  ) {
    super({ url: subscribePath(target.executionId), headers: authHeaders(token), threadId: target.threadId, fetch });
  }

  // Anything beyond the three identities is 400 INVALID_INPUT, so the RunAgentInput is not sent.
  protected override requestInit(input: RunAgentInput): RequestInit {
    return {
      ...super.requestInit(input),
      body: JSON.stringify({ threadId: this.target.threadId, runId: this.target.runId, rosInvocationId: this.target.rosInvocationId }),
    };
  }
}

export function streamObservation(target: ObservationTarget, token: string | undefined, abort: AbortController, onEvent: (event: BaseEvent) => void): Promise<Streamed> {
  return drive((fetch) => new ObservationAgent(target, token, fetch), { runId: target.runId, abortController: abort }, onEvent);
}

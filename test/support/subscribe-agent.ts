/**
 * The official @ag-ui/client HttpAgent pointed at the subscribe route (docs/protocol.md §6.14):
 * same transport, SSE parsing and verifyEvents as a run, only the URL and the body differ. This
 * is how a client written for the peer reconnects after a reload or a dropped stream.
 */
import { HttpAgent, type HttpAgentFetchFn, type RunAgentInput } from '@ag-ui/client';
import { subscribePath } from './observe.js';

export class SubscribeAgent extends HttpAgent {
  constructor(
    baseUrl: string,
    executionId: string,
    threadId: string,
    private readonly rosInvocationId: string,
    fetchImpl?: HttpAgentFetchFn,
  ) {
    super({ url: `${baseUrl}${subscribePath(executionId)}`, threadId, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  }

  protected override requestInit(input: RunAgentInput): RequestInit {
    return { ...super.requestInit(input), body: JSON.stringify({ threadId: input.threadId, runId: input.runId, rosInvocationId: this.rosInvocationId }) };
  }
}

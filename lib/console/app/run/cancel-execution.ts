/**
 * The cancel extension (docs/protocol.md §1, §6): `POST
 * /extensions/iac-code/v1/executions/{executionId}/cancel` with `{threadId, rosInvocationId}`.
 * A live stream then ends with RUN_ERROR CANCELLED; pending interrupts are cleared.
 */
import { type Failure, failureOf, httpFailure } from '../connection/failures.js';
import { authHeaders } from '../connection/session-token.js';

export interface CancelTarget {
  executionId: string;
  threadId: string;
  rosInvocationId: string;
}

export async function cancelExecution(target: CancelTarget, token: string | undefined): Promise<{ status: string } | { failure: Failure }> {
  try {
    const response = await fetch(`/extensions/iac-code/v1/executions/${encodeURIComponent(target.executionId)}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(token) },
      body: JSON.stringify({ threadId: target.threadId, rosInvocationId: target.rosInvocationId }),
    });
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) return { failure: httpFailure(response.status, body) };
    return { status: String((body as { status?: unknown } | undefined)?.status ?? 'cancelled') };
  } catch (error) {
    return { failure: failureOf(error) };
  }
}

/**
 * The cancel extension (docs/protocol.md §6.7): `POST
 * /extensions/iac-code/v1/executions/{executionId}/cancel` with `{threadId, rosInvocationId}`.
 * A live stream then ends with RUN_ERROR CANCELLED; pending interrupts are cleared. The write comes
 * first on the adapter, so once this answers the thread takes a new turn.
 */
import { type Connection, fetchOf, routes, urlOf } from './connection.js';
import { type Failure, failureOf, httpFailure } from './failures.js';

export interface CancelTarget {
  executionId: string;
  threadId: string;
  rosInvocationId: string;
}

/** `status` is the adapter's: `cancelled`, or `already_terminal` (§6.7's table). */
export async function cancelExecution(target: CancelTarget, connection: Connection): Promise<{ status: string } | { failure: Failure }> {
  try {
    const response = await fetchOf(connection)(urlOf(connection, routes.cancel(target.executionId)), {
      method: 'POST',
      headers: { ...connection.headers(), 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: target.threadId, rosInvocationId: target.rosInvocationId }),
    });
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) return { failure: httpFailure(response.status, body) };
    return { status: String((body as { status?: unknown } | undefined)?.status ?? 'cancelled') };
  } catch (error) {
    return { failure: failureOf(error) };
  }
}

/**
 * The thread reads (docs/protocol.md §6.16) a client that holds nothing needs to serve a thread it
 * knows only by id: what holds the thread now (`GET …/threads/{id}`), its current run from its
 * start (`POST …/threads/{id}/subscribe`, 204 when idle) and its conversation so far
 * (`GET …/threads/{id}/messages`).
 */
import type { Message } from '@ag-ui/client';
import { type Connection, fetchOf, routes, urlOf } from './connection.js';
import { httpFailure } from './failures.js';

/** `run` of GET thread: null when a new turn would be admitted. */
export type ThreadRun =
  | { executionId: string; runId: string; state: 'live' }
  | { executionId: string; runId: string; state: 'detached'; detachedUntil: number }
  | { executionId: string; runId: string; state: 'interrupted'; interrupts: unknown[] };

/** An answer of the adapter that was not 2xx, as @ag-ui/client reports one: `status`, and the parsed body as `payload`. */
export class AdapterAnswer extends Error {
  override readonly name = 'AdapterAnswer';
  constructor(
    readonly status: number,
    readonly payload: unknown,
  ) {
    const failure = httpFailure(status, payload);
    super(`HTTP ${status}: ${failure.code}: ${failure.message}`);
  }
}

async function json(response: Response): Promise<unknown> {
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw new AdapterAnswer(response.status, body);
  return body;
}

export async function readThread(connection: Connection, threadId: string, signal?: AbortSignal): Promise<ThreadRun | null> {
  const response = await fetchOf(connection)(urlOf(connection, routes.thread(threadId)), { headers: connection.headers(), ...(signal ? { signal } : {}) });
  const body = (await json(response)) as { run?: ThreadRun | null };
  return body.run ?? null;
}

/** The conversation so far; a thread never used (404) has none. */
export async function readMessages(connection: Connection, threadId: string, signal?: AbortSignal): Promise<Message[]> {
  const response = await fetchOf(connection)(urlOf(connection, routes.threadMessages(threadId)), { headers: connection.headers(), ...(signal ? { signal } : {}) });
  if (response.status === 404) return [];
  const body = (await json(response)) as { messages?: Message[] };
  return Array.isArray(body.messages) ? body.messages : [];
}

/** Opens the thread's current run from its start: the response (an SSE stream), or `idle` (204, or 404: a thread never used has no run). */
export async function openThreadRun(
  connection: Connection,
  threadId: string,
  fetch: (url: string, init: RequestInit) => Promise<Response>,
  signal: AbortSignal,
): Promise<Response | 'idle'> {
  const response = await fetch(urlOf(connection, routes.threadSubscribe(threadId)), {
    method: 'POST',
    headers: { ...connection.headers(), 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: '{}',
    signal,
  });
  if (response.status === 204) return 'idle';
  if (response.status === 404) {
    // A page opening a new thread connects before its first message (CopilotKit does): nothing to follow.
    await response.body?.cancel().catch(() => undefined);
    return 'idle';
  }
  return response;
}

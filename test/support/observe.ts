/**
 * Helpers for the subscribe route (docs/protocol.md §6.14): its path, a request for it, and the
 * text an AG-UI stream carried, to compare what an owner and its observers saw.
 */
import type { ThreadStore } from '../../lib/core/ports.js';
import type { SseEvent } from './live-sse.js';

export function subscribePath(executionId: string): string {
  return `/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/subscribe`;
}

export function subscribe(baseUrl: string, executionId: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}${subscribePath(executionId)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
}

/** All TEXT_MESSAGE_CONTENT deltas of a stream, joined. */
export function textOf(events: ReadonlyArray<Record<string, unknown>>): string {
  return events
    .filter((event) => event['type'] === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event['delta'] as string)
    .join('');
}

export function sessionOf(events: readonly SseEvent[]): { executionId: string; taskId: string; sessionId: string } {
  const session = events.find((event) => event.type === 'CUSTOM' && event['name'] === 'iac-code.session.v1');
  if (!session) throw new Error('no session event');
  return session['value'] as { executionId: string; taskId: string; sessionId: string };
}

/** The stored revision of a thread (unchanged = nothing was written). */
export async function revisionOf(store: ThreadStore, threadId: string): Promise<number | undefined> {
  return (await store.load(threadId))?.revision;
}

/** Polls the store until `ready` holds for the thread document (no timing assertion: a bounded wait for a fact). */
export async function storedWhen(store: ThreadStore, threadId: string, ready: (document: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  let document: Record<string, unknown> = {};
  for (let i = 0; i < 250; i += 1) {
    document = ((await store.load(threadId))?.document ?? {}) as Record<string, unknown>;
    if (ready(document)) return document;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the thread document never got there: ${JSON.stringify(document)}`);
}

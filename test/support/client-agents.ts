/**
 * Helpers for the client module's tests (lib/client): an IacCodeAgent against a stack, a fetch
 * that cuts response bodies at seeded random byte offsets as a proxy dropping the connection would
 * (the body ends; the real connection is closed), and a run collected through `runAgent`.
 */
import type { BaseEvent } from '@ag-ui/client';
import type { FetchFn } from '../../lib/client/connection.js';
import { IacCodeAgent } from '../../lib/client/index.js';
import { uniqueId } from './fixtures.js';

export const CWD = '/workspace/demo';

export function agentFor(url: string, threadId: string, fetch?: FetchFn): IacCodeAgent {
  return new IacCodeAgent({ url, threadId, cwd: CWD, ...(fetch ? { fetch } : {}) });
}

/** Cuts the first `cuts` SSE bodies after a random number of bytes (from `minBytes`); later bodies pass whole. */
export function cuttingFetch(random: () => number, cuts: number, minBytes = 200): { fetch: FetchFn; cutsMade: () => number } {
  let made = 0;
  const fetch: FetchFn = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream') || made >= cuts) return response;
    made += 1;
    const limit = minBytes + Math.floor(random() * 1_500);
    const reader = response.body.getReader();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done || !chunk.value) return controller.close();
        const room = limit - seen;
        if (chunk.value.byteLength < room) {
          seen += chunk.value.byteLength;
          return controller.enqueue(chunk.value);
        }
        // Mid-record, wherever the offset falls: the proxy dropped the connection.
        controller.enqueue(chunk.value.slice(0, room));
        controller.close();
        await reader.cancel().catch(() => undefined);
      },
      cancel: (reason) => reader.cancel(reason).catch(() => undefined),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch, cutsMade: () => made };
}

/** A new turn through `runAgent`: every event the subscribers saw. */
export async function runTurn(agent: IacCodeAgent, text: string, runId = uniqueId('run')): Promise<BaseEvent[]> {
  agent.addMessage({ id: uniqueId('message'), role: 'user', content: text });
  const events: BaseEvent[] = [];
  await agent.runAgent({ runId }, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

export function sessionOf(events: readonly BaseEvent[]): { executionId: string; rosInvocationId: string } | undefined {
  const session = events.find((event) => event.type === 'CUSTOM' && (event as { name?: string }).name === 'iac-code.session.v1');
  return (session as { value?: { executionId: string; rosInvocationId: string } } | undefined)?.value;
}

/** Events as compared across readers: the JSON without the timestamp a client may add. */
export function shapes(events: readonly BaseEvent[]): string[] {
  return events.map((event) => {
    const { timestamp: _t, ...rest } = event as unknown as Record<string, unknown>;
    return JSON.stringify(rest);
  });
}

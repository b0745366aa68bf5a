/**
 * The SSE response of a run (docs/protocol.md §4.1, §4.2): one
 * `data: <json>\n\n` record per event, the comment `: heartbeat\n\n` after a quiet interval, and an
 * abort signal that fires when the caller goes away. The run itself always runs to completion —
 * after a disconnect its events are simply dropped — so its clean-up never gets skipped.
 */

import { errorFields } from '../core/error-fields.js';
import type { Logger } from '../core/ports.js';
import type { AguiEvent } from '../core/translate/events.js';

/** No `connection` header: Function Compute forbids a function to set one (docs/protocol.md §1.5). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

export type RunBody = (emit: (event: AguiEvent) => void, signal: AbortSignal) => Promise<void>;

export interface SseOptions {
  heartbeatMs: number;
  logger: Logger;
  /** The request's own signal (the Node shell aborts it when the socket closes). */
  requestSignal: AbortSignal;
}

export function sseResponse(run: RunBody, options: SseOptions): Response {
  const cancelled = new AbortController();
  const signal = AbortSignal.any([options.requestSignal, cancelled.signal]);
  const encoder = new TextEncoder();
  let open = true;
  let heartbeat: ReturnType<typeof setTimeout> | undefined;

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Writes stop only when the reader cancelled the body. After a client disconnect the socket
      // is gone and the shell discards what is written; after a shutdown abort the client is still
      // there and receives the run's terminal event.
      const write = (text: string): void => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
          return;
        }
        armHeartbeat();
      };
      const armHeartbeat = (): void => {
        clearTimeout(heartbeat);
        heartbeat = setTimeout(() => write(': heartbeat\n\n'), options.heartbeatMs);
      };
      armHeartbeat();
      run((event) => write(`data: ${JSON.stringify(event)}\n\n`), signal)
        .catch((error: unknown) => options.logger.error('run failed unexpectedly', { error: errorFields(error) }))
        .finally(() => {
          clearTimeout(heartbeat);
          if (!open) return;
          open = false;
          try {
            controller.close();
          } catch {
            // already closed by a cancel
          }
        });
    },
    cancel() {
      open = false;
      clearTimeout(heartbeat);
      cancelled.abort();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

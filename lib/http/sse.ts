/**
 * The SSE response of a run (docs/protocol.md §4.1, §4.2): one
 * `data: <json>\n\n` record per event, the comment `: heartbeat\n\n` after a quiet interval, and an
 * abort signal that fires when the caller goes away. The run itself always runs to completion —
 * after a disconnect its events are simply dropped — so its clean-up never gets skipped.
 */

import { errorFields } from '../core/error-fields.js';
import type { Logger } from '../core/ports.js';
import type { AguiEvent } from '../core/translate/events.js';
import { DeltaMerge } from './delta-merge.js';
import { MAX_QUEUED_SSE_BYTES, SseSource, sseSourceResponse } from './sse-source.js';

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

/** One SSE record (docs/protocol.md §4.1). */
function record(event: object): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** Shared by every stream: encoding holds no state. */
const encoder = new TextEncoder();

/**
 * Per event the stream only notes the time of its last write; the one heartbeat timer, when it
 * fires, either writes the heartbeat (the stream was quiet for `heartbeatMs`) or waits out the
 * rest of the interval counted from that last write (docs/protocol.md §4.2) — no timer is
 * cleared and made again per event.
 */
export function sseResponse(run: RunBody, options: SseOptions): Response {
  const { heartbeatMs, requestSignal } = options;
  // The run's signal: aborted when the caller goes away or the body is cancelled. One controller
  // that the request's abort is forwarded to (and the listener removed when the run ends), not
  // AbortSignal.any: an idle stream holds less (docs/architecture.md §2).
  const aborting = new AbortController();
  const forwardAbort = (): void => aborting.abort(requestSignal.reason);
  if (requestSignal.aborted) forwardAbort();
  else requestSignal.addEventListener('abort', forwardAbort, { once: true });
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  let lastWrite = performance.now();
  // The reader cancelled the body, or stopped reading while its queue passed its bound (sse-source.ts):
  // the run's signal aborts and writes stop — the disconnect rule applies (docs/protocol.md §6.8).
  const source = new SseSource((why) => {
    clearTimeout(heartbeat);
    if (why === 'unread') options.logger.warn('SSE reader stopped reading; treated as disconnected', { queuedBytesOver: MAX_QUEUED_SSE_BYTES });
    aborting.abort();
  });
  // Writes stop only when the reader cancelled the body. After a client disconnect the socket is
  // gone and the shell discards what is written; after a shutdown abort the client is still there
  // and receives the run's terminal event.
  //
  // A record written while the stream has been quiet goes out at once; the records that follow it
  // in the same turn of the event loop are gathered and go out as one chunk when that turn's I/O
  // and promise jobs are done (setImmediate). A kernel chunk often holds many deltas, and one
  // socket write and one encoding per burst instead of per event was the largest part of the
  // adapter's own cost per delta; a lone event waits for nothing (docs/architecture.md §2.3).
  // Within a gathered burst, consecutive deltas of one message or tool call merge (delta-merge.ts).
  let gathered: string | undefined;
  const merge = new DeltaMerge((event) => {
    gathered += record(event);
  });
  const send = (text: string): void => {
    if (source.open) source.push(encoder.encode(text));
  };
  const flush = (): void => {
    merge.flush();
    const text = gathered;
    gathered = undefined;
    if (text) send(text);
  };
  const write = (text: string): void => {
    if (!source.open) return;
    if (gathered !== undefined) {
      merge.flush();
      gathered += text;
      return;
    }
    send(text);
    gathered = '';
    lastWrite = performance.now();
    setImmediate(flush);
  };
  const emit = (event: AguiEvent): void => {
    if (gathered === undefined || !source.open || !merge.offer(event)) write(record(event));
  };
  const beat = (): void => {
    // A timer may fire a fraction of a millisecond before its delay by performance.now().
    const quiet = performance.now() - lastWrite >= heartbeatMs - 1;
    if (quiet) write(': heartbeat\n\n');
    if (source.open) heartbeat = setTimeout(beat, quiet ? heartbeatMs : heartbeatMs - (performance.now() - lastWrite));
  };
  heartbeat = setTimeout(beat, heartbeatMs);
  run(emit, aborting.signal)
    .catch((error: unknown) => options.logger.error('run failed unexpectedly', { error: errorFields(error) }))
    .finally(() => {
      clearTimeout(heartbeat);
      requestSignal.removeEventListener('abort', forwardAbort);
      flush();
      source.end();
    });
  return sseSourceResponse(source, { status: 200, headers: SSE_HEADERS });
}

/**
 * The SSE response of a run or an observation (docs/protocol.md §4.1, §4.2): the records the body
 * sends — `id: <id>\ndata: <json>\n\n`, placed and encoded once by the execution's event log
 * (lib/core/journal/event-log.ts) — the comment `: heartbeat\n\n` after a quiet interval, and an
 * abort signal that fires when the caller goes away. The body always runs to completion — after a
 * disconnect its records are simply dropped — so its clean-up never gets skipped.
 */

import { errorFields } from '../core/error-fields.js';
import type { LogRecord } from '../core/journal/event-log.js';
import type { Logger } from '../core/ports.js';
import type { StreamFlow } from '../core/reattach/paced-sender.js';
import { MAX_QUEUED_SSE_BYTES, SseSource, sseSourceResponse } from './sse-source.js';

/** No `connection` header: Function Compute forbids a function to set one (docs/protocol.md §1.5). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

/** Writes records to the caller, in order; one call becomes one chunk. */
/** The most characters of records joined into one write. */
const SEND_CHUNK_CHARS = 256 * 1024;

export type SendRecords = (records: readonly LogRecord[]) => void;

/**
 * `flow`: how far the reader is behind what was sent, for a body with much to send (a reattach's
 * catch-up) that sends it a slice at a time (lib/core/reattach/paced-sender.ts).
 */
export type StreamBody = (send: SendRecords, signal: AbortSignal, flow: StreamFlow) => Promise<void>;

export interface SseOptions {
  heartbeatMs: number;
  logger: Logger;
  /** The request's own signal (the Node shell aborts it when the socket closes). */
  requestSignal: AbortSignal;
}

/** Shared by every stream: encoding holds no state. */
const encoder = new TextEncoder();

/**
 * Per write the stream only notes the time; the one heartbeat timer, when it fires, either writes
 * the heartbeat (the stream was quiet for `heartbeatMs`) or waits out the rest of the interval
 * counted from that last write (docs/protocol.md §4.2) — no timer is cleared and made again per
 * record.
 */
export function sseResponse(body: StreamBody, options: SseOptions): Response {
  const { heartbeatMs, requestSignal } = options;
  // The body's signal: aborted when the caller goes away or the response body is cancelled. One
  // controller that the request's abort is forwarded to (and the listener removed when the body
  // ends), not AbortSignal.any: an idle stream holds less (docs/architecture.md §2).
  const aborting = new AbortController();
  const forwardAbort = (): void => aborting.abort(requestSignal.reason);
  if (requestSignal.aborted) forwardAbort();
  else requestSignal.addEventListener('abort', forwardAbort, { once: true });
  let heartbeat: ReturnType<typeof setTimeout> | undefined;
  let lastWrite = performance.now();
  // The reader cancelled the body, or stopped reading while its queue passed its bound
  // (sse-source.ts): the body's signal aborts and writes stop — the disconnect rule applies
  // (docs/protocol.md §6.8). After a client disconnect the socket is gone and the shell discards
  // what is written; after a shutdown abort the client is still there and receives the body's
  // terminal event.
  const source = new SseSource((why) => {
    clearTimeout(heartbeat);
    if (why === 'unread') options.logger.warn('SSE reader stopped reading; treated as disconnected', { queuedBytesOver: MAX_QUEUED_SSE_BYTES });
    aborting.abort();
  });
  const write = (text: string): void => {
    if (!source.open) return;
    source.push(encoder.encode(text));
    lastWrite = performance.now();
  };
  // Records go out joined in chunks of at most SEND_CHUNK_CHARS (one larger record alone): a socket takes
  // one chunk however large, so a catch-up sent as one string would never be queued and a reader that
  // stopped reading never counted as gone (sse-source.ts).
  const send: SendRecords = (records) => {
    let chunk = '';
    for (const record of records) {
      if (chunk.length > 0 && chunk.length + record.sse.length > SEND_CHUNK_CHARS) {
        write(chunk);
        chunk = '';
      }
      chunk += record.sse;
    }
    if (chunk.length > 0) write(chunk);
  };
  const beat = (): void => {
    // A timer may fire a fraction of a millisecond before its delay by performance.now().
    const quiet = performance.now() - lastWrite >= heartbeatMs - 1;
    if (quiet) write(': heartbeat\n\n');
    if (source.open) heartbeat = setTimeout(beat, quiet ? heartbeatMs : heartbeatMs - (performance.now() - lastWrite));
  };
  heartbeat = setTimeout(beat, heartbeatMs);
  const flow: StreamFlow = { backlogged: () => source.backlogged, drained: () => source.whenDrained(), maxWaitingBytes: MAX_QUEUED_SSE_BYTES };
  body(send, aborting.signal, flow)
    .catch((error: unknown) => options.logger.error('stream failed unexpectedly', { error: errorFields(error) }))
    .finally(() => {
      clearTimeout(heartbeat);
      requestSignal.removeEventListener('abort', forwardAbort);
      source.end();
    });
  return sseSourceResponse(source, { status: 200, headers: SSE_HEADERS });
}

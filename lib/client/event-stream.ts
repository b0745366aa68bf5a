/**
 * Reads one SSE response of the adapter to its end through @ag-ui/client's own transport and parser
 * (`runHttpRequest`, `transformHttpEventStream`), handing each event over with its SSE id
 * (docs/protocol.md §4.12). The body is read through ending-fetch.ts (a break ends it, and is
 * kept) and event-id-tap.ts (pairs each event with its id). A failure is returned, not thrown:
 * whoever reads decides what it means (reattach, report, stop).
 */
import { type BaseEvent, runHttpRequest, transformHttpEventStream } from '@ag-ui/client';
import type { FetchFn } from './connection.js';
import { endingFetch } from './ending-fetch.js';
import { EventIdTap } from './event-id-tap.js';

/** What ended a stream short of its terminal event: an HTTP error (with `status` and the parsed `payload`), a network failure, a break. */
export interface Streamed {
  thrown?: unknown;
}

/** Each event of a stream, with its SSE id when it had one. Answering `true` stops reading. */
export type OnEvent = (event: BaseEvent, id: string | undefined) => unknown;

/** The fetch a stream uses: one that ends instead of erroring, read through an id tap. */
export function tappedFetch(underlying?: FetchFn): { fetch: FetchFn; tap: EventIdTap; broken: () => unknown } {
  const connection = endingFetch(underlying);
  const tap = new EventIdTap();
  return { fetch: async (url, init) => tap.wrap(await connection.fetch(url, init)), tap, broken: () => connection.broken };
}

/**
 * Opens the response with `open` (given the tapped fetch) and reads it. `signal` stops the read
 * (the caller's own stop: no failure). An answer that is not 2xx fails with @ag-ui/client's error,
 * which carries `status` and `payload` (the adapter's JSON error envelope, docs/protocol.md §2.2).
 */
export function readEventStream(open: (fetch: FetchFn) => Promise<Response>, options: { fetch?: FetchFn | undefined; signal: AbortSignal }, onEvent: OnEvent): Promise<Streamed> {
  const connection = tappedFetch(options.fetch);
  const events = transformHttpEventStream(runHttpRequest(() => open(connection.fetch)));
  return new Promise((resolve) => {
    let settled = false;
    let subscription: { unsubscribe(): void } | undefined;
    const done = (thrown: unknown) => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', stop);
      subscription?.unsubscribe();
      thrown ??= options.signal.aborted ? undefined : connection.broken();
      resolve(thrown === undefined ? {} : { thrown });
    };
    const stop = () => done(undefined);
    if (options.signal.aborted) return stop();
    options.signal.addEventListener('abort', stop, { once: true });
    subscription = events.subscribe({
      next: (event: BaseEvent) => {
        if (settled) return;
        if (onEvent(event, connection.tap.idOf(event)) === true) done(undefined);
      },
      error: (error: unknown) => done(options.signal.aborted ? undefined : error),
      complete: () => done(undefined),
    });
    if (settled) subscription.unsubscribe();
  });
}

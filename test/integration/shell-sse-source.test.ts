/**
 * The Node shell writes an SSE source straight to its socket (lib/adapters/node-server/node-server.ts,
 * lib/http/sse-source.ts): a client that reads slowly gets every record once and in order — the
 * socket's backpressure holds the source back, nothing is dropped — and the request stays in
 * flight until the source ends, also after the client left, and the client's leaving aborts the
 * signal the app got (docs/protocol.md §4.2, §6.8; docs/architecture.md §6).
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/adapters/logger.js';
import { InFlightRequests, listen, type RunningServer } from '../../lib/adapters/node-server/node-server.js';
import type { App } from '../../lib/http/app.js';
import { MAX_QUEUED_SSE_BYTES, SseSource, sseSourceResponse } from '../../lib/http/sse-source.js';

let server: RunningServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An app whose every answer is the given source; `signals` collects the signal each request came with. */
function appOf(source: () => SseSource, signals: AbortSignal[] = []): App {
  return {
    fetch: async (_request, signal) => {
      if (signal) signals.push(signal);
      return sseSourceResponse(source(), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    },
  };
}

describe('the Node shell and an SSE source', () => {
  it('gives a slow reader every record in order: a full socket holds the source back, and nothing is lost', async () => {
    const filler = 'x'.repeat(64 * 1024);
    // As much as the source may hold for a reader that does not read yet, and no more (sse-source.ts).
    const records = Math.floor(MAX_QUEUED_SSE_BYTES / (filler.length + 16));
    const source = new SseSource(() => undefined);
    server = await listen(
      appOf(() => source),
      silentLogger,
      '127.0.0.1',
      0,
    );
    const { port } = server.server.address() as AddressInfo;
    const received = new Promise<string>((resolve, reject) => {
      const call = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (response) => {
        response.pause();
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
        // The reader starts late: by then the socket is full and the source holds the rest.
        setTimeout(() => response.resume(), 200);
      });
      call.on('error', reject);
      call.end();
    });
    await sleep(50);
    const encoder = new TextEncoder();
    for (let index = 0; index < records; index += 1) source.push(encoder.encode(`data: ${index} ${filler}\n\n`));
    source.end();
    const body = await received;
    const numbers = body
      .split('\n\n')
      .filter(Boolean)
      .map((record) => Number(record.split(' ')[1]));
    expect(numbers).toEqual(Array.from({ length: records }, (_, index) => index));
    await server.inFlight.idle();
    expect(server.inFlight.size).toBe(0);
  });

  it('aborts the signal the app got when the client leaves, and keeps the request in flight until the source ends', async () => {
    const signals: AbortSignal[] = [];
    const source = new SseSource(() => undefined);
    server = await listen(
      appOf(() => source, signals),
      silentLogger,
      '127.0.0.1',
      0,
    );
    const client = new AbortController();
    const response = await fetch(`${server.url}/`, { method: 'POST', signal: client.signal });
    source.push(new TextEncoder().encode('data: 1\n\n'));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    client.abort();
    await new Promise<void>((resolve) => {
      if (signals[0]?.aborted) resolve();
      else signals[0]?.addEventListener('abort', () => resolve(), { once: true });
    });
    // The run behind it still writes (dropped) and cleans up; only its end lets the request go.
    source.push(new TextEncoder().encode('data: 2\n\n'));
    await sleep(20);
    expect(server.inFlight.size).toBe(1);
    source.end();
    await server.inFlight.idle();
    expect(server.inFlight.size).toBe(0);
  });

  it('lets a client that stops reading go once its queue passes the bound: its connection is closed, the app’s signal aborts, the request ends with the source', async () => {
    const signals: AbortSignal[] = [];
    const gone: string[] = [];
    const source = new SseSource((why) => gone.push(why), 1024 * 1024);
    server = await listen(
      appOf(() => source, signals),
      silentLogger,
      '127.0.0.1',
      0,
    );
    const { port } = server.server.address() as AddressInfo;
    const call = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (response) => response.pause());
    call.on('error', () => undefined);
    call.end();
    try {
      await sleep(50);
      const chunk = new TextEncoder().encode(`data: ${'x'.repeat(64 * 1024)}\n\n`);
      // Far more than the socket's buffers and the bound together; the client never reads.
      for (let index = 0; index < 400 && source.open; index += 1) {
        source.push(chunk);
        await sleep(0);
      }
      expect(source.open).toBe(false);
      expect(gone).toEqual(['unread']);
      // The shell let the connection go: the signal the app got aborted, as for a client that left.
      await new Promise<void>((resolve) => {
        if (signals[0]?.aborted) resolve();
        else signals[0]?.addEventListener('abort', () => resolve(), { once: true });
      });
      // The run cleans up, then ends the source: only then does the request leave the in-flight set.
      expect(server.inFlight.size).toBe(1);
      source.end();
      await server.inFlight.idle();
      expect(server.inFlight.size).toBe(0);
    } finally {
      call.destroy();
    }
  });

  it('the in-flight set holds only controllers: exempt requests are known by their signal', () => {
    const inFlight = new InFlightRequests();
    const kept = new AbortController();
    const other = new AbortController();
    inFlight.track(kept, new Promise(() => undefined));
    inFlight.track(other, new Promise(() => undefined));
    const exempt = (signal: AbortSignal) => signal === kept.signal;
    expect(inFlight.sizeExcept(exempt)).toBe(1);
    expect(inFlight.abortAll(new Error('stop'), exempt)).toBe(1);
    expect([kept.signal.aborted, other.signal.aborted]).toEqual([false, true]);
  });
});

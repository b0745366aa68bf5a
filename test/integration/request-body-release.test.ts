/**
 * A request's body (lib/adapters/node-server/request-body.ts) lives as long as its request — for a
 * live stream, the run's whole life — but once the body has been read to its end it lets go of the
 * Web stream it handed the app, so an idle run does not hold it (docs/architecture.md §9.6).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestBody } from '../../lib/adapters/node-server/request-body.js';
import { collectGarbage } from '../support/collect-garbage.js';

describe('a request body read to its end', () => {
  let server: Server;
  let url: string;
  /** Kept alive, as a live stream keeps its request's body. */
  const bodies: RequestBody[] = [];
  const streams: Array<WeakRef<ReadableStream<Uint8Array>>> = [];
  const texts: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const body = new RequestBody(req);
      bodies.push(body);
      const stream = body.stream;
      streams.push(new WeakRef(stream));
      void new Response(stream).text().then((text) => {
        texts.push(text);
        // The answer stays open, as a live stream's does.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': open\n\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is read whole, and its Web stream is released while the request stays open', async () => {
    const controller = new AbortController();
    const response = await fetch(url, { method: 'POST', body: 'x'.repeat(100_000), signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    expect(texts).toEqual(['x'.repeat(100_000)]);
    await collectGarbage();
    expect(bodies).toHaveLength(1);
    expect(streams[0]?.deref()).toBeUndefined();
    controller.abort();
  });
});

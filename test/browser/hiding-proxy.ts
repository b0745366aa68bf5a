/**
 * A TCP proxy in front of the adapter that keeps the adapter's side of a connection open when the
 * browser's side goes away — as a load balancer that does not pass a client's abort on (nginx's
 * `proxy_ignore_client_abort`), or a network path that loses the client's FIN, behaves. The
 * adapter then never learns its caller left: the run goes on (docs/protocol.md §6.8 never
 * applies), its events are read and dropped here, and the page has to reattach through the
 * subscribe route (§6.14) to see the rest. This is the fault a dropped connection or a reload
 * produces in the field; on a direct loopback connection the adapter sees every disconnect.
 *
 * `cutStreams()` drops the browser's side of every connection that is carrying an event stream
 * (a reset, as a network cut looks to the browser).
 */
import { connect, createServer, type Socket } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket;
  /** The upstream is sending an SSE body that has not ended yet. */
  streaming: boolean;
}

export interface HidingProxy {
  url: string;
  /** Resets the browser's side of every connection carrying an event stream; returns how many. */
  cutStreams(): number;
  close(): Promise<void>;
}

export async function startHidingProxy(target: string): Promise<HidingProxy> {
  const { hostname, port } = new URL(target);
  const pairs = new Set<Pair>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    const pair: Pair = { client, upstream, streaming: false };
    pairs.add(pair);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      const text = chunk.toString('latin1');
      if (/content-type: text\/event-stream/i.test(text)) pair.streaming = true;
      // The last chunk of a chunked body: the stream is over, the connection may carry another request.
      if (text.endsWith('0\r\n\r\n')) pair.streaming = false;
      // Once the browser's side is gone the adapter's bytes are read and dropped: it sees a reader.
      if (!client.destroyed) client.write(chunk);
    });
    // The browser left: the adapter's side stays open until the adapter ends it.
    client.on('close', () => undefined);
    client.on('error', () => undefined);
    upstream.on('close', () => {
      pairs.delete(pair);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cutStreams: () => {
      let cut = 0;
      for (const pair of pairs) {
        if (!pair.streaming || pair.client.destroyed) continue;
        pair.client.resetAndDestroy();
        cut += 1;
      }
      return cut;
    },
    close: async () => {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * What the node:http emulators (OSS, the FC API) share (docs/architecture.md §9): reading a request
 * body under a size cap, and a server that listens on loopback (or a chosen host) and closes with
 * every connection it holds.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The whole body; past `maxBytes` the rest is read and dropped, and the read fails with `tooLarge()`. */
export function readBoundedBody(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('end', () => (size > maxBytes ? reject(tooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

export interface ListeningServer {
  port: number;
  /** Stops listening and closes every connection at once. */
  close(): Promise<void>;
}

/** Serves each request with `serve`; a request it fails on loses its connection. */
export async function listenHttp(serve: (req: IncomingMessage, res: ServerResponse) => Promise<void>, host = '127.0.0.1', port = 0): Promise<ListeningServer> {
  const server = createServer((req, res) => {
    serve(req, res).catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * The Node HTTP shell around the Web-standard app: converts each socket request to a `Request`,
 * streams the `Response` back with a flush per chunk, and aborts the request's signal when the
 * client goes away (detected on the response's 'close', as Node 20 requires).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { App } from '../http/app.js';
import type { Logger } from '../core/ports.js';

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((item) => headers.append(name, item));
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    signal,
    duplex: 'half',
  } as RequestInit);
}

async function writeResponse(response: Response, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  // Answered before the body was read (413, 401…): the rest of the body is never read, so the
  // connection cannot carry another request.
  if (!req.complete) res.setHeader('connection', 'close');
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  res.end();
}

export function createNodeHandler(app: App, logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client disconnected'));
    });
    app
      .fetch(toRequest(req, controller.signal))
      .then((response) => writeResponse(response, req, res))
      .catch((error: unknown) => {
        logger.error('response failed', { error: String(error) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"INTERNAL_ERROR","message":"An internal error occurred."}}');
        else res.destroy();
      });
  };
}

export function listen(app: App, logger: Logger, host: string, port: number): Promise<RunningServer> {
  const server = createServer(createNodeHandler(app, logger));
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

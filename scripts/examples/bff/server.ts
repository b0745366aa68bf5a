/**
 * A backend-for-frontend (BFF) for browsers — the production shape docs/deploy.md ("Browsers")
 * recommends: the browser's AG-UI client talks to this server without any token; this server holds
 * the adapter's bearer token and forwards each run with the official @ag-ui/client HttpAgent, then
 * streams the events back with the official @ag-ui/encoder. The token never reaches the browser, and
 * the adapter needs no CORS at all when the BFF is served from the web app's own origin.
 *
 * This is what CopilotKit's runtime does when it holds an HttpAgent; @copilotkit/runtime itself is
 * not used here because it pulls in a GraphQL server, LLM SDKs, LangChain peers, telemetry and its
 * own older @ag-ui/client (0.0.x) — far more than this shape needs (docs/deploy.md says more).
 *
 * A real BFF authenticates its own users first (session cookie, SSO…) and decides which threads
 * they may touch; this example accepts every caller and is meant for loopback.
 *
 *   IAC_CODE_AGUI_URL=https://agui.example.com IAC_CODE_AGUI_AUTH_TOKEN=… npx tsx scripts/examples/bff/server.ts
 *   → POST http://127.0.0.1:8787/ with a RunAgentInput, as the browser's HttpAgent does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BaseEvent, HttpAgent, type RunAgentInput } from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';

export interface BffOptions {
  /** The adapter's base URL (FC trigger URL or custom domain). */
  adapterUrl: string;
  /** IAC_CODE_AGUI_AUTH_TOKEN: stays in this process. */
  adapterToken: string;
  host?: string;
  port?: number;
}

export interface RunningBff {
  url: string;
  close(): Promise<void>;
}

/** The adapter's own limit for POST / (docs/protocol.md §1.4). */
const MAX_BODY_BYTES = 12 * 1024 * 1024;

/**
 * The body as text, or undefined when it is over the limit. An oversized body is still read to its
 * end (and dropped) before the 413 goes out: destroying the request would reset the connection,
 * and the caller would see that instead of the answer.
 */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => done(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

async function forwardRun(req: IncomingMessage, res: ServerResponse, options: BffOptions): Promise<void> {
  const raw = await readBody(req);
  if (raw === undefined) return json(res, 413, { error: { code: 'REQUEST_TOO_LARGE', message: 'The request body is too large.' } });
  let input: RunAgentInput;
  try {
    input = JSON.parse(raw) as RunAgentInput;
  } catch {
    return json(res, 400, { error: { code: 'INVALID_JSON', message: 'The request body is not valid JSON.' } });
  }
  // The browser's own headers (cookies, any Authorization) are never forwarded: only the BFF's token is.
  const agent = new HttpAgent({ url: `${options.adapterUrl.replace(/\/+$/, '')}/`, headers: { authorization: `Bearer ${options.adapterToken}` } });
  const encoder = new EventEncoder({ accept: 'text/event-stream' });
  let started = false;
  const subscription = agent.run(input).subscribe({
    next: (event: BaseEvent) => {
      if (!started) {
        started = true;
        res.writeHead(200, { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      }
      res.write(encoder.encode(event));
    },
    error: (error: Error & { status?: number; payload?: unknown }) => {
      // An answer before the stream (400, 409, 503…) reaches the browser as the adapter gave it.
      if (!started && typeof error.status === 'number') return json(res, error.status, error.payload);
      if (!started) return json(res, 502, { error: { code: 'BAD_GATEWAY', message: 'The agent service could not be reached, or the client refused the input.' } });
      res.end();
    },
    complete: () => res.end(),
  });
  // The browser left: unsubscribing aborts the adapter request, which applies its disconnect rule.
  res.on('close', () => subscription.unsubscribe());
}

export function startBff(options: BffOptions): Promise<RunningBff> {
  const server = createServer((req, res) => {
    // An absolute-form target such as `http://[/` is no URL: refused here, never thrown from the listener.
    const path = URL.canParse(req.url ?? '/', 'http://bff.local') ? new URL(req.url ?? '/', 'http://bff.local').pathname : undefined;
    if (path === undefined) return json(res, 400, { error: { code: 'INVALID_INPUT', message: 'The request target is not a URL.' } });
    if (path === '/' && req.method === 'POST') {
      forwardRun(req, res, options).catch(() => {
        if (!res.headersSent) json(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred.' } });
        else res.destroy();
      });
      return;
    }
    json(res, path === '/' ? 405 : 404, { error: { code: path === '/' ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND', message: 'Use POST /.' } });
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', () => {
      const { address, port } = server.address() as AddressInfo;
      done({
        url: `http://${address}:${port}`,
        close: () =>
          new Promise<void>((closed) => {
            server.close(() => closed());
            server.closeAllConnections();
          }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const adapterUrl = process.env['IAC_CODE_AGUI_URL'];
  const adapterToken = process.env['IAC_CODE_AGUI_AUTH_TOKEN'];
  if (!adapterUrl || !adapterToken) {
    process.stderr.write('set IAC_CODE_AGUI_URL (the adapter) and IAC_CODE_AGUI_AUTH_TOKEN (its bearer token)\n');
    process.exit(1);
  }
  const bff = await startBff({ adapterUrl, adapterToken, port: Number(process.env['BFF_PORT'] ?? 8787) });
  process.stdout.write(`BFF on ${bff.url}/ → ${adapterUrl} (the browser sends no token)\n`);
}

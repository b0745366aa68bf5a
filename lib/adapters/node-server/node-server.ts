/**
 * The Node HTTP shell around the Web-standard app: converts each socket request to a `Request`,
 * streams the `Response` back with a flush per chunk, and aborts the request's signal when the
 * client goes away (detected on the response's 'close', as Node 20 requires).
 *
 * It also keeps the set of requests in flight, so a function instance can shut down gracefully
 * (lib/adapters/node-server/graceful-shutdown.ts): a request stays in flight until its response body ended —
 * and a run's SSE body ends only after the run's clean-up (disconnect policy, lease release)
 * finished (lib/http/sse.ts), even when the client left long before.
 *
 * What it adds on the wire (docs/protocol.md §1.4, §1.5): the request body is read only when the
 * app reads it (request-body.ts, which also answers `Expect: 100-continue` at that moment); an
 * answer given before the body fully arrived is followed by a bounded drain instead of a reset
 * (early-answer.ts); every response carries `x-content-type-options: nosniff` and none a
 * `connection` header; Node's own deadlines on receiving a request back the app's 408, and its own
 * refusals are written as JSON envelopes too (client-error.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorFields } from '../../core/error-fields.js';
import type { Logger } from '../../core/ports.js';
import type { App, PlainResponse } from '../../http/app.js';
import { DEFAULT_BODY_TIMEOUT_MS } from '../../http/read-body.js';
import type { SseSource } from '../../http/sse-source.js';
import { answerClientError, answerConnect, EXPECTATION_FAILED, HOST_REQUIRED, INTERNAL, MALFORMED, type ShellAnswer, shellAnswerBody } from './client-error.js';
import { discardRestOfBody } from './early-answer.js';
import { RequestBody } from './request-body.js';

/**
 * Requests whose response (and, for a run, its clean-up) has not finished yet, each by the abort
 * controller of its signal. Only the controller is kept, not the Web `Request`: the app takes the
 * shell's signal itself (`App.fetch`'s second argument), so the Request and its body stream can go
 * as soon as the body is read — an idle live stream holds less (docs/architecture.md §6).
 */
/** Requests a drain neither waits for nor aborts (graceful-shutdown.ts DrainScope), known by the signal the app got. */
export type Exempt = (signal: AbortSignal) => boolean;
const none: Exempt = () => false;

export class InFlightRequests {
  private readonly live = new Set<AbortController>();
  private waiters: Array<{ exempt: Exempt; wake: () => void }> = [];

  get size(): number {
    return this.live.size;
  }

  track(controller: AbortController, work: Promise<unknown>): void {
    this.live.add(controller);
    void work.finally(() => {
      this.live.delete(controller);
      this.wakeWaiters();
    });
  }

  /** How many are live, not counting the exempt ones (FC's /pre-stop requests that drain the others). */
  sizeExcept(exempt: Exempt = none): number {
    let size = 0;
    for (const controller of this.live) if (!exempt(controller.signal)) size += 1;
    return size;
  }

  /** Aborts every live request's signal but the exempt ones (the app then runs its disconnect policy); returns how many. */
  abortAll(reason: Error, exempt: Exempt = none): number {
    let aborted = 0;
    for (const controller of this.live) {
      if (controller.signal.aborted || exempt(controller.signal)) continue;
      controller.abort(reason);
      aborted += 1;
    }
    return aborted;
  }

  /** Resolves once nothing is in flight but exempt requests. */
  idle(exempt: Exempt = none): Promise<void> {
    if (this.sizeExcept(exempt) === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ exempt, wake: resolve }));
  }

  private wakeWaiters(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (this.sizeExcept(waiter.exempt) === 0) waiter.wake();
      else this.waiters.push(waiter);
    }
  }
}

export interface RunningServer {
  server: Server;
  url: string;
  inFlight: InFlightRequests;
  /** Stops accepting connections; requests in flight go on, and every later response closes its connection. */
  stopAccepting(): void;
  /** Closes the server and every connection at once (in-flight runs are not waited for). */
  close(): Promise<void>;
  /** Tells the app the instance stops (App.stopping): its resumable runs hand themselves over. */
  stopping(): void;
}

/**
 * The path and query the app routes by (docs/protocol.md §1.1), from a request target in origin-form
 * (`/a?b`) or absolute-form (`http://host/a?b`, which RFC 9112 §3.2.2 requires a server to accept);
 * undefined for any other form (`*`, an authority) or a target that is no URL.
 */
function originForm(target: string): string | undefined {
  if (target.startsWith('/')) return target;
  if (!/^https?:\/\//i.test(target)) return undefined;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return undefined;
  }
}

/** An HTTP/1.1 request without a Host header, which HTTP/1.1 forbids (RFC 9112 §3.2). */
function lacksHost(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined;
}

/**
 * The socket's request as the Web `Request` the app takes. The app routes by path alone (docs/protocol.md
 * §1.1), so the URL is built on a fixed origin: no Host header can make it unparsable. Throws for what
 * has no Web form at all — a request target that is no URL, or a method fetch forbids (TRACE, TRACK).
 */
function toRequest(req: IncomingMessage, path: string | undefined, body: RequestBody, signal: AbortSignal): Request {
  if (path === undefined) throw new Error('the request target is neither a path nor an absolute URL');
  const url = new URL(`http://localhost${path}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    body: hasBody ? body.stream : undefined,
    signal,
    duplex: 'half',
  } as RequestInit);
}

/**
 * The push-style source behind the app's SSE responses (lib/http/sse-source.ts SSE_SOURCE_KEY), found
 * by its registered symbol: importing that module here would pull it into the start-up code.
 */
const SSE_SOURCE = Symbol.for('iac-code-agui.sse-source');
const sseSourceOf = (response: Response): SseSource | undefined => (response as unknown as { [SSE_SOURCE]?: SseSource })[SSE_SOURCE];

/** On every response, the app's own and the shell's fallbacks alike (docs/protocol.md §1.5). */
const NOSNIFF = 'x-content-type-options';

/**
 * Resolves when `res` can take more (or is gone). Both listeners go once either fires: a long
 * stream that meets backpressure often must not pile up 'close' listeners on its response.
 */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

async function writeResponse(response: Response, req: IncomingMessage, res: ServerResponse, body: RequestBody, closeConnection: boolean): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  if (!res.hasHeader(NOSNIFF)) res.setHeader(NOSNIFF, 'nosniff');
  // Function Compute forbids a function to set a `connection` header, and Node writes one by
  // default; removing it keeps Node from writing it. Closing is decided on the socket instead.
  res.removeHeader('connection');
  // Answered before the body fully arrived (401, 413, 408…): read and drop the rest within bounds
  // before closing, so the client reads this answer instead of a reset (early-answer.ts).
  if (!req.complete) discardRestOfBody(req, res, body, { closeAfter: closeConnection, stalled: response.status === 408 });
  // While shutting down, no connection is reused: Node closes it once the response has ended.
  else if (closeConnection) res.shouldKeepAlive = false;
  if (!response.body || req.method === 'HEAD') {
    await response.body?.cancel();
    res.end();
    return;
  }
  res.flushHeaders();
  const source = sseSourceOf(response);
  if (source) return writeSource(source, res);
  const reader = response.body.getReader();
  // After the client left, the body is still read to its end but nothing is written: the run
  // behind an SSE body drops its events once the request signal aborted, and ends the body only
  // when its clean-up finished — which is what a graceful shutdown waits for.
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (res.destroyed || res.writableEnded) continue;
    if (!res.write(value)) await drained(res);
  }
  if (!res.destroyed) res.end();
}

/**
 * An SSE body written straight from the app's source to the socket (lib/http/sse-source.ts): no Web
 * stream between them, so an idle live stream holds less (docs/architecture.md §2). The same rules as
 * the read loop above: a full socket holds the source's next chunks until it drains; after the
 * client left, what the run still writes is dropped, and the response ends — the request leaves
 * the in-flight set — only when the source ends, after the run's clean-up. A client that stops
 * reading while its queue passes the source's bound is let go as if it had left (sse-source.ts).
 */
function writeSource(source: SseSource, res: ServerResponse): Promise<void> {
  return new Promise<void>((ended) => {
    source.attach({
      write(chunk) {
        if (res.destroyed || res.writableEnded) return true;
        if (res.write(chunk)) return true;
        void drained(res).then(() => source.resume());
        return false;
      },
      end() {
        if (!res.destroyed) res.end();
        ended();
      },
      // A reader that stopped reading past the source's bound is let go like one that left: the
      // socket closes, the request's signal aborts, and the run's end still ends this response.
      abandon() {
        res.destroy();
      },
    });
  });
}

/**
 * An answer the app gave as plain data (`app.plain`, GET /health): written without the Fetch API,
 * with the same header rules as writeResponse — nosniff, no `connection` header, no reuse while
 * shutting down.
 */
function writePlain(plain: PlainResponse, res: ServerResponse, closeConnection: boolean): void {
  res.statusCode = plain.status;
  for (const [name, value] of Object.entries(plain.headers)) res.setHeader(name, value);
  if (!res.hasHeader(NOSNIFF)) res.setHeader(NOSNIFF, 'nosniff');
  res.removeHeader('connection');
  if (closeConnection) res.shouldKeepAlive = false;
  res.end(plain.body);
}

/**
 * The shell's own answers (client-error.ts), written on the response: 500 when the app failed before
 * any header was sent (a bug; logged), 400 or 417 for a request the app cannot be given at all.
 */
function writeShellAnswer(req: IncomingMessage, res: ServerResponse, body: RequestBody, answer: ShellAnswer): void {
  res.statusCode = answer.status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader(NOSNIFF, 'nosniff');
  res.removeHeader('connection');
  if (!req.complete) discardRestOfBody(req, res, body, { closeAfter: false, stalled: false });
  res.end(shellAnswerBody(answer));
}

export interface NodeHandlerOptions {
  /**
   * The request carries `Expect: 100-continue` and reached the server's 'checkContinue' event:
   * "100 Continue" goes out when the app first reads the body — after its header checks passed.
   */
  continueOnRead?: boolean;
  /** The request carries an `Expect` other than `100-continue` (the server's 'checkExpectation' event): 417. */
  unmetExpectation?: boolean;
}

export function createNodeHandler(app: App, logger: Logger, inFlight = new InFlightRequests(), isDraining: () => boolean = () => false) {
  return (req: IncomingMessage, res: ServerResponse, options: NodeHandlerOptions = {}): void => {
    const refusal = options.unmetExpectation ? EXPECTATION_FAILED : lacksHost(req) ? HOST_REQUIRED : undefined;
    const path = refusal ? undefined : originForm(req.url ?? '/');
    // GET /health needs no Request (app.ts `plain`): answered without loading Node's fetch.
    const plain = path === undefined ? undefined : app.plain?.(req.method ?? 'GET', path);
    if (plain) {
      writePlain(plain, res, isDraining());
      return;
    }
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client disconnected'));
    });
    // The shell's own lines carry the FC request id too (the app's lines already do, docs/architecture.md §5.5).
    const requestId = req.headers['x-fc-request-id'];
    const requestLogger = typeof requestId === 'string' ? logger.child({ requestId }) : logger;
    const body = new RequestBody(req, () => {
      if (options.continueOnRead && !res.headersSent) res.writeContinue();
    });
    if (refusal) {
      requestLogger.info('request refused by the shell', { method: req.method, status: refusal.status, reason: refusal.key });
      writeShellAnswer(req, res, body, refusal);
      return;
    }
    let request: Request;
    try {
      request = toRequest(req, path, body, controller.signal);
    } catch (error) {
      // Thrown here it would reach the server's 'request' event and end the process.
      requestLogger.info('request refused: it has no Web form', { method: req.method, error: errorFields(error) });
      writeShellAnswer(req, res, body, MALFORMED);
      return;
    }
    // The signal goes to the app directly too: its live stream follows the shell's own signal, which
    // this shell keeps alive (InFlightRequests), not the Request's (docs/architecture.md §6).
    const work = app
      .fetch(request, controller.signal)
      .then((response) => writeResponse(response, req, res, body, isDraining()))
      .catch((error: unknown) => {
        requestLogger.error('response failed', { error: errorFields(error) });
        if (!res.headersSent) writeShellAnswer(req, res, body, INTERNAL);
        else res.destroy();
      });
    inFlight.track(controller, work);
  };
}

/** Node's own limits on receiving a request (docs/protocol.md §1.4). */
export interface ListenOptions {
  /** IAC_CODE_AGUI_BODY_TIMEOUT_MS: the app answers 408 when a body takes longer (lib/http/read-body.ts). */
  bodyTimeoutMs?: number;
}

/** Node's own request deadline trails the app's, so the app's JSON 408 is what a client sees. */
const NODE_DEADLINE_MARGIN_MS = 10_000;

export function listen(app: App, logger: Logger, host: string, port: number, options: ListenOptions = {}): Promise<RunningServer> {
  const inFlight = new InFlightRequests();
  let draining = false;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const handle = createNodeHandler(app, logger, inFlight, () => draining);
  const server = createServer({
    // Headers must arrive within the body's budget; the whole request (headers and body) is cut
    // by Node itself only as a backstop behind the app's 408. Both end when the request has been
    // received, so a long SSE response is never cut by them.
    headersTimeout: bodyTimeoutMs,
    requestTimeout: bodyTimeoutMs + NODE_DEADLINE_MARGIN_MS,
    connectionsCheckingInterval: 1_000,
    // Node's own refusal of an HTTP/1.1 request without Host is an empty 400; the handler answers
    // it with the envelope instead (docs/protocol.md §1.5).
    requireHostHeader: false,
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => handle(req, res));
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => handle(req, res, { continueOnRead: true }));
  // Without these listeners Node answers an unknown Expect with an empty 417 and closes a CONNECT's
  // socket without a word.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => handle(req, res, { unmetExpectation: true }));
  server.on('connect', answerConnect);
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        inFlight,
        stopAccepting: () => {
          if (draining) return;
          draining = true;
          // Node ≥ 19 also closes the idle keep-alive connections here; busy ones finish first.
          server.close();
        },
        stopping: () => app.stopping?.(),
        close: () =>
          new Promise<void>((done) => {
            draining = true;
            if (server.listening) server.close(() => done());
            else done();
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * The fetch behind the SDK's two streaming calls (SendStreamingMessage, SubscribeToTask), given to
 * it through its documented `fetchImpl` option (sdk-kernel.ts): the request goes out over
 * `node:http` (or `node:https`), and the kernel's SSE answer is read from the socket's response
 * directly into the history trim (sse-history-trim.ts). Node's fetch would put its own layers
 * between them for the whole life of a run — a Web body stream fed from an async iterator over a
 * Node stream, the request's own body stream, the fetch controller — and an idle run would hold all
 * of them (docs/architecture.md §4.1; docs/architecture.md §9.6 counts what an idle stream holds).
 * The SDK still frames the JSON-RPC request and parses the SSE; every other kernel call keeps
 * Node's fetch.
 *
 * What the SDK relies on is kept: a `Response` with the kernel's status, status text and headers;
 * a non-SSE or failed answer read whole (its body is an error envelope); the caller's signal aborts
 * the request before or during the answer (during it, events Node had already buffered may still be
 * read before the read fails — as with fetch, whose SDK reader keeps what it buffered; the run checks
 * its signal once the stream is done, docs/protocol.md §6.8); and, like every kernel call, no
 * timeout of its own (docs/protocol.md §7.1).
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { onceUntilFailure } from '../../core/once-until-failure.js';
import { type ByteReader, trimmedSseBody } from './sse-history-trim.js';

/** Loaded by the first call to an `https:` kernel only: TLS costs the first run on a plain-HTTP kernel nothing (docs/architecture.md §6.3). */
const https = onceUntilFailure(() => import('node:https'));

/** What the SDK's JSON-RPC transport passes to its `fetchImpl` for a call (a POST with a JSON body). */
export interface EventStreamInit {
  method?: string;
  headers: Headers;
  body?: string;
  signal?: AbortSignal | null;
}

/** The response's bytes, one chunk per `read`, pulled only as fast as the trim reads them. */
class MessageBytes implements ByteReader {
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: Error | undefined;

  constructor(private readonly message: IncomingMessage) {
    const wake = (): void => {
      const waiting = this.wake;
      this.wake = undefined;
      waiting?.();
    };
    // A 'readable' listener keeps the message paused: Node reads from the socket only up to its
    // buffer's high-water mark until `read()` takes what is buffered (backpressure, docs/protocol.md §4.2).
    // `on`, not `once`: each fires at most once anyway, and `once` wraps every listener in a
    // function of its own that the message holds for the stream's life.
    message.on('readable', wake);
    message.on('end', () => {
      this.ended = true;
      wake();
    });
    message.on('error', (error) => {
      this.failure = error;
      wake();
    });
    message.on('close', () => {
      // Closed before its end without an 'error' of its own: the connection broke mid-answer.
      if (!this.ended) this.failure ??= new Error('the kernel closed its event stream before it ended');
      wake();
    });
  }

  async read(): Promise<{ done: true } | { done: false; value: Uint8Array }> {
    for (;;) {
      const chunk = this.message.read() as Buffer | null;
      if (chunk !== null) return { done: false, value: chunk };
      if (this.ended) return { done: true };
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async cancel(): Promise<void> {
    // Before its end this closes the connection (the kernel sees the caller go); after it, nothing.
    this.message.destroy();
  }
}

/** The whole body of an answer that is no event stream (an error envelope, or an unexpected type). */
async function wholeBody(message: IncomingMessage): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

function responseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

const isEventStream = (message: IncomingMessage): boolean => (message.headers['content-type'] ?? '').startsWith('text/event-stream');

/**
 * Sends one streaming call to the kernel. An event stream answer (2xx, `text/event-stream`) comes
 * back with its body read through the history trim, which reports the first task id it names to
 * `onTaskId`; any other answer is read whole first. Rejects as fetch does: with the signal's
 * reason when aborted before the answer, with the network error otherwise.
 */
export async function fetchEventStream(url: URL, init: EventStreamInit, onTaskId?: (taskId: string) => void): Promise<Response> {
  const send = url.protocol === 'https:' ? (await https()).request : httpRequest;
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw signal.reason;
  // Headers as name/value pairs: Node writes them as given and keeps no header map of its own for
  // the request's life — so Host is named here, as Node names it for a header object.
  const headers: string[] = ['host', url.host];
  for (const [name, value] of init.headers) if (name !== 'host' && name !== 'content-length') headers.push(name, value);
  if (init.body !== undefined) headers.push('content-length', String(Buffer.byteLength(init.body)));
  const request = send(url, { method: init.method ?? 'GET', headers });
  const answer = answerTo(request, signal, onTaskId);
  request.end(init.body);
  return answer;
}

/**
 * The answer to `request`. A function of its own so that what stays attached to the request for
 * the stream's life (its listeners) holds neither the request's URL, headers nor body.
 */
function answerTo(request: ClientRequest, signal: AbortSignal | undefined, onTaskId: ((taskId: string) => void) | undefined): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const abort = (): void => {
      request.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', abort, { once: true });
    const settled = (): void => signal?.removeEventListener('abort', abort);
    // After the answer arrived, a broken connection is reported on the answer's body instead.
    request.on('error', (error) => {
      settled();
      reject(signal?.aborted ? signal.reason : error);
    });
    request.once('response', (message) => {
      message.on('close', settled);
      const status = message.statusCode ?? 0;
      // Built here, never thrown inside this listener: a throw would leave the call unsettled for
      // ever and escape as an uncaught error. A Response carries only a status of 200–599 and a
      // status text of visible characters, where fetch passes any answer on: the text loses what
      // it cannot carry (only the SDK's error messages read it), and another status fails the call
      // (docs/protocol.md §7.1).
      const answer = (body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null): void => {
        try {
          const statusText = (message.statusMessage ?? '').replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
          resolve(new Response(body, { status, statusText, headers: responseHeaders(message) }));
        } catch (error) {
          message.destroy();
          reject(new Error(`the kernel's answer (HTTP ${status}) cannot be read: ${(error as Error).message}`, { cause: error }));
        }
      };
      if (status >= 200 && status < 300 && isEventStream(message)) {
        answer(trimmedSseBody(new MessageBytes(message), onTaskId));
        return;
      }
      const empty = status === 204 || status === 205 || status === 304;
      wholeBody(message).then((bytes) => answer(empty ? null : bytes), reject);
    });
  });
}

/**
 * The Node shell's answers to requests it cannot hand to the app, written as the app would write
 * them (docs/protocol.md §1.5, §2.2): a JSON envelope, `x-content-type-options: nosniff`, and no
 * `connection` header (Function Compute forbids one; Node's own answer carries `Connection: close`).
 * The language is English: the headers that would name another could not be read, or the app that
 * picks a language never saw the request.
 *
 * On the raw socket (Node has no response object for them): headers that never finished within the
 * deadline, headers too large, bytes that are not HTTP ('clientError'), and CONNECT ('connect'),
 * which this server — not a proxy — refuses.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../core/errors.js';
import { en, type MessageKey } from '../../core/i18n/messages-en.js';
import { LINGER_MS } from './early-answer.js';

/** One of the shell's own answers: the status, the envelope's code and its English message. */
export interface ShellAnswer {
  status: number;
  error: ErrorCode;
  key: MessageKey;
}

/** Bytes that are not HTTP, a request target that is no URL, a method fetch forbids (TRACE, TRACK). */
export const MALFORMED: ShellAnswer = { status: 400, error: 'INVALID_INPUT', key: 'malformedRequest' };
/** The app itself failed before any header was sent (a bug; logged). */
export const INTERNAL: ShellAnswer = { status: 500, error: 'INTERNAL_ERROR', key: 'internalError' };
/** HTTP/1.1 requires a Host header (RFC 9112 §3.2); routing never reads it (docs/protocol.md §1.5). */
export const HOST_REQUIRED: ShellAnswer = { status: 400, error: 'INVALID_INPUT', key: 'hostRequired' };
/** An `Expect` other than `100-continue` (RFC 9110 §10.1.1). */
export const EXPECTATION_FAILED: ShellAnswer = { status: 417, error: 'INVALID_INPUT', key: 'expectationFailed' };
const CONNECT_REFUSED: ShellAnswer = { status: 400, error: 'INVALID_INPUT', key: 'connectNotSupported' };

/** The envelope's text (docs/protocol.md §2.2). */
export function shellAnswerBody(answer: ShellAnswer): string {
  return JSON.stringify({ error: { code: answer.error, message: en[answer.key] } });
}

function answerFor(code: string | undefined): ShellAnswer {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, error: 'REQUEST_TIMEOUT', key: 'requestTimeout' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, error: 'REQUEST_TOO_LARGE', key: 'headersTooLarge' };
  return MALFORMED;
}

/** Writes `answer` on a socket Node gave up on, then half-closes it and ends it after a linger. */
function answerOnSocket(socket: Duplex, answer: ShellAnswer): void {
  const body = shellAnswerBody(answer);
  socket.end(
    [
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}`,
      'content-type: application/json; charset=utf-8',
      'cache-control: no-store',
      'x-content-type-options: nosniff',
      `content-length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  );
  // Half-closed after the answer; bytes still arriving are not read, so end it after a linger.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** The server's 'clientError' listener. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A response already under way (or a client already gone) cannot take another one.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, answerFor(error.code));
}

/**
 * The server's 'connect' listener: without one Node closes a CONNECT's socket with no answer at
 * all. This server tunnels nothing, so CONNECT is refused with the envelope like any request the
 * app cannot take (docs/protocol.md §1.5).
 */
export function answerConnect(_request: unknown, socket: Duplex): void {
  socket.on('error', () => undefined);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, CONNECT_REFUSED);
}

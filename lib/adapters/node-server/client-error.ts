/**
 * Node's answer to a request it could not even hand to the app — headers that never finished
 * within the deadline, headers too large, bytes that are not HTTP — written as the app would
 * write it (docs/protocol.md §1.5, §2.2): a JSON envelope, `x-content-type-options: nosniff`, and
 * no `connection` header (Function Compute forbids one; Node's own answer carries
 * `Connection: close`). The language is English: the headers that would name another could not
 * be read.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../core/errors.js';
import { en, type MessageKey } from '../../core/i18n/messages-en.js';
import { LINGER_MS } from './early-answer.js';

function answerFor(code: string | undefined): { status: number; error: ErrorCode; key: MessageKey } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, error: 'REQUEST_TIMEOUT', key: 'requestTimeout' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, error: 'REQUEST_TOO_LARGE', key: 'headersTooLarge' };
  return { status: 400, error: 'INVALID_INPUT', key: 'malformedRequest' };
}

/** The server's 'clientError' listener. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A response already under way (or a client already gone) cannot take another one.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, error: code, key } = answerFor(error.code);
  const body = JSON.stringify({ error: { code, message: en[key] } });
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
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

/**
 * The connection after an answer given before the request body had fully arrived — 401, 413, 415,
 * 408, 404… (docs/protocol.md §1.5). Closing the socket at once would reset the connection while
 * the client is still sending, and a reset discards the answer the client has not read yet. So
 * the rest of the body is read and dropped, within bounds, counted from the end of the answer:
 *
 * - the body ends within DISCARD_MS and DISCARD_BYTES: the connection stays usable (or closes
 *   normally when the instance is shutting down);
 * - otherwise the adapter half-closes (FIN after the answer: the client reads the answer, then
 *   end-of-stream), keeps dropping what still arrives, and destroys the socket LINGER_MS later.
 *
 * No `connection` header is written (Function Compute forbids a function to set one); the closing
 * happens on the socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestBody } from './request-body.js';

/** How long the rest of a refused body may take to arrive after the answer. */
export const DISCARD_MS = 5_000;
/** How much of a refused body is read and dropped at most (a little more than the 12 MiB limit). */
export const DISCARD_BYTES = 16 * 1024 * 1024;
/** After the half-close, how long the client gets to read the answer and stop sending. */
export const LINGER_MS = 2_000;

export interface DiscardOptions {
  /** The instance is shutting down: the connection closes even when the body drained in time. */
  closeAfter: boolean;
  /** The body already failed its deadline (408): nothing more is waited for; the half-close follows the answer. */
  stalled: boolean;
}

/**
 * Call before the answer is written (Node would otherwise drop the body without a bound, or the
 * app's reader would be left holding it).
 */
export function discardRestOfBody(req: IncomingMessage, res: ServerResponse, body: RequestBody, { closeAfter, stalled }: DiscardOptions): void {
  const socket = req.socket;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let closing = false;
  const close = (): void => {
    if (closing) return;
    closing = true;
    clearTimeout(deadline);
    if (socket.destroyed) return;
    // Bytes still in flight are read and dropped until the destroy, so the close is a FIN, not a reset.
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  const answered = (): boolean => res.writableFinished;
  body.onDiscarded = (total) => {
    if (total > DISCARD_BYTES && answered()) close();
  };
  body.discard();
  res.once('finish', () => {
    if (req.complete) {
      if (closeAfter) close();
      return;
    }
    if (stalled || body.discarded > DISCARD_BYTES) {
      close();
      return;
    }
    deadline = setTimeout(close, DISCARD_MS);
    deadline.unref();
    req.once('end', () => {
      clearTimeout(deadline);
      if (closeAfter) close();
    });
  });
  socket.once('close', () => clearTimeout(deadline));
}

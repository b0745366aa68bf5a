/**
 * A Node request body as the Web `ReadableStream` the app reads (docs/architecture.md §1.2), read
 * only on demand:
 *
 * - Nothing is pulled from the socket until the app reads. So `Expect: 100-continue` is answered
 *   exactly when the app starts reading — after its auth, media-type and Content-Length checks
 *   passed (docs/protocol.md §1.3) — and a refusal goes out without inviting the body.
 * - The app cancelling the stream (a body over the limit, a body that came too slowly) does not
 *   destroy the socket, as `Readable.toWeb` would: destroying a socket with unread bytes resets the
 *   connection and the client loses the answer it has not read yet (docs/protocol.md §1.5). The
 *   body switches to discarding instead, and the shell decides when the connection closes
 *   (early-answer.ts).
 * - A client that leaves mid-upload errors the stream with UploadAbortedError, which the app
 *   answers as an incomplete body, not as a server fault.
 */
import type { IncomingMessage } from 'node:http';

export class UploadAbortedError extends Error {
  constructor() {
    super('the client closed the connection before the request body was complete');
    this.name = 'UploadAbortedError';
  }
}

export class RequestBody {
  /**
   * The Web stream, until the body is settled (read to its end, cancelled or broken off). The body
   * itself lives as long as its request — a live stream's whole life — so it lets go of the
   * stream and its controller then, and an idle run does not hold them (docs/architecture.md §9.6).
   */
  private web: ReadableStream<Uint8Array> | undefined;
  /** Bytes thrown away since discarding began. */
  discarded = 0;
  /** Called with the running total each time discarded bytes arrive. */
  onDiscarded: ((total: number) => void) | undefined;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private listening = false;
  private discarding = false;
  private settled = false;

  /** `onFirstRead` runs once, when the app first asks for body bytes (the 100-continue moment). */
  constructor(
    private readonly req: IncomingMessage,
    private readonly onFirstRead: () => void = () => undefined,
  ) {
    this.web = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          if (!this.listening) {
            this.onFirstRead();
            this.listen();
          }
          this.req.resume();
        },
        cancel: () => this.discard(),
      },
      // Zero: pull only while the app is waiting for bytes, never ahead of it.
      { highWaterMark: 0 },
    );
  }

  /** The body as the Web stream the app reads; taken before anything settles it (the shell makes the Request first). */
  get stream(): ReadableStream<Uint8Array> {
    if (!this.web) throw new Error('the request body was already settled');
    return this.web;
  }

  /** From now on every body byte is read and dropped (counted in `discarded`). */
  discard(): void {
    this.discarding = true;
    this.settle((controller) => controller.close());
    this.listen();
    this.req.resume();
  }

  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.req.on('data', (chunk: Buffer) => {
      if (this.discarding) {
        this.discarded += chunk.byteLength;
        this.onDiscarded?.(this.discarded);
        return;
      }
      const controller = this.controller;
      if (!controller) return;
      controller.enqueue(chunk);
      if ((controller.desiredSize ?? 0) <= 0) this.req.pause();
    });
    this.req.once('end', () => this.settle((controller) => controller.close()));
    this.req.once('close', () => {
      if (!this.req.complete) this.settle((controller) => controller.error(new UploadAbortedError()));
    });
    this.req.on('error', () => undefined);
  }

  private settle(action: (controller: ReadableStreamDefaultController<Uint8Array>) => void): void {
    if (this.settled) return;
    this.settled = true;
    const controller = this.controller;
    this.controller = undefined;
    this.web = undefined;
    try {
      if (controller) action(controller);
    } catch {
      // The reader already cancelled the stream.
    }
  }
}

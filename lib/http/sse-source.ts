/**
 * The bytes of an SSE response as a push-style source (docs/protocol.md §4.1): the run pushes its
 * records, one reader takes them. A runtime shell that finds the source on the app's Response
 * (`sseSourceOf`) attaches its socket to it directly, so an idle live stream holds no Web
 * ReadableStream, reader or pending read promise (docs/architecture.md §2); anyone else (tests,
 * the fuzzer) reads the Response's ordinary body, which attaches to the same source on its first
 * read.
 *
 * Order is kept: what is pushed before a reader attaches, or while it waits for its socket to
 * drain, is queued and handed on in order; the end reaches the reader only after everything queued.
 *
 * The queue is bounded (docs/protocol.md §1.4, §6.8): a reader that stops reading while its run goes
 * on would otherwise make the adapter hold everything the run emits. Past MAX_QUEUED_SSE_BYTES the
 * reader counts as gone — exactly as if it had disconnected: the queue is dropped, the sink is told
 * to let its connection go (`abandon`), and the run's signal aborts, so the run applies the
 * disconnect rule and ends; its end still reaches the sink once its clean-up finished.
 */

/** Bytes queued for one reader that does not read before it counts as gone (docs/protocol.md §1.4). */
export const MAX_QUEUED_SSE_BYTES = 16 * 1024 * 1024;

/** Where a source's bytes go. */
export interface SseSink {
  /** Takes one chunk; false asks the source to hold the next ones until `resume()`. */
  write(chunk: Uint8Array): boolean;
  /** Every chunk has been written and the run's clean-up finished. */
  end(): void;
  /** The reader stopped reading for too long: let its connection go (nothing more will be written). */
  abandon?(): void;
}

/** Why the reader is gone: it cancelled the body, or it stopped reading past the bound. */
export type SseReaderGone = 'cancelled' | 'unread';

export class SseSource {
  private sink: SseSink | undefined;
  private queued: Uint8Array[] = [];
  private queuedBytes = 0;
  private waiting = false;
  private ended = false;
  private cancelled = false;
  /** The reader stopped reading past the bound: chunks are dropped, the end still reaches the sink. */
  private unread = false;
  /** Who waits for the reader to take everything pushed (`whenDrained`). */
  private drainWaiters: Array<() => void> = [];

  /** `onGone`: the reader went away before the end (the run's signal aborts). */
  constructor(
    private readonly onGone: (why: SseReaderGone) => void,
    private readonly maxQueuedBytes = MAX_QUEUED_SSE_BYTES,
  ) {}

  /** Whether chunks are still taken: false once the reader cancelled or stopped reading. */
  get open(): boolean {
    return !this.cancelled && !this.unread && !this.ended;
  }

  /** Whether the reader has not taken everything pushed yet (its socket is full, or chunks wait here). */
  get backlogged(): boolean {
    return this.open && (this.waiting || this.queued.length > 0 || !this.sink);
  }

  /**
   * Resolves once the reader took everything pushed so far, or is gone: a body with much to send
   * (a reattach's catch-up) sends it a slice at a time, so it never queues past the bound for a
   * reader that reads (lib/core/reattach/paced-sender.ts).
   */
  whenDrained(): Promise<void> {
    if (!this.backlogged) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  push(chunk: Uint8Array): void {
    if (!this.open) return;
    if (this.sink && !this.waiting && this.queued.length === 0) {
      if (!this.sink.write(chunk)) this.waiting = true;
      return;
    }
    this.queued.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.queuedBytes > this.maxQueuedBytes) this.readerStoppedReading();
  }

  end(): void {
    if (this.ended || this.cancelled) return;
    this.ended = true;
    if (this.unread) this.endSink();
    else this.flush();
  }

  /** The one reader; what was pushed before goes to it first. */
  attach(sink: SseSink): void {
    if (this.sink) throw new Error('an SSE source has one reader');
    this.sink = sink;
    if (!this.unread) {
      this.flush();
      return;
    }
    // Counted as gone before it came: it gets nothing but the end, once the run's clean-up finished.
    sink.abandon?.();
    if (this.ended) this.endSink();
  }

  /** The reader can take more again (its socket drained, or is gone). */
  resume(): void {
    this.waiting = false;
    this.flush();
  }

  cancel(): void {
    if (this.cancelled) return;
    const gone = this.unread;
    this.cancelled = true;
    this.drop();
    if (!gone) this.onGone('cancelled');
  }

  /** The disconnect rule for a reader that does not read (docs/protocol.md §6.8). */
  private readerStoppedReading(): void {
    this.unread = true;
    this.drop();
    this.sink?.abandon?.();
    this.onGone('unread');
  }

  private drop(): void {
    this.queued = [];
    this.queuedBytes = 0;
    this.notifyDrained();
  }

  private flush(): void {
    const sink = this.sink;
    if (!sink || this.cancelled || this.unread) return;
    while (!this.waiting && this.queued.length > 0) {
      const chunk = this.queued.shift() as Uint8Array;
      this.queuedBytes -= chunk.length;
      if (!sink.write(chunk)) this.waiting = true;
    }
    if (this.ended && !this.waiting && this.queued.length === 0) this.endSink();
    this.notifyDrained();
  }

  private notifyDrained(): void {
    if (this.backlogged || this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private endSink(): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.end();
  }
}

/**
 * A registered symbol: the Node shell finds the source by it without importing this module, so the
 * module stays in the lazily loaded run routes (docs/architecture.md §6.3).
 */
export const SSE_SOURCE_KEY = 'iac-code-agui.sse-source';
const SOURCE = Symbol.for(SSE_SOURCE_KEY);

/** The Response of an SSE source: its body reads the source; a shell may take the source instead. */
export function sseSourceResponse(source: SseSource, init: ResponseInit): Response {
  let attached = false;
  // highWaterMark 0: the body asks the source for nothing until someone reads it, so a shell that
  // takes the source directly leaves this stream untouched.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (attached) return;
        attached = true;
        source.attach({
          write(chunk) {
            try {
              controller.enqueue(chunk);
            } catch {
              source.cancel();
            }
            return true;
          },
          end() {
            try {
              controller.close();
            } catch {
              // already closed by a cancel
            }
          },
          abandon() {
            controller.error(new Error('the reader stopped reading'));
          },
        });
      },
      cancel() {
        source.cancel();
      },
    },
    { highWaterMark: 0 },
  );
  const response = new Response(body, init);
  Object.defineProperty(response, SOURCE, { value: source });
  return response;
}

/** The source behind an SSE Response of this app, for a shell that writes it straight to its socket. */
export function sseSourceOf(response: Response): SseSource | undefined {
  return (response as unknown as { [SOURCE]?: SseSource })[SOURCE];
}

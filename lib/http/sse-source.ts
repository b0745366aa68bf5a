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
 */

/** Where a source's bytes go. */
export interface SseSink {
  /** Takes one chunk; false asks the source to hold the next ones until `resume()`. */
  write(chunk: Uint8Array): boolean;
  /** Every chunk has been written and the run's clean-up finished. */
  end(): void;
}

export class SseSource {
  private sink: SseSink | undefined;
  private queued: Uint8Array[] = [];
  private waiting = false;
  private ended = false;
  private cancelled = false;

  /** `onCancel`: the reader went away before the end (the run's signal aborts). */
  constructor(private readonly onCancel: () => void) {}

  /** Whether chunks are still taken: false once the reader cancelled. */
  get open(): boolean {
    return !this.cancelled && !this.ended;
  }

  push(chunk: Uint8Array): void {
    if (!this.open) return;
    if (!this.sink || this.waiting || this.queued.length > 0) this.queued.push(chunk);
    else if (!this.sink.write(chunk)) this.waiting = true;
  }

  end(): void {
    if (!this.open) return;
    this.ended = true;
    this.flush();
  }

  /** The one reader; what was pushed before goes to it first. */
  attach(sink: SseSink): void {
    if (this.sink) throw new Error('an SSE source has one reader');
    this.sink = sink;
    this.flush();
  }

  /** The reader can take more again (its socket drained, or is gone). */
  resume(): void {
    this.waiting = false;
    this.flush();
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.queued = [];
    this.onCancel();
  }

  private flush(): void {
    const sink = this.sink;
    if (!sink || this.cancelled) return;
    while (!this.waiting && this.queued.length > 0) {
      if (!sink.write(this.queued.shift() as Uint8Array)) this.waiting = true;
    }
    if (this.ended && !this.waiting && this.queued.length === 0) {
      this.sink = undefined;
      sink.end();
    }
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

/**
 * Waits that fail instead of hanging (docs/architecture.md §9.8): read a stream until a marker or
 * its end, each read under a deadline, and when the marker never comes — the stream ended, broke,
 * or went quiet past the deadline — throw with what was seen. A loop that appends each read's value
 * until the marker shows spins forever without yielding to timers once the stream ends early (the
 * value is then undefined); this never does.
 */

/** What a wait is for: text to appear, a pattern to match, or any test on everything read so far. */
export type Marker = string | RegExp | ((text: string) => boolean);

export interface WaitOptions {
  /** How long the whole wait may take; default 10 s. */
  timeoutMs?: number;
  /** Names the wait in the failure ("the session event"); default the marker itself. */
  what?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** How much of what was seen a failure quotes (its end: the latest is what tells). */
const QUOTED_CHARS = 4_000;

function matches(marker: Marker, text: string): boolean {
  if (typeof marker === 'string') return text.includes(marker);
  if (marker instanceof RegExp) return marker.test(text);
  return marker(text);
}

function describeMarker(marker: Marker, options: WaitOptions): string {
  if (options.what) return options.what;
  if (typeof marker === 'string') return JSON.stringify(marker);
  if (marker instanceof RegExp) return String(marker);
  return 'the awaited condition';
}

function quoted(text: string): string {
  if (text.length <= QUOTED_CHARS) return text === '' ? '(nothing)' : text;
  return `…${text.slice(-QUOTED_CHARS)} (${text.length} characters in all)`;
}

const TIMED_OUT: unique symbol = Symbol('timed out');

/** `promise`, or TIMED_OUT once `ms` passed (the timer cleared either way). */
async function orTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A byte stream read as text, a marker at a time: `until` returns once the marker appeared, `rest`
 * reads to the end; both under a deadline, both throwing with what was seen. `text` keeps
 * everything read so far; `remaining()` hands the unread rest to a reader of whole bodies.
 */
export class StreamText {
  text = '';
  ended = false;
  /** Why reading stopped, when the stream broke rather than ended. */
  failure: unknown;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private pending: Promise<boolean> | undefined;

  constructor(source: Response | ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>) {
    if (source instanceof Response) {
      if (!source.body) throw new Error(`response ${source.status} has no body`);
      this.reader = source.body.getReader();
    } else if (source instanceof ReadableStream) {
      this.reader = source.getReader();
    } else {
      this.reader = source;
    }
  }

  /** Reads until `marker` holds for everything read so far; returns that text. */
  async until(marker: Marker, options: WaitOptions = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    while (!matches(marker, this.text)) {
      if (this.ended) throw new Error(`stream ${this.failure ? `broke (${String(this.failure)})` : 'ended'} before ${describeMarker(marker, options)}; saw: ${quoted(this.text)}`);
      const more = await orTimeout(this.readMore(), deadline - Date.now());
      if (more === TIMED_OUT) {
        throw new Error(`no ${describeMarker(marker, options)} within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms; saw: ${quoted(this.text)}`);
      }
    }
    return this.text;
  }

  /** Reads to the end (a broken connection ends it too); returns everything read. */
  async rest(options: WaitOptions = {}): Promise<string> {
    return this.until(() => this.ended, { what: 'the end of the stream', ...options });
  }

  /** The unread rest as a stream of its own (e.g. for `readSse(new Response(text.remaining()))`). */
  remaining(): ReadableStream<Uint8Array> {
    const reader = this.reader;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }

  /** Stops reading: the connection is released (the server sees its caller leave). */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  /** One read; false once the stream ended or broke. A read outliving a deadline is kept for the next call. */
  private readMore(): Promise<boolean> {
    this.pending ??= this.reader.read().then(
      (chunk) => {
        this.pending = undefined;
        if (chunk.done) {
          this.text += this.decoder.decode();
          this.ended = true;
          return false;
        }
        this.text += this.decoder.decode(chunk.value, { stream: true });
        return true;
      },
      (error: unknown) => {
        this.pending = undefined;
        this.ended = true;
        this.failure = error;
        return false;
      },
    );
    return this.pending;
  }
}

/** Reads `source` until `marker` appeared (see StreamText.until); returns the reader and the text so far. */
export async function readUntil(
  source: Response | ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>,
  marker: Marker,
  options: WaitOptions = {},
): Promise<StreamText> {
  const stream = new StreamText(source);
  await stream.until(marker, options);
  return stream;
}

/**
 * Waits until `condition` holds, checking it every `stepMs` (a timer: other work runs between the
 * checks); throws after `timeoutMs` with `seen()` — what the condition looked at — in the message.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, options: WaitOptions & { stepMs?: number; seen?: () => unknown } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      const value = options.seen?.();
      const seen = options.seen ? `; saw: ${quoted(typeof value === 'string' ? value : String(JSON.stringify(value)))}` : '';
      throw new Error(`no ${options.what ?? 'condition'} within ${timeoutMs} ms${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.stepMs ?? 20));
  }
}

/** `promise` if it settles within `timeoutMs`, else an error naming `what` — a deadline, not a measurement. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const result = await orTimeout(promise, timeoutMs);
  if (result === TIMED_OUT) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
  return result;
}

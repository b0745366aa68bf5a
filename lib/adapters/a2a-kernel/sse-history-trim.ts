/**
 * Keeps A2A SSE events under @a2a-js/sdk's 4 MiB event limit (docs/protocol.md §7.1).
 *
 * The first event of SendStreamingMessage is the task, and A2A servers echo the user's message in
 * its `history` — with an 8 MiB image or 11 MiB of text (docs/protocol.md §1.4 limits) that event
 * alone is far over 4 MiB and the SDK client throws (its parser also rescans the buffer per chunk,
 * quadratic on such events). The adapter never reads the user's own messages back (it reads only
 * trailing *agent* history, docs/protocol.md §4.5), so this stream empties the parts of user
 * messages — text, data and raw alike — and drops their metadata in any large event before the SDK
 * sees it. The metadata goes too because the kernel keeps every message of a task in its history,
 * each with the `metadata.iac_code` it was sent with: bounded per message (docs/protocol.md §1.4),
 * they still add up over a long task's resumes and guidance.
 *
 * Every other event passes through byte for byte, neither decoded nor copied: the stream only
 * scans the bytes for the blank lines that end events (CRLF, LF or CR line ends; Python servers
 * send CRLF). An event with a bare CR line end, which the SDK's parser does not split, is
 * re-emitted with LF line ends. The stream is pulled, not piped: it reads the kernel's body only
 * as fast as the SDK reads it, and an idle run holds one small stream here instead of a
 * TransformStream and its pipe (docs/architecture.md §2).
 *
 * It also reports the first task id the stream names (`onTaskId`), read from the bytes before the
 * SDK parses the event: when the SDK then fails on that very event (or the connection breaks in
 * the middle of it), the run still knows which task the kernel started and cancels it
 * (docs/protocol.md §2.4).
 */

import { OMITTED_KEY } from '../../core/a2a/inbound.js';
import { joinBytes } from '../../core/join-bytes.js';
import { splitLongText } from './sse-text-split.js';

const TRIM_ABOVE_BYTES = 512 * 1024;
/** An event still larger than this once user messages are emptied loses its task's history (the SDK refuses events over 4 MiB). */
const OMIT_HISTORY_ABOVE_BYTES = 3 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/** Shared by every stream: it decodes whole events or event heads, never a stream (no state). */
const decoder = new TextDecoder();
const encoder = new TextEncoder();

interface WireMessageLike {
  role?: string;
  parts?: unknown[];
  metadata?: unknown;
}

function emptyIfUser(message: WireMessageLike | undefined): void {
  if (!message || (message.role !== 'ROLE_USER' && message.role !== 'user')) return;
  if (Array.isArray(message.parts)) message.parts = [];
  delete message.metadata;
}

function trimUserHistory(json: string): string {
  let envelope: {
    result?: { task?: { history?: WireMessageLike[]; status?: { message?: WireMessageLike }; metadata?: unknown }; statusUpdate?: { status?: { message?: WireMessageLike } } };
  };
  try {
    envelope = JSON.parse(json);
  } catch {
    return json;
  }
  const result = envelope.result;
  if (!result) return json;
  for (const message of Array.isArray(result.task?.history) ? result.task.history : []) emptyIfUser(message);
  emptyIfUser(result.task?.status?.message);
  emptyIfUser(result.statusUpdate?.status?.message);
  const trimmed = JSON.stringify(envelope);
  const task = result.task;
  if (!task || !Array.isArray(task.history) || Buffer.byteLength(trimmed) <= OMIT_HISTORY_ABOVE_BYTES) return trimmed;
  // Still over the SDK's limit: a long task's agent history (one message per delta), which a
  // takeover's subscription opens with. Left out and marked, so the reader reads it with GetTask
  // (JSON, no such limit) instead of failing (docs/protocol.md §7.1; lib/core/a2a/inbound.ts).
  task.history = [];
  task.metadata = { ...(isRecord(task.metadata) ? task.metadata : {}), [OMITTED_KEY]: { historyOmitted: true } };
  return JSON.stringify(envelope);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The task a stream event names: a task's own id, or a status or artifact update's taskId. */
const TASK_ID = /"(?:task"\s*:\s*\{\s*"id|taskId)"\s*:\s*"((?:[^"\\]|\\.)*)"/;
/** How much of an event's start is searched for it (the id comes first in proto-JSON). */
const TASK_ID_WINDOW = 4096;

function taskIdIn(text: string): string | undefined {
  const match = TASK_ID.exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return undefined;
  }
}

/** An event's text (LF line ends, without the blank line that ended it), large user history emptied. */
function rewriteEvent(text: string, large: boolean): string {
  if (!large) return text;
  const lines = text.split('\n');
  const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart());
  if (data.length === 0) return text;
  const others = lines.filter((line) => !line.startsWith('data:'));
  return [...others, `data: ${trimUserHistory(data.join('\n'))}`].join('\n');
}

/**
 * Splits the kernel's bytes into events and decides, per event, whether it passes as it is. Each
 * byte is scanned once: an event still arriving is kept as the chunks' own pieces (views, not
 * copies) and joined only if it must be rewritten.
 */
export class SseEventScanner {
  /** The pieces of the event still arriving (from earlier chunks), and their length. */
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  /** No character since the last line end: a line end here is a blank line, which ends an event. */
  private atLineStart = true;
  /** The last chunk ended in CR: whether it is a CRLF or a bare CR shows with the next byte. */
  private crAtEnd = false;
  /** The event holds a bare CR line end: re-emitted with LF line ends. */
  private bareCr = false;
  private taskIdSeen: boolean;

  constructor(private readonly onTaskId?: (taskId: string) => void) {
    this.taskIdSeen = onTaskId === undefined;
  }

  /** What of the stream can be handed on after `chunk`: whole events only. */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    const length = chunk.length;
    /** Where the event being scanned began in this chunk (0: in an earlier chunk, then `held` has its start). */
    let eventStart = 0;
    /** Bytes before this were handed on (or held). */
    let cleanFrom = 0;
    /** Where the last whole event that passes as it is began in this chunk. */
    let lastStart = 0;
    let at = 0;
    const endEvent = (end: number): void => {
      const eventBytes = this.heldBytes + (end - eventStart);
      const large = eventBytes > TRIM_ABOVE_BYTES;
      if (!this.taskIdSeen) this.watch(this.headOf(chunk.subarray(eventStart, end)));
      if (large || this.bareCr) {
        if (eventStart > cleanFrom) out.push(chunk.subarray(cleanFrom, eventStart));
        this.held.push(chunk.subarray(eventStart, end));
        // One long agent text (the kernel's final repeat of a long answer) becomes several events, cut in its bytes.
        const split = this.bareCr ? undefined : splitLongText(this.held, eventBytes);
        if (split) out.push(...split);
        else out.push(this.rewritten(joinBytes(this.held), large));
        cleanFrom = end;
      } else {
        lastStart = eventStart;
        // The event's start came in earlier chunks: it goes first, then this chunk from its start.
        for (const piece of this.held) out.push(piece);
      }
      this.held = [];
      this.heldBytes = 0;
      this.bareCr = false;
      eventStart = end;
    };
    const lineEnd = (end: number): void => {
      if (this.atLineStart) endEvent(end);
      else this.atLineStart = true;
    };
    if (this.crAtEnd && length > 0) {
      this.crAtEnd = false;
      if (chunk[0] === LF) at = 1;
      else this.bareCr = true;
      lineEnd(at);
    }
    let nextCr = chunk.indexOf(CR, at);
    let nextLf = chunk.indexOf(LF, at);
    while (at < length) {
      if (nextCr >= 0 && nextCr < at) nextCr = chunk.indexOf(CR, at);
      if (nextLf >= 0 && nextLf < at) nextLf = chunk.indexOf(LF, at);
      const end = nextCr < 0 ? nextLf : nextLf < 0 ? nextCr : Math.min(nextCr, nextLf);
      if (end < 0) {
        this.atLineStart = false;
        break;
      }
      if (end > at) this.atLineStart = false;
      if (chunk[end] === LF) {
        at = end + 1;
      } else if (end + 1 === length) {
        this.crAtEnd = true;
        at = length;
        break;
      } else if (chunk[end + 1] === LF) {
        at = end + 2;
      } else {
        this.bareCr = true;
        at = end + 1;
      }
      lineEnd(at);
    }
    // The last whole event is a piece of its own: a reader that keeps the last piece it decoded
    // while the stream is quiet then keeps that event's text only (docs/architecture.md §9.6).
    if (lastStart > cleanFrom) out.push(chunk.subarray(cleanFrom, lastStart));
    if (eventStart > Math.max(cleanFrom, lastStart)) out.push(chunk.subarray(Math.max(cleanFrom, lastStart), eventStart));
    if (eventStart < length) {
      this.held.push(chunk.subarray(eventStart));
      this.heldBytes += length - eventStart;
      // The start of an event still arriving: the connection may break before its end.
      if (!this.taskIdSeen) this.watch(this.headOf());
    }
    return out;
  }

  /** What is left when the stream ends: an event without its closing blank line. */
  end(): Uint8Array[] {
    if (this.crAtEnd) {
      this.crAtEnd = false;
      this.bareCr = true;
    }
    if (this.heldBytes === 0) return [];
    const large = this.heldBytes > TRIM_ABOVE_BYTES;
    const pieces = this.held;
    this.held = [];
    this.heldBytes = 0;
    if (!large && !this.bareCr) return pieces;
    const text = rewriteEvent(normalise(decoder.decode(joinBytes(pieces))), large);
    return text.length > 0 ? [encoder.encode(text)] : [];
  }

  /** The whole event, LF line ends, large user history emptied, followed by its blank line. */
  private rewritten(bytes: Uint8Array, large: boolean): Uint8Array {
    const text = normalise(decoder.decode(bytes));
    const body = text.endsWith('\n\n') ? text.slice(0, -2) : text.slice(0, -1);
    return encoder.encode(`${rewriteEvent(body, large)}\n\n`);
  }

  /** The first TASK_ID_WINDOW bytes of the held pieces and then `more`, as text. */
  private headOf(more?: Uint8Array): string {
    const pieces: Uint8Array[] = [];
    let length = 0;
    for (const piece of more ? [...this.held, more] : this.held) {
      if (length >= TASK_ID_WINDOW) break;
      const part = piece.subarray(0, TASK_ID_WINDOW - length);
      pieces.push(part);
      length += part.length;
    }
    return pieces.length === 0 ? '' : decoder.decode(joinBytes(pieces));
  }

  private watch(text: string): void {
    const taskId = taskIdIn(text);
    if (taskId === undefined) return;
    this.taskIdSeen = true;
    this.onTaskId?.(taskId);
  }
}

/** SSE allows CRLF, LF or CR line ends; the SDK splits lines at LF only. */
function normalise(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** The next bytes to hand on, or `done` with the last ones: read from `source` only on demand. */
type NextBytes = () => Promise<{ out: Uint8Array[]; done: boolean }>;

/**
 * What the trimmed body reads the kernel's bytes from, one chunk per `read`: the kernel's HTTP
 * response read directly (kernel-event-stream.ts), or any Web stream's reader.
 */
export interface ByteReader {
  read(): Promise<{ done: true; value?: Uint8Array } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * At most about this much is handed on per read: a long text split into many events (sse-text-split.ts)
 * is decoded event by event as the SDK reads, not all at once beside the bytes it came in.
 */
const HAND_ON_BYTES = 1024 * 1024;

function scanned(reader: ByteReader, onTaskId: ((taskId: string) => void) | undefined): { next: NextBytes; cancel: (reason?: unknown) => Promise<void> } {
  const scanner = new SseEventScanner(onTaskId);
  /** Scanned pieces not handed on yet, and whether the source ended after them. */
  let backlog: Uint8Array[] = [];
  let endsAfterBacklog = false;
  const handOn = (pieces: Uint8Array[], done: boolean): { out: Uint8Array[]; done: boolean } => {
    let bytes = 0;
    let count = 0;
    while (count < pieces.length && bytes < HAND_ON_BYTES) bytes += (pieces[count++] as Uint8Array).length;
    if (count === pieces.length) {
      backlog = [];
      return { out: pieces, done };
    }
    backlog = pieces.slice(count);
    endsAfterBacklog = done;
    return { out: pieces.slice(0, count), done: false };
  };
  return {
    async next() {
      if (backlog.length > 0) return handOn(backlog, endsAfterBacklog);
      for (;;) {
        const { done, value } = await reader.read();
        const out = done ? scanner.end() : scanner.push(value);
        if (done || out.length > 0) return handOn(out, done);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

/**
 * The SDK's SSE parser reads the trimmed body as `body.pipeThrough(new TextDecoderStream())`; that
 * one call is answered by a single pulled stream that decodes as it reads — the same text a
 * TextDecoderStream gives, without a TransformStream and a pipe held by every idle run
 * (docs/architecture.md §2). Any other transform is piped as usual.
 */
function decodedOnPipe(body: ReadableStream<Uint8Array>, scan: ReturnType<typeof scanned>): void {
  const pipeThrough = body.pipeThrough.bind(body);
  const decodingPipe = (transform: { readable: ReadableStream<unknown> }, options?: unknown): ReadableStream<unknown> => {
    if (!(transform instanceof TextDecoderStream) || options !== undefined || body.locked) return pipeThrough(transform as never, options as never);
    // Taken for the decoded stream: nobody else reads these bytes.
    body.getReader();
    const decoder = new TextDecoder(transform.encoding, { fatal: transform.fatal, ignoreBOM: transform.ignoreBOM });
    return new ReadableStream<string>(
      {
        async pull(controller) {
          for (;;) {
            const { out, done } = await scan.next();
            // One piece of text per piece of bytes: the SDK's reader keeps the last one it read
            // while the stream is quiet (and the events it parsed from it, as slices of it), so
            // that is the last event, not every event of a read.
            let enqueued = false;
            for (const bytes of out) {
              const text = decoder.decode(bytes, { stream: true });
              if (text.length === 0) continue;
              controller.enqueue(text);
              enqueued = true;
            }
            if (done) {
              const rest = decoder.decode();
              if (rest.length > 0) controller.enqueue(rest);
              controller.close();
              return;
            }
            if (enqueued) return;
          }
        },
        cancel: (reason) => scan.cancel(reason),
      },
      { highWaterMark: 0 },
    );
  };
  body.pipeThrough = decodingPipe as unknown as typeof body.pipeThrough;
}

/** `source` with large user history emptied, read only as fast as the returned stream is. */
export function trimmedSseBody(source: ByteReader, onTaskId?: (taskId: string) => void): ReadableStream<Uint8Array> {
  const scan = scanned(source, onTaskId);
  let ended = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (ended) return;
        const { out, done } = await scan.next();
        for (const bytes of out) controller.enqueue(bytes);
        if (done) {
          ended = true;
          controller.close();
        }
      },
      cancel: (reason) => scan.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  decodedOnPipe(body, scan);
  return body;
}

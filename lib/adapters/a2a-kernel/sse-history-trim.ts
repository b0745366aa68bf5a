/**
 * Keeps A2A SSE events under @a2a-js/sdk's 4 MiB event limit (docs/protocol.md §7.1).
 *
 * The first event of SendStreamingMessage is the task, and A2A servers echo the user's message in
 * its `history` — with an 8 MiB image or 11 MiB of text (docs/protocol.md §1.4 limits) that event
 * alone is far over 4 MiB and the SDK client throws (its parser also rescans the buffer per chunk,
 * quadratic on such events). The adapter never reads the user's own messages back (it reads only
 * trailing *agent* history, docs/protocol.md §4.5), so this stream empties the parts of user
 * messages — text, data and raw alike — in any large event before the SDK sees it. Small events
 * pass through byte for byte, unparsed.
 *
 * It also reports the first task id the stream names (`onTaskId`), read from the bytes before the
 * SDK parses the event: when the SDK then fails on that very event (or the connection breaks in
 * the middle of it), the run still knows which task the kernel started and cancels it
 * (docs/protocol.md §2.4).
 */
const TRIM_ABOVE_CHARS = 512 * 1024;

interface WireMessageLike {
  role?: string;
  parts?: unknown[];
}

function emptyIfUser(message: WireMessageLike | undefined): void {
  if (message && (message.role === 'ROLE_USER' || message.role === 'user') && Array.isArray(message.parts)) message.parts = [];
}

function trimUserHistory(json: string): string {
  let envelope: { result?: { task?: { history?: WireMessageLike[]; status?: { message?: WireMessageLike } }; statusUpdate?: { status?: { message?: WireMessageLike } } } };
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
  return JSON.stringify(envelope);
}

/** The task a stream event names: a task's own id, or a status or artifact update's taskId. */
const TASK_ID = /"(?:task"\s*:\s*\{\s*"id|taskId)"\s*:\s*"((?:[^"\\]|\\.)*)"/;
/** How much of an event's start is searched for it (the id comes first in proto-JSON). */
const TASK_ID_WINDOW = 4096;

function taskIdIn(text: string): string | undefined {
  const match = TASK_ID.exec(text.slice(0, TASK_ID_WINDOW));
  if (!match) return undefined;
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return undefined;
  }
}

function rewriteEvent(event: string): string {
  if (event.length <= TRIM_ABOVE_CHARS) return event;
  const lines = event.split('\n');
  const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart());
  if (data.length === 0) return event;
  const others = lines.filter((line) => !line.startsWith('data:'));
  return [...others, `data: ${trimUserHistory(data.join('\n'))}`].join('\n');
}

/**
 * Splits the byte stream into events without ever re-reading what it already scanned: the event
 * being received is kept as a list of pieces and joined once, when its blank line arrives (a
 * growing string searched again per chunk costs quadratic time on a multi-MiB event).
 */
class EventSplitter {
  private pieces: string[] = [];
  private endsWithNewline = false;
  /** The first TASK_ID_WINDOW characters of the event being received. */
  head = '';

  constructor(private readonly onEvent: (event: string) => void) {}

  feed(text: string): void {
    let from = 0;
    // A blank line split across two chunks: "…\n" then "\n…".
    if (this.endsWithNewline && text.startsWith('\n')) {
      const event = this.pieces.join('');
      this.reset();
      this.onEvent(event.slice(0, -1));
      from = 1;
    }
    for (;;) {
      const at = text.indexOf('\n\n', from);
      if (at < 0) break;
      const event = this.pieces.join('') + text.slice(from, at);
      this.reset();
      this.onEvent(event);
      from = at + 2;
    }
    const rest = text.slice(from);
    if (rest.length === 0) return;
    this.pieces.push(rest);
    this.endsWithNewline = rest.endsWith('\n');
    if (this.head.length < TASK_ID_WINDOW) this.head += rest.slice(0, TASK_ID_WINDOW - this.head.length);
  }

  /** Whatever is left when the stream ends (an event without its closing blank line). */
  rest(): string {
    const event = this.pieces.join('');
    this.reset();
    return event;
  }

  private reset(): void {
    this.pieces = [];
    this.endsWithNewline = false;
    this.head = '';
  }
}

export function trimmingSseStream(onTaskId?: (taskId: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carriage = '';
  let taskIdSeen = onTaskId === undefined;
  // Looks at an event's start, complete or still arriving, until a task id has been seen.
  const watchForTaskId = (text: string): void => {
    if (taskIdSeen) return;
    const taskId = taskIdIn(text);
    if (taskId === undefined) return;
    taskIdSeen = true;
    onTaskId?.(taskId);
  };
  // SSE allows CRLF, LF or CR line ends (Python servers send CRLF); events are re-emitted with LF.
  const normalise = (text: string, final: boolean): string => {
    let next = carriage + text;
    carriage = !final && next.endsWith('\r') ? '\r' : '';
    if (carriage) next = next.slice(0, -1);
    return next.replace(/\r\n?/g, '\n');
  };
  let controller!: TransformStreamDefaultController<Uint8Array>;
  const splitter = new EventSplitter((event) => {
    watchForTaskId(event);
    controller.enqueue(encoder.encode(`${rewriteEvent(event)}\n\n`));
  });
  return new TransformStream({
    start(streamController) {
      controller = streamController;
    },
    transform(chunk) {
      splitter.feed(normalise(decoder.decode(chunk, { stream: true }), false));
      watchForTaskId(splitter.head);
    },
    flush() {
      splitter.feed(normalise(decoder.decode(), true));
      const rest = splitter.rest();
      watchForTaskId(rest);
      if (rest.length > 0) controller.enqueue(encoder.encode(rewriteEvent(rest)));
    },
  });
}

export function withTrimmedSse(response: Response, onTaskId?: (taskId: string) => void): Response {
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  return new Response(response.body.pipeThrough(trimmingSseStream(onTaskId)), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Keeps A2A SSE events under @a2a-js/sdk's 4 MiB event limit.
 *
 * The first event of SendStreamingMessage is the task, and A2A servers echo the user's message in
 * its `history` — with an 8 MiB image (SPEC §2 limit) that event alone is over 11 MiB and the SDK
 * client throws (its parser also rescans the buffer per chunk, quadratic on such events). The
 * adapter never reads the user's own messages back (contract §B.2 reads only trailing *agent*
 * history), so this stream removes the data and raw parts of user messages from any large event
 * before the SDK sees it. Small events pass through byte for byte, unparsed.
 */
const TRIM_ABOVE_CHARS = 512 * 1024;

function trimUserHistory(json: string): string {
  let envelope: { result?: { task?: { history?: Array<{ role?: string; parts?: Array<Record<string, unknown>> }> } } };
  try {
    envelope = JSON.parse(json);
  } catch {
    return json;
  }
  const history = envelope.result?.task?.history;
  if (!Array.isArray(history)) return json;
  for (const message of history) {
    if (message.role === 'ROLE_USER' && Array.isArray(message.parts)) {
      message.parts = message.parts.filter((part) => part['data'] === undefined && part['raw'] === undefined);
    }
  }
  return JSON.stringify(envelope);
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
 * Splits the byte stream into events and rewrites each. An event's text is kept as a list of
 * pieces and only the newly arrived text is searched for the blank line that ends it: appending
 * to one growing string and searching it again per chunk made an 11 MiB event cost seconds of
 * copying (docs/architecture.md §4.1).
 */
export function trimmingSseStream(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pieces: string[] = [];
  let pendingEndsWithNewline = false;
  let carriage = '';
  // SSE allows CRLF, LF or CR line ends (Python servers send CRLF); events are re-emitted with LF.
  const normalise = (text: string, final: boolean): string => {
    let next = carriage + text;
    carriage = !final && next.endsWith('\r') ? '\r' : '';
    if (carriage) next = next.slice(0, -1);
    return next.replace(/\r\n?/g, '\n');
  };
  const takeEvent = (last: string): string => {
    const event = pieces.join('') + last;
    pieces = [];
    pendingEndsWithNewline = false;
    return event;
  };
  return new TransformStream({
    transform(chunk, controller) {
      let text = normalise(decoder.decode(chunk, { stream: true }), false);
      for (;;) {
        if (pendingEndsWithNewline && text.startsWith('\n')) {
          // The blank line straddles two chunks: the event ends with the pending text's last newline.
          const event = takeEvent('');
          controller.enqueue(encoder.encode(`${rewriteEvent(event.slice(0, -1))}\n\n`));
          text = text.slice(1);
          continue;
        }
        const end = text.indexOf('\n\n');
        if (end < 0) break;
        controller.enqueue(encoder.encode(`${rewriteEvent(takeEvent(text.slice(0, end)))}\n\n`));
        text = text.slice(end + 2);
      }
      if (text.length > 0) {
        pieces.push(text);
        pendingEndsWithNewline = text.endsWith('\n');
      }
    },
    flush(controller) {
      const event = takeEvent(normalise(decoder.decode(), true));
      if (event.length > 0) controller.enqueue(encoder.encode(rewriteEvent(event)));
    },
  });
}

export function withTrimmedSse(response: Response): Response {
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  return new Response(response.body.pipeThrough(trimmingSseStream()), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The SSE `id:` of each event a run's stream carries (docs/protocol.md §4.12), for the reattach
 * that continues after it with `Last-Event-ID` (§6.15). @ag-ui/client parses the stream and hands
 * out events without their ids, so the response body passes through this tap on its way to the
 * parser: each record is read here before the client sees its bytes, so when the client hands
 * over an event its record is already queued, and `idOf` pairs the two in order.
 */

interface TappedRecord {
  id: string | undefined;
  type: string | undefined;
}

/** A record ends at a blank line; the adapter writes `\n`, the SSE grammar also allows `\r\n`. */
const RECORD_END = /\r?\n\r?\n/;

export class EventIdTap {
  private readonly queue: TappedRecord[] = [];

  /** The same response, its body read through the tap. */
  wrap(response: Response): Response {
    if (!response.body) return response;
    const decoder = new TextDecoder();
    let buffer = '';
    const take = (text: string) => {
      buffer += text;
      const records = buffer.split(RECORD_END);
      buffer = records.pop() ?? '';
      for (const record of records) this.read(record);
    };
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          take(decoder.decode(chunk, { stream: true }));
          controller.enqueue(chunk);
        },
        flush() {
          take(`${decoder.decode()}\n\n`);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /**
   * The id of the record `event` was parsed from, if it had one. Records before it that the client
   * handed over no event for (none are expected) are passed over; an event no record of its type is
   * queued for is one the client made up, and has no id.
   */
  idOf(event: { type: string }): string | undefined {
    const index = this.queue.findIndex((record) => record.type === event.type);
    if (index < 0) return undefined;
    const [record] = this.queue.splice(0, index + 1).slice(-1);
    return record?.id;
  }

  private read(record: string): void {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of record.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      // A comment (a heartbeat) starts with a colon; a field without one has an empty value.
      if (colon === 0) continue;
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return;
    this.queue.push({ id, type: typeOf(data.join('\n')) });
  }
}

function typeOf(data: string): string | undefined {
  try {
    const parsed = JSON.parse(data) as { type?: unknown };
    return typeof parsed.type === 'string' ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads an SSE response while it is still streaming: wait for an event, act (cancel, kill an
 * instance…), then read on to the end. Complements sse.ts, which reads a finished body. Every
 * event read passes the strict AG-UI oracle (docs/protocol.md §4).
 */
import { sseBlockData } from '../../scripts/support/sse-events.js';
import { assertValidAgUiEvent } from './agui-oracle.js';

export type SseEvent = Record<string, unknown> & { type: string };

export class LiveSse {
  readonly events: SseEvent[] = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private ended = false;

  constructor(response: Response) {
    if (!response.body) throw new Error('response has no body');
    this.reader = response.body.getReader();
  }

  /** Reads until an event matches; throws if the stream ends (or breaks) first. */
  async until(predicate: (event: SseEvent) => boolean): Promise<SseEvent> {
    const seen = this.events.find(predicate);
    if (seen) return seen;
    for (;;) {
      const before = this.events.length;
      if (!(await this.readMore())) throw new Error(`stream ended before the awaited event; got ${this.events.map((event) => event.type).join(', ')}`);
      const found = this.events.slice(before).find(predicate);
      if (found) return found;
    }
  }

  /** Reads to the end; returns every event. A broken connection just ends the stream. */
  async rest(): Promise<SseEvent[]> {
    while (await this.readMore());
    return this.events;
  }

  private async readMore(): Promise<boolean> {
    if (this.ended) return false;
    let chunk: { done: boolean; value?: Uint8Array };
    try {
      chunk = await this.reader.read();
    } catch {
      this.ended = true;
      return false;
    }
    if (chunk.done) {
      this.ended = true;
      return false;
    }
    this.buffer += this.decoder.decode(chunk.value, { stream: true });
    const blocks = this.buffer.split('\n\n');
    this.buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const data = sseBlockData(block);
      if (data === undefined) continue;
      const event = JSON.parse(data) as SseEvent;
      assertValidAgUiEvent(event);
      this.events.push(event);
    }
    return true;
  }
}

export function isSessionEvent(event: SseEvent): boolean {
  return event.type === 'CUSTOM' && event['name'] === 'iac-code.session.v1';
}

/**
 * Reads an SSE body into events (and the raw text, for heartbeat and framing checks). Every event
 * read passes the strict AG-UI oracle, so each test that reads a stream also checks that no
 * event carries a key AG-UI 1.0 does not define (docs/protocol.md §4).
 */
import { parseSseEvents } from '../../scripts/support/sse-events.js';
import { assertValidAgUiEvent } from './agui-oracle.js';

export interface SseRecord {
  events: Array<Record<string, unknown> & { type: string }>;
  raw: string;
}

export function parseSse(raw: string): SseRecord {
  const events: SseRecord['events'] = parseSseEvents(raw);
  for (const event of events) assertValidAgUiEvent(event);
  return { events, raw };
}

export async function readSse(response: Response): Promise<SseRecord> {
  return parseSse(await response.text());
}

export function types(record: SseRecord): string[] {
  return record.events.map((event) => event.type);
}

/** Reads an SSE body into events (and the raw text, for heartbeat and framing checks). */
export interface SseRecord {
  events: Array<Record<string, unknown> & { type: string }>;
  raw: string;
}

export function parseSse(raw: string): SseRecord {
  const events: SseRecord['events'] = [];
  for (const block of raw.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data) events.push(JSON.parse(data));
  }
  return { events, raw };
}

export async function readSse(response: Response): Promise<SseRecord> {
  return parseSse(await response.text());
}

export function types(record: SseRecord): string[] {
  return record.events.map((event) => event.type);
}

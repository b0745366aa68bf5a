/**
 * Reading the adapter's SSE framing (docs/protocol.md §4.1) in scripts and tests: each event is a
 * block of `data:` lines ended by a blank line; a block without data (the `: heartbeat` comment,
 * docs/protocol.md §4.2) is no event.
 */

/** The data of one event block, its `data:` lines joined; undefined for a comment-only block. */
export function sseBlockData(block: string): string | undefined {
  const data = block
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trimStart())
    .join('\n');
  return data === '' ? undefined : data;
}

/** Every event of a whole SSE body, each parsed as JSON, in order. */
export function parseSseEvents<T = Record<string, unknown> & { type: string }>(raw: string): T[] {
  const events: T[] = [];
  for (const block of raw.split('\n\n')) {
    const data = sseBlockData(block);
    if (data !== undefined) events.push(JSON.parse(data) as T);
  }
  return events;
}

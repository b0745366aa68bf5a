/**
 * SSE records with their ids (docs/protocol.md §4.1, §4.12), read from a live response — to the
 * end, or until a proxy would cut the connection after a given number of records (the client's
 * socket closes; the server sees the caller leave).
 */
import { assertValidAgUiEvent } from './agui-oracle.js';

export interface SseRecordWithId {
  id: string;
  data: string;
  event: Record<string, unknown> & { type: string };
}

/** The complete records of a stream's text read so far (an unfinished last one left out). */
export function recordsOfText(text: string): SseRecordWithId[] {
  return parseRecords(text).records;
}

/** Parses complete records (`id:` and `data:` lines) out of `text`; returns them and the unfinished rest. */
export function parseRecords(text: string): { records: SseRecordWithId[]; rest: string } {
  const blocks = text.split('\n\n');
  const rest = blocks.pop() ?? '';
  const records: SseRecordWithId[] = [];
  for (const block of blocks) {
    if (block.startsWith(':')) continue;
    let id = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (!data) continue;
    const event = JSON.parse(data) as SseRecordWithId['event'];
    assertValidAgUiEvent(event);
    records.push({ id, data, event });
  }
  return { records, rest };
}

/**
 * Reads records until the stream ends, or — when `cutAfter` is given — until that many were read
 * (`cutWhen`: until a record it accepts was read),
 * then closes the connection as a proxy cutting it would (aborting `controller`).
 */
export async function readRecords(
  response: Response,
  options: { cutAfter?: number; cutWhen?: (record: SseRecordWithId) => boolean; controller?: AbortController } = {},
): Promise<{ records: SseRecordWithId[]; cut: boolean }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const records: SseRecordWithId[] = [];
  let buffer = '';
  for (;;) {
    let chunk: { done: boolean; value?: Uint8Array | undefined };
    try {
      chunk = await reader.read();
    } catch {
      return { records, cut: false };
    }
    if (chunk.done) return { records, cut: false };
    buffer += decoder.decode(chunk.value as Uint8Array, { stream: true });
    const parsed = parseRecords(buffer);
    buffer = parsed.rest;
    for (const record of parsed.records) {
      records.push(record);
      if ((options.cutAfter !== undefined && records.length >= options.cutAfter) || options.cutWhen?.(record)) {
        options.controller?.abort();
        await reader.cancel().catch(() => undefined);
        return { records, cut: true };
      }
    }
  }
}

/** All TEXT_MESSAGE_CONTENT deltas of the records, joined. */
export function textOfRecords(records: readonly SseRecordWithId[]): string {
  return records.flatMap((record) => (record.event.type === 'TEXT_MESSAGE_CONTENT' ? [record.event['delta'] as string] : [])).join('');
}

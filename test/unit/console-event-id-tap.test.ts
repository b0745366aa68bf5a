/**
 * The SSE id tap the console and IacCodeAgent share (lib/client/event-id-tap.ts, docs/protocol.md §4.12):
 * the body reaches the client unchanged, and each event the client hands over is paired with the
 * id of the record it came from — across chunk boundaries, `\r\n` records, heartbeats, records
 * without an id and events the client made up.
 */
import { describe, expect, it } from 'vitest';
import { EventIdTap } from '../../lib/client/event-id-tap.js';

function responseOf(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

const record = (id: string | undefined, type: string, extra = '') => `${id === undefined ? '' : `id: ${id}\n`}data: {"type":"${type}"${extra}}\n\n`;

describe('the console’s event id tap', () => {
  it('passes the body through unchanged and pairs each event with its record’s id, whatever the chunks', async () => {
    const text = [
      record('a.1.1.0', 'RUN_STARTED'),
      ': heartbeat\n\n',
      record('a.1.2.0', 'TEXT_MESSAGE_START', ',"messageId":"m"'),
      'id: a.1.3.2\r\ndata: {"type":"TEXT_MESSAGE_CONTENT","delta":"é日本"}\r\n\r\n',
      record(undefined, 'CUSTOM'),
      record('a.1.4.2', 'RUN_FINISHED'),
    ].join('');
    // Cut into 3-byte pieces: records, lines and a multi-byte character straddle chunks.
    const bytes = new TextEncoder().encode(text);
    const decoder = new TextDecoder();
    const pieces: string[] = [];
    for (let at = 0; at < bytes.length; at += 3) pieces.push(decoder.decode(bytes.slice(at, at + 3), { stream: true }));
    const tap = new EventIdTap();
    const passed = await tap.wrap(responseOf(pieces)).text();
    expect(passed).toBe(text);
    expect(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'CUSTOM', 'RUN_FINISHED'].map((type) => tap.idOf({ type }))).toEqual([
      'a.1.1.0',
      'a.1.2.0',
      'a.1.3.2',
      undefined,
      'a.1.4.2',
    ]);
  });

  it('gives no id to an event no record of its type is waiting for, and keeps the queue for the next', async () => {
    const tap = new EventIdTap();
    await tap.wrap(responseOf([record('x.1.1.0', 'RUN_STARTED'), record('x.1.2.0', 'TEXT_MESSAGE_END')])).text();
    expect(tap.idOf({ type: 'RUN_STARTED' })).toBe('x.1.1.0');
    expect(tap.idOf({ type: 'TEXT_MESSAGE_CONTENT' })).toBeUndefined();
    expect(tap.idOf({ type: 'TEXT_MESSAGE_END' })).toBe('x.1.2.0');
  });

  it('reads a last record that ends without its blank line', async () => {
    const tap = new EventIdTap();
    await tap.wrap(responseOf(['id: y.1.1.0\ndata: {"type":"RUN_ERROR"}'])).text();
    expect(tap.idOf({ type: 'RUN_ERROR' })).toBe('y.1.1.0');
  });
});

/**
 * A reader's records paced to how fast it reads (lib/core/reattach/paced-sender.ts), on the real SSE
 * source (lib/http/sse-source.ts) with a sink that takes chunks as a socket does — one at a time,
 * then "full" until drained. A catch-up of many times the stream's bound reaches a reader that reads,
 * whole and in order, with the source never holding more than about a slice; a reader that stops
 * reading while a live producer goes on still counts as gone at the bound; a reader that leaves
 * leaves nothing waiting.
 */
import { describe, expect, it } from 'vitest';
import { type LogRecord, recordOf } from '../../lib/core/journal/event-log.js';
import { PacedSender, SLICE_CHARS, type StreamFlow } from '../../lib/core/reattach/paced-sender.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';
import { type SseSink, SseSource } from '../../lib/http/sse-source.js';

const BOUND = 4 * 1024 * 1024;
const delta = 'x'.repeat(16 * 1024);
const content = (seq: number): LogRecord =>
  recordOf('tag', { epoch: 1, seq, k: seq * delta.length }, { type: 'TEXT_MESSAGE_CONTENT', timestamp: 1, messageId: 'm', delta } as AguiEvent);

/** A socket-like sink: it takes one chunk, then is full until `drain()`. */
function socket(source: SseSource) {
  const taken: Uint8Array[] = [];
  let full = false;
  const sink: SseSink = {
    write(chunk) {
      taken.push(chunk);
      full = true;
      return false;
    },
    end: () => undefined,
    abandon: () => undefined,
  };
  source.attach(sink);
  return {
    taken,
    drain(): boolean {
      if (!full) return false;
      full = false;
      source.resume();
      return true;
    },
  };
}

function paced(source: SseSource, signal = new AbortController().signal) {
  let mostQueued = 0;
  const encoder = new TextEncoder();
  const flow: StreamFlow = { backlogged: () => source.backlogged, drained: () => source.whenDrained(), maxWaitingBytes: BOUND };
  const sender = new PacedSender<LogRecord>(
    (records) => {
      for (const record of records) source.push(encoder.encode(record.sse));
      mostQueued = Math.max(mostQueued, (source as unknown as { queuedBytes: number }).queuedBytes);
    },
    (record) => record,
    flow,
    signal,
  );
  return { sender, mostQueued: () => mostQueued };
}

const textOf = (chunks: readonly Uint8Array[]): string => Buffer.concat(chunks).toString('utf8');

describe('a catch-up paced to its reader', () => {
  it('reaches a reader that reads — ten times the bound, whole and in order — the source holding about a slice at most', async () => {
    let gone = false;
    const source = new SseSource(() => {
      gone = true;
    }, BOUND);
    const reader = socket(source);
    const { sender, mostQueued } = paced(source);
    const records = Array.from({ length: (10 * BOUND) / delta.length }, (_, index) => content(index + 1));
    sender.push(records);
    const idle = sender.idle();
    let settled = false;
    void idle.then(() => {
      settled = true;
    });
    // The reader reads: one chunk per turn, as a socket drains.
    for (let turns = 0; !settled && turns < 100_000; turns += 1) {
      reader.drain();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(settled).toBe(true);
    while (reader.drain()) await new Promise((resolve) => setImmediate(resolve));
    expect(gone).toBe(false);
    expect(textOf(reader.taken)).toBe(records.map((record) => record.sse).join(''));
    expect(mostQueued()).toBeLessThanOrEqual(SLICE_CHARS + delta.length + 100);
  });

  it('still lets a reader go that stops reading while a live producer goes on past the bound', () => {
    let gone: string | undefined;
    const source = new SseSource((why) => {
      gone = why;
    }, BOUND);
    socket(source);
    const { sender } = paced(source);
    for (let seq = 1; seq <= (2 * BOUND) / delta.length && gone === undefined; seq += 1) sender.push([content(seq)], true);
    expect(gone).toBe('unread');
  });

  it('drops what waits when the reader leaves, and no one waits on a drain that never comes', async () => {
    const source = new SseSource(() => undefined, BOUND);
    socket(source);
    const leaving = new AbortController();
    const { sender } = paced(source, leaving.signal);
    sender.push(Array.from({ length: (3 * BOUND) / delta.length }, (_, index) => content(index + 1)));
    const idle = sender.idle();
    leaving.abort();
    await expect(idle).resolves.toBeUndefined();
  });
});

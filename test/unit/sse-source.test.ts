/**
 * The push-style source behind an SSE response (lib/http/sse-source.ts): a shell that attaches to
 * it directly gets every chunk once, in order, held back while its socket is full, and the end only
 * after everything queued; a cancel stops it and tells the run. The Response's ordinary body reads
 * the same source, for callers of `app.fetch` that are no shell (docs/protocol.md §4.2).
 */
import { describe, expect, it } from 'vitest';
import { SseSource, sseSourceOf, sseSourceResponse } from '../../lib/http/sse-source.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const textOf = (chunks: Uint8Array[]) => chunks.map((chunk) => new TextDecoder().decode(chunk)).join('');

/** A sink that takes `room` chunks, then asks the source to wait. */
function sink(room: number) {
  const written: Uint8Array[] = [];
  const state = { room, ended: false };
  return {
    written,
    state,
    sink: {
      write(chunk: Uint8Array) {
        written.push(chunk);
        state.room -= 1;
        return state.room > 0;
      },
      end() {
        state.ended = true;
      },
    },
  };
}

describe('an SSE source', () => {
  it('hands a late reader what came before it, in order, and the end only after it', () => {
    const source = new SseSource(() => undefined);
    source.push(bytes('a'));
    source.push(bytes('b'));
    source.end();
    const reader = sink(10);
    source.attach(reader.sink);
    expect(textOf(reader.written)).toBe('ab');
    expect(reader.state.ended).toBe(true);
  });

  it('holds chunks while the reader waits for its socket, and ends only once they are all written', () => {
    const source = new SseSource(() => undefined);
    const reader = sink(1);
    source.attach(reader.sink);
    source.push(bytes('1'));
    source.push(bytes('2'));
    source.push(bytes('3'));
    source.end();
    expect(textOf(reader.written)).toBe('1');
    expect(reader.state.ended).toBe(false);
    reader.state.room = 1;
    source.resume();
    expect(textOf(reader.written)).toBe('12');
    expect(reader.state.ended).toBe(false);
    reader.state.room = 5;
    source.resume();
    expect(textOf(reader.written)).toBe('123');
    expect(reader.state.ended).toBe(true);
  });

  it('stops taking chunks once cancelled, tells the run once, and never ends the reader', () => {
    let cancels = 0;
    const source = new SseSource(() => {
      cancels += 1;
    });
    const reader = sink(10);
    source.attach(reader.sink);
    source.push(bytes('a'));
    source.cancel();
    source.cancel();
    source.push(bytes('b'));
    source.end();
    expect(textOf(reader.written)).toBe('a');
    expect(cancels).toBe(1);
    expect(source.open).toBe(false);
    expect(reader.state.ended).toBe(false);
  });

  it('counts a reader whose queue passes the bound as gone: the queue dropped, its connection let go, the run told once; its end still comes', () => {
    const gone: string[] = [];
    const source = new SseSource((why) => gone.push(why), 10);
    const reader = sink(1);
    let abandoned = 0;
    source.attach({ ...reader.sink, abandon: () => (abandoned += 1) });
    source.push(bytes('first'));
    source.push(bytes('12345'));
    source.push(bytes('67890'));
    expect(source.open).toBe(true);
    source.push(bytes('!'));
    expect(source.open).toBe(false);
    expect(gone).toEqual(['unread']);
    expect(abandoned).toBe(1);
    source.push(bytes('dropped'));
    reader.state.room = 10;
    source.resume();
    expect(textOf(reader.written)).toBe('first');
    // The run's clean-up finished: the reader gets the end (its request leaves the in-flight set).
    source.end();
    expect(reader.state.ended).toBe(true);
    source.cancel();
    expect(gone).toEqual(['unread']);
  });

  it('counts a reader that came after the bound was passed as gone too: it gets only the end', () => {
    const gone: string[] = [];
    const source = new SseSource((why) => gone.push(why), 4);
    source.push(bytes('12345'));
    expect(gone).toEqual(['unread']);
    source.end();
    const reader = sink(10);
    let abandoned = 0;
    source.attach({ ...reader.sink, abandon: () => (abandoned += 1) });
    expect(reader.written).toEqual([]);
    expect(abandoned).toBe(1);
    expect(reader.state.ended).toBe(true);
  });

  it('takes one reader only', () => {
    const source = new SseSource(() => undefined);
    source.attach(sink(1).sink);
    expect(() => source.attach(sink(1).sink)).toThrow(/one reader/);
  });
});

describe('the Response of an SSE source', () => {
  it('reads the source through its ordinary body, and names the source for a shell', async () => {
    const source = new SseSource(() => undefined);
    const response = sseSourceResponse(source, { status: 200 });
    expect(sseSourceOf(response)).toBe(source);
    expect(sseSourceOf(new Response('x'))).toBeUndefined();
    source.push(bytes('data: 1\n\n'));
    const body = response.text();
    source.push(bytes('data: 2\n\n'));
    source.end();
    expect(await body).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('cancels the source when the body is cancelled', async () => {
    let cancelled = false;
    const source = new SseSource(() => {
      cancelled = true;
    });
    const response = sseSourceResponse(source, { status: 200 });
    await response.body?.cancel();
    expect(cancelled).toBe(true);
  });
});

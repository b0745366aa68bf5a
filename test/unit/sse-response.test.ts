import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../lib/adapters/logger.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';
import { sseResponse } from '../../lib/http/sse.js';

/** Reads a body into `into` record by record as it arrives (the SSE framing of docs/protocol.md §4.2). */
function collect(response: Response, into: string[]): Promise<void> {
  return (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as ReadableStream<Uint8Array>) into.push(...decoder.decode(chunk).split('\n\n').filter(Boolean));
  })();
}

/** An SSE response whose run emits what the test says and ends when the test says. */
function openRun(heartbeatMs: number): { response: Response; emit: (event: AguiEvent) => void; finish: () => void } {
  const run = { emit: (_event: AguiEvent): void => undefined, end: (): void => undefined };
  const response = sseResponse(
    (write) => {
      run.emit = write;
      return new Promise<void>((resolve) => (run.end = resolve));
    },
    { heartbeatMs, logger: silentLogger, requestSignal: new AbortController().signal },
  );
  return { response, emit: (event) => run.emit(event), finish: () => run.end() };
}

const text = (delta: string) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta }) as unknown as AguiEvent;

describe('the SSE response of a run', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes a heartbeat only after a whole quiet interval, counted from the last event, and none after the end', async () => {
    const { response, emit, finish } = openRun(1_000);
    const records: string[] = [];
    const reading = collect(response, records);
    // Events every 600 ms: no interval is ever quiet.
    for (const delta of ['a', 'b', 'c']) {
      emit(text(delta));
      await vi.advanceTimersByTimeAsync(600);
    }
    expect(records.filter((record) => record.startsWith(':'))).toEqual([]);
    // 1,000 ms after the last event (600 have passed): one heartbeat, then one per quiet interval.
    await vi.advanceTimersByTimeAsync(399);
    expect(records.at(-1)).toBe('data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"c"}');
    await vi.advanceTimersByTimeAsync(1);
    expect(records.at(-1)).toBe(': heartbeat');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(records.filter((record) => record === ': heartbeat')).toHaveLength(2);
    finish();
    await reading;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(records.filter((record) => record === ': heartbeat')).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('aborts the run when the request is aborted, with its reason, and stops listening to the request once the run ended', async () => {
    const request = new AbortController();
    let seen: unknown;
    const signal = request.signal;
    const added = vi.spyOn(signal, 'addEventListener');
    const removed = vi.spyOn(signal, 'removeEventListener');
    const response = sseResponse(
      (_emit, runSignal) =>
        new Promise<void>((resolve) =>
          runSignal.addEventListener('abort', () => {
            seen = runSignal.reason;
            resolve();
          }),
        ),
      { heartbeatMs: 1_000, logger: silentLogger, requestSignal: signal },
    );
    const reading = collect(response, []);
    const reason = new Error('client disconnected');
    request.abort(reason);
    await reading;
    expect(seen).toBe(reason);
    expect(added.mock.calls.map(([type]) => type)).toEqual(['abort']);
    expect(removed.mock.calls.map(([type, listener]) => [type, listener])).toEqual([['abort', added.mock.calls[0]?.[1]]]);
  });
});

describe('the chunks an SSE response is written in', () => {
  it('sends an event that follows a quiet moment at once and gathers the rest of its burst into one chunk, in order', async () => {
    const { response, emit, finish } = openRun(60_000);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const nextChunk = async (): Promise<string[]> => {
      const { value } = await reader.read();
      return decoder.decode(value).split('\n\n').filter(Boolean);
    };
    const delta = (record: string): string => (JSON.parse(record.slice('data: '.length)) as { delta: string }).delta;
    // A burst in one turn of the event loop, as a kernel chunk full of deltas makes.
    for (const letter of ['a', 'b', 'c', 'd']) emit(text(letter));
    expect((await nextChunk()).map(delta)).toEqual(['a']);
    expect((await nextChunk()).map(delta)).toEqual(['b', 'c', 'd']);
    // Quiet again: the next event waits for nothing.
    await new Promise((resolve) => setImmediate(resolve));
    emit(text('e'));
    expect((await nextChunk()).map(delta)).toEqual(['e']);
    // What is gathered when the run ends still goes out, before the end.
    emit(text('f'));
    emit(text('g'));
    finish();
    const rest: string[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest.push(...decoder.decode(chunk.value).split('\n\n').filter(Boolean));
    expect(rest.map(delta)).toEqual(['f', 'g']);
  });
});

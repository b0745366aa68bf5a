import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../lib/adapters/logger.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';
import { sseResponse } from '../../lib/http/sse.js';

/** Reads a body into `into` record by record as it arrives (the SSE framing of docs/protocol.md §4.1). */
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

/** Reads a body chunk by chunk, each chunk as its list of records. */
function chunksOf(response: Response): { next: () => Promise<string[]>; rest: () => Promise<string[]> } {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const records = (value: Uint8Array | undefined): string[] => decoder.decode(value).split('\n\n').filter(Boolean);
  return {
    next: async () => records((await reader.read()).value),
    rest: async () => {
      const rest: string[] = [];
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest.push(...records(chunk.value));
      return rest;
    },
  };
}

const eventOf = (record: string): Record<string, unknown> => JSON.parse(record.slice('data: '.length)) as Record<string, unknown>;
const deltaOf = (record: string): unknown => eventOf(record)['delta'];
const quietMoment = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the chunks an SSE response is written in', () => {
  it('sends an event that follows a quiet moment at once and gathers the rest of its burst into one chunk, in order', async () => {
    const { response, emit, finish } = openRun(60_000);
    const chunks = chunksOf(response);
    const tool = (name: string) => ({ type: 'TOOL_CALL_START', toolCallId: name, toolCallName: name }) as unknown as AguiEvent;
    // A burst in one turn of the event loop, as a kernel chunk full of signals makes.
    emit(text('a'));
    emit(tool('b'));
    emit(tool('c'));
    emit(tool('d'));
    expect((await chunks.next()).map(deltaOf)).toEqual(['a']);
    expect((await chunks.next()).map((record) => eventOf(record)['toolCallId'])).toEqual(['b', 'c', 'd']);
    // Quiet again: the next event waits for nothing.
    await quietMoment();
    emit(text('e'));
    expect((await chunks.next()).map(deltaOf)).toEqual(['e']);
    // What is gathered when the run ends still goes out, before the end.
    emit(tool('f'));
    emit(tool('g'));
    finish();
    expect((await chunks.rest()).map((record) => eventOf(record)['toolCallId'])).toEqual(['f', 'g']);
  });
});

describe('the deltas of a burst (docs/protocol.md §4.1)', () => {
  const delta = (type: string, owner: Record<string, string>, value: string, timestamp = 1) => ({ type, timestamp, ...owner, delta: value }) as unknown as AguiEvent;

  it("go out as one event per message when they follow each other, with the first delta's fields, leaving the emitted events unchanged", async () => {
    const { response, emit, finish } = openRun(60_000);
    const chunks = chunksOf(response);
    const emitted = ['Fast ', 'answer ', 'for ', 'you.'].map((value, index) => delta('TEXT_MESSAGE_CONTENT', { messageId: 'm' }, value, 100 + index));
    for (const event of emitted) emit(event);
    // The first delta followed a quiet moment: it went out alone, at once; the rest merged.
    expect(await chunks.next()).toEqual(['data: {"type":"TEXT_MESSAGE_CONTENT","timestamp":100,"messageId":"m","delta":"Fast "}']);
    expect(await chunks.next()).toEqual(['data: {"type":"TEXT_MESSAGE_CONTENT","timestamp":101,"messageId":"m","delta":"answer for you."}']);
    expect(emitted.map((event) => (event as unknown as { delta: string }).delta)).toEqual(['Fast ', 'answer ', 'for ', 'you.']);
    finish();
    expect(await chunks.rest()).toEqual([]);
  });

  it("stay apart across messages, tool calls, kinds of delta and any other event, in order; a tool call's argument deltas merge too", async () => {
    const { response, emit, finish } = openRun(60_000);
    const chunks = chunksOf(response);
    emit({ type: 'RUN_STARTED', threadId: 't', runId: 'r' } as unknown as AguiEvent);
    for (const event of [
      delta('TEXT_MESSAGE_CONTENT', { messageId: 'm' }, 'a'),
      delta('TEXT_MESSAGE_CONTENT', { messageId: 'm' }, 'b'),
      delta('TEXT_MESSAGE_CONTENT', { messageId: 'n' }, 'c'),
      delta('REASONING_MESSAGE_CONTENT', { messageId: 'n' }, 'd'),
      delta('REASONING_MESSAGE_CONTENT', { messageId: 'n' }, 'e'),
      { type: 'TEXT_MESSAGE_END', messageId: 'm' } as unknown as AguiEvent,
      delta('TEXT_MESSAGE_CONTENT', { messageId: 'm' }, 'f'),
      delta('TOOL_CALL_ARGS', { toolCallId: 't1' }, '{"a":'),
      delta('TOOL_CALL_ARGS', { toolCallId: 't1' }, '1}'),
      delta('TOOL_CALL_ARGS', { toolCallId: 't2' }, '{}'),
    ])
      emit(event);
    await chunks.next();
    const burst = (await chunks.next()).map(eventOf);
    expect(burst.map((event) => [event['type'], event['messageId'] ?? event['toolCallId'], event['delta']])).toEqual([
      ['TEXT_MESSAGE_CONTENT', 'm', 'ab'],
      ['TEXT_MESSAGE_CONTENT', 'n', 'c'],
      ['REASONING_MESSAGE_CONTENT', 'n', 'de'],
      ['TEXT_MESSAGE_END', 'm', undefined],
      ['TEXT_MESSAGE_CONTENT', 'm', 'f'],
      ['TOOL_CALL_ARGS', 't1', '{"a":1}'],
      ['TOOL_CALL_ARGS', 't2', '{}'],
    ]);
    finish();
    await chunks.rest();
  });

  it('held when a heartbeat is due go out before it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { response, emit, finish } = openRun(1_000);
      const chunks = chunksOf(response);
      emit(text('a'));
      emit(text('b'));
      emit(text('c'));
      // The heartbeat's timer fires within the burst's turn (the loop was held up for a whole
      // interval), before the gathered records go out: the held deltas still come first.
      vi.advanceTimersByTime(1_000);
      expect((await chunks.next()).map(deltaOf)).toEqual(['a']);
      expect(await chunks.next()).toEqual(['data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"bc"}', ': heartbeat']);
      finish();
      expect(await chunks.rest()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('held at the end of the run still go out, merged, before the end', async () => {
    const { response, emit, finish } = openRun(60_000);
    const chunks = chunksOf(response);
    emit(text('a'));
    emit(text('b'));
    emit(text('c'));
    finish();
    expect((await chunks.next()).map(deltaOf)).toEqual(['a']);
    expect((await chunks.rest()).map(deltaOf)).toEqual(['bc']);
  });
});

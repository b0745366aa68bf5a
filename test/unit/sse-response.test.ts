import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../lib/adapters/logger.js';
import type { LogRecord } from '../../lib/core/journal/event-log.js';
import { sseResponse } from '../../lib/http/sse.js';

/** Reads a body into `into` record by record as it arrives (the SSE framing of docs/protocol.md §4.1). */
function collect(response: Response, into: string[]): Promise<void> {
  return (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as ReadableStream<Uint8Array>) into.push(...decoder.decode(chunk).split('\n\n').filter(Boolean));
  })();
}

/** An SSE response whose body sends what the test says and ends when the test says. */
function openRun(heartbeatMs: number): { response: Response; emit: (record: LogRecord) => void; finish: () => void } {
  const run = { send: (_records: readonly LogRecord[]): void => undefined, end: (): void => undefined };
  const response = sseResponse(
    (send) => {
      run.send = send;
      return new Promise<void>((resolve) => (run.end = resolve));
    },
    { heartbeatMs, logger: silentLogger, requestSignal: new AbortController().signal },
  );
  return { response, emit: (record) => run.send([record]), finish: () => run.end() };
}

let seq = 0;
const text = (delta: string): LogRecord => {
  seq += 1;
  const event = { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta } as unknown as LogRecord['event'];
  return { position: { epoch: 1, seq, k: seq }, id: `x.1.${seq}.${seq}`, event, sse: `id: x.1.${seq}.${seq}\ndata: ${JSON.stringify(event)}\n\n` };
};

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
    expect(records.at(-1)).toMatch(/^id: x\.1\.\d+\.\d+\ndata: \{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"c"\}$/);
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

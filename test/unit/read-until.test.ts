/**
 * The tests' wait helper (test/support/read-until.ts, docs/architecture.md §9.8): it returns once
 * the marker came, and fails — never hangs — when the stream ends or goes quiet first, quoting what
 * it saw.
 */
import { describe, expect, it } from 'vitest';
import { readUntil, StreamText, waitFor, within } from '../support/read-until.js';

const encoder = new TextEncoder();

/** A stream of `chunks`, then either its end or (`quiet`) nothing ever again. */
function streamOf(chunks: string[], quiet = false): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!quiet) controller.close();
    },
  });
}

describe('readUntil', () => {
  it('returns once the marker appeared, across chunks, and reads on from there', async () => {
    const stream = await readUntil(streamOf(['data: {"type":"RUN_', 'STARTED"}\n\n', 'data: {"type":"RUN_FINISHED"}\n\n']), 'RUN_STARTED');
    expect(stream.text).toContain('RUN_STARTED');
    expect(await stream.rest()).toContain('RUN_FINISHED');
    expect(stream.ended).toBe(true);
  });

  it('fails at once with what it saw when the stream ends before the marker', async () => {
    await expect(readUntil(streamOf(['data: {"type":"RUN_STARTED"}\n\n']), 'TEXT_MESSAGE_CONTENT')).rejects.toThrow(
      'stream ended before "TEXT_MESSAGE_CONTENT"; saw: data: {"type":"RUN_STARTED"}',
    );
  });

  it('fails at its deadline with what it saw when the stream goes quiet', async () => {
    await expect(readUntil(streamOf([': heartbeat\n\n'], true), /RUN_ERROR/, { timeoutMs: 50, what: 'the terminal event' })).rejects.toThrow(
      'no the terminal event within 50 ms; saw: : heartbeat',
    );
  });

  it('says a broken stream broke', async () => {
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('socket hang up'));
      },
    });
    await expect(new StreamText(broken).until('x')).rejects.toThrow(/broke \(Error: socket hang up\) before "x"/);
  });
});

describe('waitFor and within', () => {
  it('waitFor returns once the condition holds and fails with what the condition saw', async () => {
    let checks = 0;
    await waitFor(() => ++checks >= 3, { stepMs: 1 });
    expect(checks).toBe(3);
    await expect(waitFor(() => false, { timeoutMs: 30, what: 'CancelTask', seen: () => ['SendStreamingMessage'] })).rejects.toThrow(
      'no CancelTask within 30 ms; saw: ["SendStreamingMessage"]',
    );
  });

  it('within passes a settled value through and names what did not happen', async () => {
    expect(await within(Promise.resolve(7), 1_000, 'the answer')).toBe(7);
    await expect(within(new Promise(() => undefined), 20, 'the close')).rejects.toThrow('the close did not happen within 20 ms');
  });
});

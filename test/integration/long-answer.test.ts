/**
 * An answer far over the A2A SDK's 4 MiB event limit (docs/protocol.md §7.1): the kernel streams it
 * in deltas, then repeats all of it in one final `assistantFinal` status — one SSE line of 24 MiB,
 * which used to fail the whole run with A2A_UNAVAILABLE ("SSE line exceeded the maximum allowed
 * size"). The adapter cuts that event into pieces before the SDK parses it; the caller sees the
 * answer once, exactly, and RUN_FINISHED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hugeAnswer } from '../../lib/emulators/a2a/scenarios.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { lastEvent } from '../support/interrupts.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

const MiB = 1024 * 1024;

function textOf(events: ReadonlyArray<Record<string, unknown>>): string {
  return events
    .filter((event) => event['type'] === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event['delta'] as string)
    .join('');
}

describe('a long answer', () => {
  it('of 24 MiB streams to its end and RUN_FINISHED, its final repeat (one 24 MiB event) shown nowhere', async () => {
    const answer = hugeAnswer(24).join('');
    expect(Buffer.byteLength(answer)).toBeGreaterThanOrEqual(24 * MiB);
    const threadId = uniqueId('huge');
    const { status, sse } = await stack.run(runBody({ threadId, text: 'huge 24' }));
    expect(status).toBe(200);
    expect(sse.events.filter((event) => event.type === 'RUN_ERROR')).toEqual([]);
    expect(lastEvent(sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // Exactly the kernel's text, once: the deltas, not the final repeat as well.
    expect(textOf(sse.events) === answer).toBe(true);
    expect(types(sse).filter((type) => type === 'TEXT_MESSAGE_START')).toHaveLength(1);
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
    expect((await stack.store.load(threadId))?.document).toMatchObject({ activeRun: null });
  }, 120_000);

  it('of 6 MiB said only in the final status (nothing streamed before it): all of it, in order, once', async () => {
    const answer = hugeAnswer(6).join('');
    const { sse } = await stack.run(runBody({ threadId: uniqueId('huge'), text: 'huge 6 unstreamed' }));
    expect(lastEvent(sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const text = textOf(sse.events);
    expect(text.length).toBe(answer.length);
    expect(text === answer).toBe(true);
    // One message, its pieces under the final's own id.
    const ids = new Set(sse.events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT').map((event) => event['messageId']));
    expect(ids.size).toBe(1);
  }, 120_000);
});

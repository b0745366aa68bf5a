/**
 * Once the user's message has been sent, the kernel has a task running for it: a run that fails
 * after that point must cancel the task (docs/protocol.md §2.4, §6.8) — even when the stream broke
 * before the adapter could parse a single event, so the task id was only ever on the wire. And a
 * large text message (up to the 12 MiB body limit) must work: the kernel's echo of it must not
 * break the A2A client's 4 MiB event limit (docs/protocol.md §7.1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBody, uniqueId } from '../support/fixtures.js';
import { lastEvent } from '../support/interrupts.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

describe('a large text message', () => {
  it('of 11 MiB streams to the end: the kernel gets all of it, the run succeeds, nothing is cancelled', async () => {
    const text = `hello ${'y'.repeat(11 * 1024 * 1024)}`;
    const threadId = uniqueId('large-text');
    const { status, sse } = await stack.run(runBody({ threadId, text }));
    expect(status).toBe(200);
    expect(lastEvent(sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const sent = stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ text?: string }> } };
    expect(sent.message.parts.map((part) => part.text ?? '').join('')).toBe(text);
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
    expect((await stack.store.load(threadId))?.document).toMatchObject({ activeRun: null });
  }, 60_000);
});

describe('a stream that breaks after the send', () => {
  it('in the middle of its first event: RUN_ERROR A2A_UNAVAILABLE, CancelTask for the task the kernel started, the thread released', async () => {
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    stack.emulator.controls.rpcFaults.push({ method: 'SendStreamingMessage', kind: 'cutFirstEvent' });
    const threadId = uniqueId('cut-stream');
    const { sse } = await stack.run(runBody({ threadId, text: 'long' }));
    expect(lastEvent(sse)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });
    const started = [...stack.emulator.executor.scripts.keys()].at(-1);
    const cancels = stack.emulator.callsOf('CancelTask').slice(cancelsBefore);
    expect(cancels.map((call) => (call.params as { id: string }).id)).toEqual([started]);
    expect(stack.emulator.executor.scripts.get(started as string)?.ended).toBe(true);
    expect((await stack.store.load(threadId))?.document).toMatchObject({ activeRun: null });
    // The thread takes the next turn.
    expect(lastEvent((await stack.run(runBody({ threadId }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});

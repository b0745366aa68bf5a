/**
 * OSS faults through the real adapter (docs/protocol.md §6.9; docs/architecture.md §3.3): the in-process stack on the OSS
 * driver against the OSS emulator and the A2A emulator. A failing OSS before the stream is 503
 * STATE_UNAVAILABLE with nothing sent to A2A; during the stream RUN_ERROR STATE_PERSISTENCE_FAILED
 * with the A2A task cancelled; an interrupt is announced only once it is durable in OSS — and lost
 * answers on every single write do not change any of that.
 *
 * A new thread's writes are: revision 1 admission, 2 task/session ids, 3 the run's end (interrupt
 * or success, lease released) — see docs/state-store.md "Request counts".
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, threadCalls } from '../support/interrupts.js';
import { objectKeyOf, ossStore, storedEnvelope, storedRevisions } from '../support/oss.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let oss: OssEmulator;
let stack: Stack;

beforeAll(async () => {
  oss = await startOssEmulator();
  stack = await startStack({ store: ossStore(oss, { timeoutMs: 300, attempts: 3 }) });
});
afterAll(async () => {
  await stack.close();
  await oss.close();
});
beforeEach(() => oss.clearFaults());

interface StoredThread {
  activeRun: unknown;
  execution: { pending: Array<{ id: string }>; taskId: string | null };
}

function newestDocument(threadId: string): StoredThread {
  const newest = storedRevisions(oss, threadId)[0] as number;
  return storedEnvelope(oss, threadId, newest)?.document as StoredThread;
}

describe('before the stream', () => {
  it('answers 503 STATE_UNAVAILABLE and calls nothing on A2A when OSS answers 5xx', async () => {
    for (const fault of [
      { operation: 'ListObjectsV2', status: 500 },
      { operation: 'PutObject', status: 503 },
    ]) {
      const threadId = uniqueId('thread');
      oss.addFault({ ...fault, keyPrefix: `agui/threads/${threadId}/`, times: Infinity });
      const response = await stack.post('/', runBody({ threadId }));
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: { code: 'STATE_UNAVAILABLE' } });
      expect(threadCalls(stack, threadId, 'SendStreamingMessage')).toHaveLength(0);
      expect(storedRevisions(oss, threadId)).toEqual([]);
    }
  });

  it('answers 503 when OSS is slower than the driver timeout', async () => {
    const threadId = uniqueId('thread');
    oss.addFault({ operation: 'ListObjectsV2', keyPrefix: `agui/threads/${threadId}/`, delayMs: 1_000, times: Infinity });
    const response = await stack.post('/', runBody({ threadId }));
    expect(response.status).toBe(503);
    expect(threadCalls(stack, threadId, 'SendStreamingMessage')).toHaveLength(0);
  });
});

describe('during the stream', () => {
  it('ends with RUN_ERROR STATE_PERSISTENCE_FAILED and cancels the task when a write fails', async () => {
    const threadId = uniqueId('thread');
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    // Every try of the task-id write fails; the release afterwards succeeds.
    oss.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), status: 500, times: 3 });
    const { sse } = await stack.run(runBody({ threadId }));
    expect(types(sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(sse.events[1]).toMatchObject({ code: 'STATE_PERSISTENCE_FAILED' });
    expect(threadCalls(stack, threadId, 'SendStreamingMessage')).toHaveLength(1);
    expect(stack.emulator.callsOf('CancelTask').length).toBe(cancelsBefore + 1);
    // The thread is released, so the next turn runs.
    expect(newestDocument(threadId).activeRun).toBeNull();
    expect((await stack.run(runBody({ threadId }))).sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('ends the same way when OSS is slower than the driver timeout mid-run', async () => {
    const threadId = uniqueId('thread');
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    oss.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 2), delayMs: 2_000, times: 3 });
    const { sse } = await stack.run(runBody({ threadId }));
    expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'STATE_PERSISTENCE_FAILED' });
    expect(stack.emulator.callsOf('CancelTask').length).toBe(cancelsBefore + 1);
  });

  it('never announces an interrupt that could not be made durable, and cancels its task', async () => {
    const threadId = uniqueId('thread');
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    oss.addFault({ operation: 'PutObject', keyPrefix: objectKeyOf(threadId, 3), status: 503, times: Infinity });
    const { sse } = await stack.run(runBody({ threadId, text: 'permission' }));
    expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'STATE_PERSISTENCE_FAILED' });
    expect(JSON.stringify(sse.events)).not.toContain('"type":"interrupt"');
    expect(stack.emulator.callsOf('CancelTask').length).toBe(cancelsBefore + 1);
  });
});

describe('lost answers on every write', () => {
  it('still finish the turn and leave the announced interrupt durable in OSS', async () => {
    const threadId = uniqueId('thread');
    oss.addFault({ operation: 'PutObject', keyPrefix: `agui/threads/${threadId}/`, dropAfterApply: true, times: Infinity });
    const { sse } = await stack.run(runBody({ threadId, text: 'permission' }));
    const [interrupt] = interruptsOf(sse);
    expect(interrupt).toBeDefined();
    const stored = newestDocument(threadId);
    expect(stored.execution.pending.map((pending) => pending.id)).toEqual([interrupt?.id]);
    expect(stored.activeRun).toBeNull();
    // Each write landed exactly once: revisions 1..3, no duplicates, no gaps.
    expect(storedRevisions(oss, threadId)).toEqual([3, 2, 1]);
  });
});

/**
 * Fail-closed state handling and the lease under time (docs/protocol.md §6.6, §6.9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultyStore } from '../support/faulty-store.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { MemoryThreadStore } from '../support/memory-store.js';
import { readSse, types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
let store: FaultyStore;

beforeAll(async () => {
  store = new FaultyStore(new MemoryThreadStore());
  stack = await startStack({ store, config: { leaseTtlMs: 400, leaseRenewMs: 100 } });
});
afterAll(async () => stack.close());

describe('store failures', () => {
  it('answers 503 STATE_UNAVAILABLE before the stream when the thread cannot be read or admitted', async () => {
    store.failLoads(true);
    const unreadable = await stack.post('/', runBody());
    store.failLoads(false);
    expect(unreadable.status).toBe(503);
    expect(((await unreadable.json()) as { error: { code: string } }).error.code).toBe('STATE_UNAVAILABLE');
    store.failSaveAfter(1);
    const unwritable = await stack.post('/', runBody());
    expect(unwritable.status).toBe(503);
    // Nothing reached A2A for either request.
    expect(stack.emulator.callsOf('SendStreamingMessage')).toHaveLength(0);
  });

  it('ends with STATE_PERSISTENCE_FAILED and cancels the task when the task id cannot be made durable', async () => {
    const threadId = uniqueId('thread');
    // The write that records the task id (the identity commit) fails — whatever renewals of the
    // 100 ms lease land before it.
    store.failSaveWhen((id, document) => id === threadId && (document as { execution: { taskId: string | null } }).execution.taskId !== null);
    const { sse } = await stack.run(runBody({ threadId }));
    expect(types(sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(sse.events[1]).toMatchObject({ code: 'STATE_PERSISTENCE_FAILED' });
    // Nothing revealed the task id, yet the adapter knows it and cancelled it.
    expect(JSON.stringify(sse.events)).not.toContain('taskId');
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(1);
    // The thread is usable again afterwards.
    expect((await stack.run(runBody({ threadId }))).sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});

describe('the lease over time', () => {
  it('is renewed while a run streams longer than its TTL, so the thread stays busy', async () => {
    const threadId = uniqueId('thread');
    const live = await stack.post('/', runBody({ threadId, text: 'silence' }));
    await new Promise((resolve) => setTimeout(resolve, 900));
    const busy = await stack.post('/', runBody({ threadId }));
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe('THREAD_BUSY');
    expect((await readSse(live)).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('stops a run that finds at renewal that it lost its lease, with EXECUTION_LOST and no further write', async () => {
    const threadId = uniqueId('thread');
    const live = await stack.post('/', runBody({ threadId, text: 'long' }));
    const reader = live.body!.getReader();
    await reader.read();
    // Another instance takes the thread over (simulated by rewriting the lease).
    const stored = (await store.inner.load(threadId))!;
    const document = stored.document as Record<string, unknown>;
    await store.inner.save(threadId, { ...document, activeRun: { runId: 'other', leaseId: 'other-lease', expiresAt: Date.now() + 60_000 } }, stored.revision);
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('"code":"EXECUTION_LOST"');
    const after = (await store.inner.load(threadId))!;
    expect((after.document as { activeRun: { leaseId: string } }).activeRun.leaseId).toBe('other-lease');
    expect(after.revision).toBe(stored.revision + 1);
  });
});

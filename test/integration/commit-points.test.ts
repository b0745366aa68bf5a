/**
 * Store write failures injected at every recovery-critical commit point (docs/protocol.md §6.9):
 * nothing is announced that is not durable, the A2A task is cancelled where needed, and an
 * interrupt that is still pending stays resumable. Plus disconnects around interrupts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultyStore } from '../support/faulty-store.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent, resolved, sessionValue } from '../support/interrupts.js';
import { MemoryThreadStore } from '../support/memory-store.js';
import { readUntil } from '../support/read-until.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
let store: FaultyStore;

beforeAll(async () => {
  store = new FaultyStore(new MemoryThreadStore());
  stack = await startStack({ store });
});
afterAll(async () => stack.close());

function cancelledTasks(): string[] {
  return stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id);
}

async function documentOf(threadId: string) {
  return (await store.inner.load(threadId))?.document as { execution: { pending: Array<{ id: string }>; taskId: string | null; lastTaskId: string | null }; activeRun: unknown };
}

/** Starts a resume allowing `interruptId` whose stream the test can read and then abandon. */
async function startResume(threadId: string, interruptId: string) {
  const controller = new AbortController();
  const response = await fetch(`${stack.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(runBody({ threadId, resume: [resolved(interruptId, { decision: 'allow_once' })] })),
    signal: controller.signal,
  });
  return { controller, reader: response.body!.getReader() };
}

/** The document once the run that held the thread released it (the disconnect clean-up is asynchronous). */
async function releasedDocumentOf(threadId: string) {
  let document = await documentOf(threadId);
  for (let i = 0; i < 100 && document.activeRun !== null; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    document = await documentOf(threadId);
  }
  return document;
}

async function interrupted(scenario = 'permission') {
  const threadId = uniqueId('thread');
  const first = await stack.run(runBody({ threadId, text: scenario }));
  return { threadId, first, interrupt: interruptsOf(first.sse)[0]! };
}

describe('a failed write', () => {
  it('while committing an interrupt: RUN_ERROR STATE_PERSISTENCE_FAILED, no interrupt shown, the task cancelled', async () => {
    const threadId = uniqueId('thread');
    store.failSaveAfter(3); // admission, identities, interrupt commit
    const { sse } = await stack.run(runBody({ threadId, text: 'permission' }));
    expect(lastEvent(sse)).toMatchObject({ type: 'RUN_ERROR', code: 'STATE_PERSISTENCE_FAILED' });
    expect(JSON.stringify(sse.events)).not.toContain('"interrupt"');
    expect(cancelledTasks()).toContain(sessionValue(sse)?.['taskId']);
    expect((await documentOf(threadId)).execution.pending).toEqual([]);
  });

  it('while recording an accepted answer: STATE_PERSISTENCE_FAILED and the task cancelled, so a retry can never deliver it twice', async () => {
    const { threadId, first, interrupt } = await interrupted();
    store.failSaveAfter(2); // admission, acceptance
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'allow_once' })] }));
    expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_ERROR', code: 'STATE_PERSISTENCE_FAILED' });
    expect(cancelledTasks()).toContain(sessionValue(first.sse)?.['taskId']);
    const retry = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'allow_once' })] }));
    expect(retry.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'EXECUTION_LOST' });
    const answers = stack.emulator.callsOf('SendStreamingMessage').filter((call) => JSON.stringify(call.params).includes(interrupt.id));
    expect(answers).toHaveLength(1);
  });

  it('while reconciling with the snapshot: STATE_PERSISTENCE_FAILED, nothing sent, nothing cancelled, the interrupt kept', async () => {
    const { threadId, interrupt } = await interrupted();
    // The snapshot lists one more permission than the document: reconciliation must write it.
    stack.emulator.controls.snapshotInputs = 'extraPermission';
    try {
      const sends = stack.emulator.callsOf('SendStreamingMessage').length;
      const cancels = cancelledTasks().length;
      store.failSaveAfter(2); // admission, reconciliation
      const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'allow_once' })] }));
      expect(types(resumed.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
      expect(resumed.sse.events[1]).toMatchObject({ code: 'STATE_PERSISTENCE_FAILED' });
      expect(stack.emulator.callsOf('SendStreamingMessage')).toHaveLength(sends);
      expect(cancelledTasks()).toHaveLength(cancels);
      expect((await documentOf(threadId)).execution.pending.map((item) => item.id)).toEqual([interrupt.id]);
      // Without the fault the newly seen permission is announced with the known one; nothing sent.
      const again = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'allow_once' })] }));
      const both = interruptsOf(again.sse);
      expect(both.map((item) => item.toolCallId)).toEqual(['toolu-shell-1', 'toolu-extra-1']);
      expect(sessionValue(again.sse)).toBeUndefined();
      expect(stack.emulator.callsOf('SendStreamingMessage')).toHaveLength(sends);
    } finally {
      stack.emulator.controls.snapshotInputs = 'full';
    }
  });

  it('not at all for a rejected resume: an interrupt discovered then is stored only once announced', async () => {
    const { threadId, interrupt } = await interrupted();
    stack.emulator.controls.snapshotInputs = 'extraPermission';
    try {
      const unknown = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'allow_once' }), resolved('permission-unknown', { decision: 'deny' })] }));
      expect(unknown.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'UNKNOWN_INTERRUPT' });
      expect((await documentOf(threadId)).execution.pending.map((item) => item.id)).toEqual([interrupt.id]);
      // The next resume answering what the client knows is told about the new interrupt, not refused.
      const next = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'allow_once' })] }));
      expect(interruptsOf(next.sse).map((item) => item.toolCallId)).toEqual(['toolu-shell-1', 'toolu-extra-1']);
    } finally {
      stack.emulator.controls.snapshotInputs = 'full';
    }
  });

  it('at the end of a successful run: STATE_PERSISTENCE_FAILED rather than an unrecorded success', async () => {
    const threadId = uniqueId('thread');
    store.failSaveAfter(3); // admission, identities, end of run
    const { sse } = await stack.run(runBody({ threadId }));
    expect(lastEvent(sse)).toMatchObject({ type: 'RUN_ERROR', code: 'STATE_PERSISTENCE_FAILED' });
  });

  it('in the cancel endpoint: 503 STATE_UNAVAILABLE and no CancelTask, the interrupt still resumable', async () => {
    const { threadId, first, interrupt } = await interrupted();
    const cancels = cancelledTasks().length;
    store.failSaveAfter(1);
    const response = await stack.post(`/extensions/iac-code/v1/executions/${sessionValue(first.sse)?.['executionId'] as string}/cancel`, {
      threadId,
      rosInvocationId: 'invocation-1',
    });
    expect(response.status).toBe(503);
    expect(cancelledTasks()).toHaveLength(cancels);
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'deny' })] }));
    expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});

describe('disconnects around interrupts', () => {
  it('leave an announced interrupt resumable: the run no longer depends on its SSE', async () => {
    const { threadId, interrupt } = await interrupted();
    const cancels = cancelledTasks().length;
    // The first run's connection is long gone; the interrupt survives it.
    expect((await documentOf(threadId)).execution.pending.map((item) => item.id)).toEqual([interrupt.id]);
    expect(cancelledTasks()).toHaveLength(cancels);
  });

  it('during a resume whose answer was not accepted yet: the interrupt stays pending and nothing is cancelled', async () => {
    const { threadId, interrupt } = await interrupted();
    stack.emulator.controls.rpcFaults.push({ method: 'SendStreamingMessage', kind: 'hang' });
    const cancels = cancelledTasks().length;
    const { controller, reader } = await startResume(threadId, interrupt.id);
    await reader.read();
    // Wait until the answer is on its way to A2A, then leave.
    for (let i = 0; i < 100 && !stack.emulator.calls.some((call) => call.method === 'SendStreamingMessage' && JSON.stringify(call.params).includes(interrupt.id)); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    const document = await releasedDocumentOf(threadId);
    expect(document.activeRun).toBeNull();
    expect(document.execution.pending.map((item) => item.id)).toEqual([interrupt.id]);
    expect(cancelledTasks()).toHaveLength(cancels);
    const retry = await stack.run(runBody({ threadId, resume: [resolved(interrupt.id, { decision: 'allow_once' })] }));
    expect(lastEvent(retry.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(types(retry.sse)).toContain('CUSTOM');
  });

  it('during a resume whose answer was accepted: nothing is pending any more, so the task is cancelled', async () => {
    const { threadId, first, interrupt } = await interrupted('permission-long');
    const { controller, reader } = await startResume(threadId, interrupt.id);
    await readUntil(reader, 'apply step');
    controller.abort();
    const document = await releasedDocumentOf(threadId);
    expect(document.execution.pending).toEqual([]);
    expect(document.execution.taskId).toBeNull();
    expect(cancelledTasks()).toContain(sessionValue(first.sse)?.['taskId']);
  });
});

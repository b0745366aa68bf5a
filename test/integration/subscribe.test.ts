/**
 * Observing an execution from the kernel through the subscribe route (docs/protocol.md §6.14) over
 * real sockets against the A2A emulator, on a store that keeps no event journal — a run from before
 * the journal, or one whose journal expired, is observed this way (docs/protocol.md §6.15; the
 * journal's readers are test/integration/reattach*.test.ts): an interrupted execution, a live run
 * watched from other connections while its owner streams, kernel-side endings, a broken
 * subscription, identity violations, heartbeats — every stream checked by the strict AG-UI oracle,
 * and read-only throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, resolved, sessionValue } from '../support/interrupts.js';
import { overridingKernel } from '../support/kernel-override.js';
import { isSessionEvent, LiveSse, type SseEvent } from '../support/live-sse.js';
import { revisionOf, sessionOf, storedWhen, subscribe, textOf } from '../support/observe.js';
import { waitFor } from '../support/read-until.js';
import { parseSse } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file', journal: false, config: { heartbeatMs: 100 } });
});
afterAll(async () => stack.close());

interface Owner {
  threadId: string;
  runId: string;
  stream: LiveSse;
  executionId: string;
  taskId: string;
}

/** Starts a run and reads it until its task id is durable and announced. */
async function startOwner(text: string, target: Stack = stack): Promise<Owner> {
  const threadId = uniqueId('thread');
  const runId = uniqueId('run');
  const response = await target.post('/', runBody({ threadId, runId, text }));
  expect(response.status).toBe(200);
  const stream = new LiveSse(response);
  const session = await stream.until((event) => isSessionEvent(event) && typeof (event['value'] as Record<string, unknown>)['taskId'] === 'string');
  const { executionId, taskId } = session['value'] as { executionId: string; taskId: string };
  return { threadId, runId, stream, executionId, taskId };
}

async function observe(owner: { threadId: string; runId: string; executionId: string }, target: Stack = stack, signal?: AbortSignal): Promise<LiveSse> {
  const response = await subscribe(target.url, owner.executionId, { threadId: owner.threadId, runId: owner.runId, rosInvocationId: 'invocation-1' }, {}, signal);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return new LiveSse(response);
}

/** CancelTask params are only `{id}`: count them by task. */
function cancelsOf(taskId: string): number {
  return stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === taskId).length;
}

function subscriptionsOf(taskId: string): number {
  return stack.emulator.callsOf('SubscribeToTask').filter((call) => (call.params as { id: string }).id === taskId).length;
}

function terminals(events: readonly SseEvent[]): SseEvent[] {
  return events.filter((event) => event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR');
}

function withWatchers<T>(observers: number, run: () => Promise<T>): Promise<T> {
  stack.emulator.controls.watch.observers = observers;
  return run().finally(() => {
    stack.emulator.controls.watch.observers = 1;
  });
}

describe('observing an interrupted execution', () => {
  it('answers RUN_STARTED, the session event and RUN_FINISHED interrupt with the interrupts the owner announced, after one GetTask; nothing written, nothing cancelled', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = await stack.run(runBody({ threadId, runId, text: 'question' }));
    const announced = interruptsOf(owner.sse);
    const session = sessionValue(owner.sse) as { executionId: string; taskId: string; sessionId: string };
    const revision = await revisionOf(stack.store, threadId);
    const before = stack.emulator.calls.length;

    const observed = await (await observe({ threadId, runId, executionId: session.executionId })).rest();
    await assertValidAgUiStream(observed);
    expect(observed.map((event) => event.type)).toEqual(['RUN_STARTED', 'CUSTOM', 'RUN_FINISHED']);
    expect(observed[0]).toEqual({ type: 'RUN_STARTED', threadId, runId, timestamp: expect.any(Number) });
    expect(observed[1]?.['value']).toEqual({
      schemaVersion: 1,
      threadId,
      aguiRunId: runId,
      executionId: session.executionId,
      contextId: expect.any(String),
      taskId: session.taskId,
      rosInvocationId: 'invocation-1',
      sessionId: session.sessionId,
    });
    expect(interruptsOf(parseSse(observed.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')))).toEqual(announced);

    const calls = stack.emulator.calls.slice(before);
    expect(calls.map((call) => call.method)).toEqual(['GetTask']);
    expect(calls[0]?.params).toEqual({ id: session.taskId, historyLength: 100 });
    expect(await revisionOf(stack.store, threadId)).toBe(revision);

    // The interrupt is still the owner's to answer.
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(announced[0]!.id, { selectedId: 'plan-a' })] }));
    expect(resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });
});

describe('observing an interrupted pipeline', () => {
  it("stops at the pending sub-pipeline permission while the task keeps working, with the owner's interrupt ids", async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = await stack.run(runBody({ threadId, runId, text: 'pipeline', iacCode: { runMode: 'pipeline' } }));
    const announced = interruptsOf(owner.sse);
    const observed = await (await observe({ threadId, runId, executionId: sessionValue(owner.sse)?.['executionId'] as string })).rest();
    await assertValidAgUiStream(observed);
    const last = observed.at(-1) as unknown as { type: string; outcome: { type: string; interrupts: Array<{ id: string }> } };
    expect(last.type).toBe('RUN_FINISHED');
    expect(last.outcome.interrupts.map((interrupt) => interrupt.id)).toEqual(announced.map((interrupt) => interrupt.id));
    expect(cancelsOf(sessionValue(owner.sse)?.['taskId'] as string)).toBe(0);
  });
});

describe('observing a live run', () => {
  it('two observers on other connections see the rest of the run once, while the owner streams unaffected', async () => {
    await withWatchers(2, async () => {
      const owner = await startOwner('watched');
      const [first, second] = await Promise.all([observe(owner), observe(owner)]);
      const [ownerEvents, firstEvents, secondEvents] = await Promise.all([owner.stream.rest(), first.rest(), second.rest()]);
      for (const events of [ownerEvents, firstEvents, secondEvents]) {
        await assertValidAgUiStream(events);
        expect(terminals(events)).toEqual([expect.objectContaining({ type: 'RUN_FINISHED', outcome: { type: 'success' } })]);
      }
      expect(textOf(ownerEvents)).toBe('Watched work begins. Observers see this part. ');
      expect(textOf(firstEvents)).toBe('Observers see this part. ');
      expect(textOf(secondEvents)).toBe('Observers see this part. ');
      expect(sessionOf(firstEvents)).toEqual(sessionOf(ownerEvents));
      expect(cancelsOf(owner.taskId)).toBe(0);
      expect(subscriptionsOf(owner.taskId)).toBe(2);
    });
  });

  it('ends with the interrupt the owner committed when the live run stops on a new input', async () => {
    const owner = await startOwner('watched question');
    const observer = await observe(owner);
    const [ownerEvents, observed] = await Promise.all([owner.stream.rest(), observer.rest()]);
    await assertValidAgUiStream(observed);
    const ownerInterrupts = (ownerEvents.at(-1) as unknown as { outcome: { interrupts: Array<{ id: string }> } }).outcome.interrupts;
    expect(ownerInterrupts.map((interrupt) => interrupt.id)).toEqual(['ask-toolu-q-watch']);
    expect(observed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts: ownerInterrupts } });
  });

  it('ends with success when the task completes, and with exactly one RUN_ERROR A2A_EXECUTION_FAILED when it fails', async () => {
    for (const [text, ending] of [
      ['watched complete', { type: 'RUN_FINISHED', outcome: { type: 'success' } }],
      // The kernel's own reason and error id, as the owner's RUN_ERROR carries them (docs/protocol.md §2.4).
      [
        'watched fail',
        { type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED', message: 'The A2A execution failed. The kernel reported: The observed task failed. (error id err-observed-1)' },
      ],
    ] as const) {
      const owner = await startOwner(text);
      const observed = await (await observe(owner)).rest();
      await owner.stream.rest();
      await assertValidAgUiStream(observed);
      expect(terminals(observed), text).toEqual([expect.objectContaining(ending)]);
      expect(textOf(observed)).toBe('Observers see this part. ');
    }
  });

  it('ends with success when the execution is cancelled (the kernel reports canceled), while the owner ends CANCELLED', async () => {
    const owner = await startOwner('long');
    const observer = await observe(owner);
    await observer.until((event) => event.type === 'TEXT_MESSAGE_CONTENT');
    const cancelled = await stack.post(`/extensions/iac-code/v1/executions/${owner.executionId}/cancel`, { threadId: owner.threadId, rosInvocationId: 'invocation-1' });
    expect(cancelled.status).toBe(200);
    const [ownerEvents, observed] = await Promise.all([owner.stream.rest(), observer.rest()]);
    await assertValidAgUiStream(observed);
    expect(terminals(observed)).toEqual([expect.objectContaining({ type: 'RUN_FINISHED', outcome: { type: 'success' } })]);
    expect(terminals(ownerEvents)).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'CANCELLED' })]);
  });

  it('a disconnecting observer cancels nothing: the owner and a later observer see the run to its end', async () => {
    await withWatchers(2, async () => {
      const owner = await startOwner('watched');
      const leaving = new AbortController();
      const first = await observe(owner, stack, leaving.signal);
      await first.until(isSessionEvent);
      // Leave mid-subscription: once the emulator recorded this observer's SubscribeToTask.
      await waitFor(() => subscriptionsOf(owner.taskId) >= 1, { what: 'the observer’s SubscribeToTask', seen: () => stack.emulator.calls.map((call) => call.method) });
      leaving.abort();
      await first.rest();
      const second = await observe(owner);
      const [ownerEvents, observed] = await Promise.all([owner.stream.rest(), second.rest()]);
      expect(ownerEvents.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(observed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(subscriptionsOf(owner.taskId)).toBe(2);
      expect(cancelsOf(owner.taskId)).toBe(0);
    });
  });

  it('sends ": heartbeat" comments while the task is quiet', async () => {
    stack.emulator.controls.watch.timeoutMs = 800;
    try {
      await withWatchers(2, async () => {
        const owner = await startOwner('watched');
        const response = await subscribe(stack.url, owner.executionId, { threadId: owner.threadId, runId: owner.runId, rosInvocationId: 'invocation-1' });
        const raw = await response.text();
        await owner.stream.rest();
        expect(raw).toContain(': heartbeat\n\n');
        expect(parseSse(raw).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
      });
    } finally {
      stack.emulator.controls.watch.timeoutMs = 10_000;
    }
  });
});

describe('observing when the kernel misbehaves', () => {
  it('a broken subscription whose second GetTask shows no end → exactly one RUN_ERROR A2A_UNAVAILABLE; the owner goes on', async () => {
    for (const fault of [{ kind: 'emptyStream' }, { kind: 'error', code: -32603 }] as const) {
      const owner = await startOwner('watched');
      stack.emulator.controls.rpcFaults.push({ method: 'SubscribeToTask', ...fault });
      const before = stack.emulator.calls.length;
      const observed = await (await observe(owner)).rest();
      await assertValidAgUiStream(observed);
      expect(terminals(observed), fault.kind).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' })]);
      const methods = stack.emulator.calls
        .slice(before)
        .filter((call) => JSON.stringify(call.params).includes(owner.taskId))
        .map((call) => call.method);
      expect(methods).toEqual(['GetTask', 'SubscribeToTask', 'GetTask']);
      // A healthy observer releases the watched task; the owner ends normally.
      await (await observe(owner)).rest();
      expect((await owner.stream.rest()).at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(cancelsOf(owner.taskId)).toBe(0);
    }
  });

  it('a kernel that lost the task → RUN_ERROR EXECUTION_LOST, the execution untouched', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = await stack.run(runBody({ threadId, runId, text: 'permission' }));
    interruptsOf(owner.sse);
    const revision = await revisionOf(stack.store, threadId);
    stack.emulator.controls.rpcFaults.push({ method: 'GetTask', kind: 'error', code: -32001, message: 'Task not found' });
    const observed = await (await observe({ threadId, runId, executionId: sessionValue(owner.sse)?.['executionId'] as string })).rest();
    await assertValidAgUiStream(observed);
    expect(observed.map((event) => event.type)).toEqual(['RUN_STARTED', 'CUSTOM', 'RUN_ERROR']);
    expect(observed[2]).toMatchObject({ code: 'EXECUTION_LOST', message: 'The A2A task of the observed execution is no longer available.' });
    expect(await revisionOf(stack.store, threadId)).toBe(revision);
  });

  it('an item of another context or task → exactly one RUN_ERROR A2A_PROTOCOL_ERROR, spans closed, nothing cancelled', async () => {
    // The emulator cannot send a foreign identity, so the kernel client is wrapped (docs/architecture.md §9.1).
    let tamper = false;
    const foreign = await startStack({
      store: 'file',
      journal: false,
      emulatorInstance: stack.emulator,
      wrapKernel: (kernel) =>
        overridingKernel(kernel, {
          async *subscribeToTask(taskId, options) {
            for await (const item of kernel.subscribeToTask(taskId, options)) {
              yield tamper && item.statusUpdate ? { statusUpdate: { ...item.statusUpdate, contextId: 'agui-someone-else' } } : item;
            }
          },
        }),
    });
    try {
      const owner = await startOwner('watched', foreign);
      tamper = true;
      const observed = await (await observe(owner, foreign)).rest();
      tamper = false;
      await assertValidAgUiStream(observed);
      expect(terminals(observed)).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'A2A_PROTOCOL_ERROR' })]);
      expect((await owner.stream.rest()).at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(cancelsOf(owner.taskId)).toBe(0);
    } finally {
      await foreign.close();
    }
  });
});

describe('observing after the owner left', () => {
  it('a dropped owner with nothing pending is cancelled by the disconnect rule, so there is nothing left to observe (404)', async () => {
    const controller = new AbortController();
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const response = await fetch(`${stack.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(runBody({ threadId, runId, text: 'long' })),
      signal: controller.signal,
    });
    const stream = new LiveSse(response);
    const session = await stream.until((event) => isSessionEvent(event) && typeof (event['value'] as Record<string, unknown>)['taskId'] === 'string');
    controller.abort();
    await storedWhen(stack.store, threadId, (document) => document['activeRun'] === null);
    const executionId = (session['value'] as { executionId: string }).executionId;
    const late = await subscribe(stack.url, executionId, { threadId, runId, rosInvocationId: 'invocation-1' });
    expect(late.status).toBe(404);
  });
});

/**
 * Guidance into a live pipeline run through real HTTP against the emulator (docs/protocol.md
 * §6.13): it bypasses THREAD_BUSY without taking the lease, records its run id, goes to the owning
 * run's task with its keys forwarded and answers exactly RUN_STARTED + RUN_FINISHED; the owning run
 * shows the effect, keeps its lease and completes. Every 409, the kernel's journal (an applied
 * replay acknowledged, an unsettled one refused), the stream errors of docs/protocol.md §6.13, and no
 * CancelTask from a guidance run — not on an error, not when its caller leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import type { A2AKernel } from '../../lib/core/ports.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, threadCalls } from '../support/interrupts.js';
import { isSessionEvent, LiveSse, type SseEvent } from '../support/live-sse.js';
import { parseSse, types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

interface ThreadDoc {
  runDigests: Record<string, string>;
  activeRun: { runId: string; leaseId: string } | null;
  execution: { executionId: string; rosInvocationId: string; taskId: string | null };
}

async function documentOf(on: Stack, threadId: string): Promise<ThreadDoc> {
  return (await on.store.load(threadId))?.document as ThreadDoc;
}

/** Waits for a condition the system reaches by itself (a liveness bound, not a timing assertion). */
async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}`);
}

interface Owner {
  threadId: string;
  runId: string;
  taskId: string;
  live: LiveSse;
}

/** Starts a `pipeline-long` run and reads it until its task is known and durable. */
async function startOwner(on: Stack): Promise<Owner> {
  const body = runBody({ text: 'pipeline-long', iacCode: { runMode: 'pipeline' } });
  const live = new LiveSse(await on.post('/', body));
  const session = await live.until(isSessionEvent);
  return { threadId: String(body['threadId']), runId: String(body['runId']), taskId: String((session['value'] as { taskId: string }).taskId), live };
}

function guidanceBody(threadId: string, text: string, iacCode: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body = runBody({ threadId, iacCode: { runMode: 'pipeline', activeGuidance: true, rosInvocationId: 'inv-guide', ...iacCode }, extra });
  body['messages'] = [{ id: uniqueId('guidance-message'), role: 'user', content: text }];
  return body;
}

function guidanceCalls(on: Stack, owner: Owner) {
  return threadCalls(on, owner.threadId, 'SendStreamingMessage')
    .map((call) => call.params as { message: { messageId: string; taskId?: string; contextId: string; parts: unknown[]; metadata: { iac_code: Record<string, unknown> } } })
    .filter((params) => params.message.taskId === owner.taskId);
}

function applied(events: SseEvent[]): string[] {
  return events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT' && String(event['delta']).startsWith('Guidance applied')).map((event) => String(event['delta']));
}

async function finishOwner(on: Stack, owner: Owner): Promise<SseEvent[]> {
  const done = await on.run(guidanceBody(owner.threadId, 'finish now'));
  expect(types(done.sse)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
  return owner.live.rest();
}

async function expect409(on: Stack, body: Record<string, unknown>, code: string): Promise<void> {
  const response = await on.post('/', body);
  expect(response.status, code).toBe(409);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
}

describe('guidance into a live pipeline run', () => {
  it('answers exactly RUN_STARTED and RUN_FINISHED, forwards its keys on the owning task, and the owning run shows it, keeps its lease and completes', async () => {
    const owner = await startOwner(stack);
    const before = await documentOf(stack, owner.threadId);
    const body = guidanceBody(
      owner.threadId,
      'use two zones',
      { guidanceId: 'guide-1', inputDigest: 'sha256:one', executionFence: { version: 'session-handoff-v1', owner: 'node-a' } },
      { parentRunId: owner.runId },
    );
    const guided = await stack.run(body);
    expect(guided.status).toBe(200);
    expect(guided.sse.events).toEqual([
      { type: 'RUN_STARTED', timestamp: expect.any(Number), threadId: owner.threadId, runId: body['runId'], parentRunId: owner.runId },
      { type: 'RUN_FINISHED', timestamp: expect.any(Number), threadId: owner.threadId, runId: body['runId'], outcome: { type: 'success' } },
    ]);
    await assertValidAgUiStream(guided.sse.events);

    const [call] = guidanceCalls(stack, owner);
    const message = (body['messages'] as Array<{ id: string }>)[0]!;
    expect(call?.message).toMatchObject({ messageId: message.id, taskId: owner.taskId, contextId: contextIdFor(owner.threadId), parts: [{ text: 'use two zones' }] });
    expect(call?.message.metadata.iac_code).toMatchObject({
      rosInvocationId: 'inv-guide',
      run_mode: 'pipeline',
      guidance_id: 'guide-1',
      input_digest: 'sha256:one',
      execution_fence: { version: 'session-handoff-v1', owner: 'node-a' },
    });
    expect(call?.message.metadata.iac_code).not.toHaveProperty('activeGuidance');
    await owner.live.until((event) => applied([event]).length > 0);

    // The guidance took no lease: a normal run is still THREAD_BUSY, the owner's lease and execution unchanged.
    await expect409(stack, runBody({ threadId: owner.threadId }), 'THREAD_BUSY');
    const during = await documentOf(stack, owner.threadId);
    expect(during.activeRun).toEqual(before.activeRun);
    expect(during.execution).toMatchObject({ executionId: before.execution.executionId, rosInvocationId: 'invocation-1', taskId: owner.taskId });
    expect(Object.keys(during.runDigests)).toEqual(expect.arrayContaining([owner.runId, String(body['runId'])]));

    const events = await finishOwner(stack, owner);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', runId: owner.runId, outcome: { type: 'success' } });
    expect(applied(events)).toEqual(['Guidance applied: use two zones. ', 'Guidance applied: finish now. ']);
    await assertValidAgUiStream(events);
    // The owner's final write re-applied over the guidance writes: their run digests survived.
    const after = await documentOf(stack, owner.threadId);
    expect(after.activeRun).toBeNull();
    expect(Object.keys(after.runDigests)).toHaveLength(3);
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === owner.taskId)).toEqual([]);
    // Nothing runs any more: guidance has nothing to steer.
    await expect409(stack, guidanceBody(owner.threadId, 'too late'), 'EXECUTION_LOST');
  });

  it('refuses with 409 what it cannot guide: unknown thread, a resume, another run mode, no live task, pending interrupts, another binding, a reused runId', async () => {
    await expect409(stack, guidanceBody(uniqueId('thread'), 'hello'), 'EXECUTION_LOST');

    const owner = await startOwner(stack);
    const resume = guidanceBody(owner.threadId, 'hello');
    resume['resume'] = [{ interruptId: 'x', status: 'resolved', payload: {} }];
    await expect409(stack, resume, 'EXECUTION_LOST');
    await expect409(stack, guidanceBody(owner.threadId, 'hello', { runMode: 'normal' }), 'EXECUTION_LOST');
    await expect409(stack, guidanceBody(owner.threadId, 'hello', { runMode: null }), 'EXECUTION_LOST');
    await expect409(stack, guidanceBody(owner.threadId, 'hello', { cwd: '/workspace/elsewhere' }), 'THREAD_BINDING_CONFLICT');
    await expect409(stack, guidanceBody(owner.threadId, 'hello', { userId: 'someone' }), 'THREAD_BINDING_CONFLICT');
    const once = guidanceBody(owner.threadId, 'only once');
    expect((await stack.run(once)).status).toBe(200);
    await expect409(stack, once, 'DUPLICATE_RUN_ID');
    await expect409(stack, { ...once, messages: [{ id: 'm', role: 'user', content: 'changed' }] }, 'RUN_ID_CONFLICT');
    await expect409(stack, guidanceBody(owner.threadId, 'hello', {}, { runId: owner.runId }), 'RUN_ID_CONFLICT');
    // Refused requests wrote nothing: only the owner and the one admitted guidance are recorded.
    expect(Object.keys((await documentOf(stack, owner.threadId)).runDigests).sort()).toEqual([owner.runId, String(once['runId'])].sort());
    await finishOwner(stack, owner);

    // A turn that ended normally left nothing running.
    const ended = runBody({ text: 'hello', iacCode: { runMode: 'pipeline' } });
    await stack.run(ended);
    await expect409(stack, guidanceBody(String(ended['threadId']), 'hello'), 'EXECUTION_LOST');

    // A pipeline parked on a permission needs a resume first.
    const parked = runBody({ text: 'pipeline', iacCode: { runMode: 'pipeline' } });
    expect(interruptsOf((await stack.run(parked)).sse)).toHaveLength(1);
    await expect409(stack, guidanceBody(String(parked['threadId']), 'hello'), 'RESUME_REQUIRED');
  });

  it('is idempotent at the kernel: an applied replay is acknowledged and not applied again; a changed or unsettled one is refused', async () => {
    const owner = await startOwner(stack);
    const identity = { guidanceId: 'guide-journal', inputDigest: 'sha256:first' };
    expect(types((await stack.run(guidanceBody(owner.threadId, 'add a NAT gateway', identity))).sse)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    // The same guidance again (a client retry under a new runId): acknowledged with guidanceAck.
    const replay = await stack.run(guidanceBody(owner.threadId, 'add a NAT gateway', identity));
    expect(types(replay.sse)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    const changed = await stack.run(guidanceBody(owner.threadId, 'add two NAT gateways', { ...identity, inputDigest: 'sha256:second' }));
    expect(changed.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE', message: 'The local A2A execution service rejected the interrupt response.' });

    // A guidance the kernel claimed but has not applied yet: a retry cannot know whether it will be.
    const held = stack.post('/', guidanceBody(owner.threadId, 'wait for the stack', { guidanceId: 'guide-held', inputDigest: 'sha256:held' }));
    await eventually(() => guidanceCalls(stack, owner).length === 4, 'the held guidance reached the kernel');
    const unsettled = await stack.run(guidanceBody(owner.threadId, 'wait for the stack', { guidanceId: 'guide-held', inputDigest: 'sha256:held' }));
    expect(unsettled.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });

    const events = await finishOwner(stack, owner);
    expect(applied(events)).toEqual(['Guidance applied: add a NAT gateway. ', 'Guidance applied: finish now. ']);
    // The held guidance ends with the owning task's turn; it was never applied.
    expect(types(parseSse(await (await held).text()))).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === owner.taskId)).toEqual([]);
  });

  it('reports the kernel refusing or failing, never cancelling the task: SESSION_BACKUP_NOT_READY, a JSON-RPC error, an unreachable kernel, a failed task', async () => {
    const owner = await startOwner(stack);
    const faults = stack.emulator.controls.rpcFaults;
    faults.push({ method: 'SendStreamingMessage', kind: 'error', code: -32603, message: 'busy', data: { code: 'SESSION_BACKUP_NOT_READY', retryable: true } });
    const backup = await stack.run(guidanceBody(owner.threadId, 'hello'));
    expect(backup.sse.events.slice(1)).toEqual([
      { type: 'RUN_ERROR', timestamp: expect.any(Number), code: 'SESSION_BACKUP_NOT_READY', message: 'Session backup is still synchronizing. Retry after 3 seconds.' },
    ]);
    faults.push({ method: 'SendStreamingMessage', kind: 'error', code: -32602, message: 'Invalid params' });
    expect((await stack.run(guidanceBody(owner.threadId, 'hello'))).sse.events[1]).toMatchObject({ code: 'A2A_UNAVAILABLE' });
    // The kernel's own rule: a guidance id needs its input digest too (and the task and context).
    const halfIdentity = await stack.run(guidanceBody(owner.threadId, 'hello', { guidanceId: 'guide-alone' }));
    expect(halfIdentity.sse.events[1]).toMatchObject({ code: 'A2A_UNAVAILABLE', message: 'The local A2A execution service rejected the interrupt response.' });
    faults.push({ method: 'SendStreamingMessage', kind: 'http', status: 503 });
    expect((await stack.run(guidanceBody(owner.threadId, 'hello'))).sse.events[1]).toMatchObject({
      code: 'A2A_UNAVAILABLE',
      message: 'The local A2A execution service is unavailable.',
    });
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === owner.taskId)).toEqual([]);

    // A guidance that makes the pipeline fail: the guidance sees the failed task, so does the owner.
    const failed = await stack.run(guidanceBody(owner.threadId, 'fail the pipeline'));
    expect(failed.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED' });
    expect((await owner.live.rest()).at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED' });
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === owner.taskId)).toEqual([]);
  });

  it('ends CANCELLED when the execution is cancelled while the guidance waits', async () => {
    const owner = await startOwner(stack);
    const held = stack.post('/', guidanceBody(owner.threadId, 'wait until cancelled'));
    await eventually(() => guidanceCalls(stack, owner).length === 1, 'the guidance reached the kernel');
    const { executionId } = (await documentOf(stack, owner.threadId)).execution;
    const cancel = await stack.post(`/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId: owner.threadId, rosInvocationId: 'invocation-1' });
    expect(await cancel.json()).toEqual({ executionId, status: 'cancelled' });
    expect(parseSse(await (await held).text()).events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    expect((await owner.live.rest()).at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
  });

  it('leaves the task alone when its caller disconnects, and the owning run goes on to complete', async () => {
    const owner = await startOwner(stack);
    const body = guidanceBody(owner.threadId, 'wait, then leave');
    const controller = new AbortController();
    const response = await fetch(`${stack.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    await new LiveSse(response).until((event) => event.type === 'RUN_STARTED');
    await eventually(() => guidanceCalls(stack, owner).length === 1, 'the guidance reached the kernel');
    controller.abort();
    const ended = (line: string) => line.includes(`"runId":"${String(body['runId'])}"`) && line.includes('"event":"RUN_ERROR"');
    await eventually(() => stack.logs.some(ended), 'the guidance run ended');
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === owner.taskId)).toEqual([]);
    const events = await finishOwner(stack, owner);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === owner.taskId)).toEqual([]);
  });
});

describe('a guidance stream about another task', () => {
  it('is A2A_PROTOCOL_ERROR, and the task is not cancelled', async () => {
    let forge = false;
    const forging = await startStack({
      emulatorInstance: stack.emulator,
      wrapKernel: (kernel): A2AKernel =>
        Object.assign(Object.create(kernel) as A2AKernel, {
          async *sendStreamingMessage(params: Parameters<A2AKernel['sendStreamingMessage']>[0], options: Parameters<A2AKernel['sendStreamingMessage']>[1]) {
            for await (const item of kernel.sendStreamingMessage(params, options)) {
              // Only guidance streams (they name the task) are forged; the owner's own stream stays true.
              yield forge && params.message.taskId && item.statusUpdate ? { statusUpdate: { ...item.statusUpdate, taskId: 'someone-elses-task' } } : item;
            }
          },
        }),
    });
    try {
      const owner = await startOwner(forging);
      forge = true;
      const guided = await forging.run(guidanceBody(owner.threadId, 'hello'));
      forge = false;
      expect(guided.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_PROTOCOL_ERROR' });
      const events = await finishOwner(forging, owner);
      expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(forging.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === owner.taskId)).toEqual([]);
    } finally {
      await forging.close();
    }
  });
});

/**
 * The detach grace (docs/protocol.md §6.15): a run whose reader left goes on; nobody back by the
 * deadline → the sweeper cancels it exactly as a disconnect would (CancelTask, the execution ended,
 * the run's end in its journal for a late reader); a reader back in time keeps it alive; a stopping
 * instance hands its runs over instead of cancelling them. The grace is the client's to ask for
 * (§6.15 "Whose grace"): a client that asks for none keeps the seed's rule, its disconnect cancels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/adapters/logger.js';
import { shutDown } from '../../lib/adapters/node-server/graceful-shutdown.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { subscribe } from '../support/observe.js';
import { readRecords, type SseRecordWithId } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';
import { until } from '../support/until.js';

const GRACE_MS = 1_500;
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { detachGraceMs: GRACE_MS } });
});
afterAll(async () => stack.close());

const identity = (threadId: string, runId: string) => ({ threadId, runId, rosInvocationId: 'invocation-1' });

interface Thread {
  activeRun: Record<string, unknown> | null;
  execution: { executionId: string; taskId: string | null };
  terminalExecutions: Record<string, string>;
}

async function thread(target: Stack, threadId: string): Promise<Thread> {
  return (await target.store.load(threadId))?.document as Thread;
}

/** A long run whose connection a proxy cuts after a few events. */
async function cutRun(
  target: Stack,
  grace: Readonly<Record<string, string>> = ASK_GRACE,
): Promise<{ threadId: string; runId: string; records: SseRecordWithId[]; executionId: string; taskId: string }> {
  const threadId = uniqueId('thread');
  const runId = uniqueId('run');
  const controller = new AbortController();
  const response = await fetch(`${target.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...grace },
    body: JSON.stringify(runBody({ threadId, runId, text: 'long running' })),
    signal: controller.signal,
  });
  const { records } = await readRecords(response, { cutAfter: 6, controller });
  const { executionId, taskId } = await thread(target, threadId).then((document) => ({ executionId: document.execution.executionId, taskId: document.execution.taskId ?? '' }));
  return { threadId, runId, records, executionId, taskId };
}

function cancelsOf(target: Stack, taskId: string): number {
  return target.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === taskId).length;
}

describe('the detach grace', () => {
  it('cancels a run nobody came back to once the grace is over — as a disconnect does — and journals its end for a late reader', async () => {
    const run = await cutRun(stack);
    await until(async () => (await thread(stack, run.threadId)).activeRun?.['detachedUntil'] !== undefined, 5_000);
    expect(cancelsOf(stack, run.taskId)).toBe(0);
    // The sweeper (every second for this grace) ends it after the deadline.
    await until(async () => cancelsOf(stack, run.taskId) > 0, GRACE_MS + 5_000);
    const document = await thread(stack, run.threadId);
    expect(document.activeRun).toBeNull();
    expect(document.terminalExecutions[run.executionId]).toBe('invocation-1');
    const late = await readRecords(await subscribe(stack.url, run.executionId, identity(run.threadId, run.runId), { 'last-event-id': run.records.at(-1)?.id ?? '' }));
    expect(late.records.at(-1)?.event).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    await assertValidAgUiStream([...run.records, ...late.records].map((record) => record.event));
  });

  it('keeps a run alive when a reader comes back within the grace, past the deadline it had', async () => {
    const run = await cutRun(stack);
    await until(async () => (await thread(stack, run.threadId)).activeRun?.['detachedUntil'] !== undefined, 5_000);
    const controller = new AbortController();
    const back = await subscribe(stack.url, run.executionId, identity(run.threadId, run.runId), { 'last-event-id': run.records.at(-1)?.id ?? '' }, controller.signal);
    expect(back.status).toBe(200);
    const reading = readRecords(back, { cutAfter: 40, controller });
    await until(async () => (await thread(stack, run.threadId)).activeRun?.['detachedUntil'] === undefined, 5_000);
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS + 2_000));
    expect(cancelsOf(stack, run.taskId)).toBe(0);
    const { records } = await reading;
    expect(records.map((record) => record.event.type)).toContain('TEXT_MESSAGE_CONTENT');
    await stack.post(`/extensions/iac-code/v1/executions/${run.executionId}/cancel`, { threadId: run.threadId, rosInvocationId: 'invocation-1' });
  });

  it('hands a run over when the instance stops: detached, not cancelled, and its caller’s stream ends without a terminal event', async () => {
    const other = await startStack({ store: 'file', config: { detachGraceMs: 60_000 }, emulatorInstance: stack.emulator });
    try {
      const threadId = uniqueId('thread');
      const response = await other.post('/', runBody({ threadId, text: 'long running' }), ASK_GRACE);
      const reading = readRecords(response);
      await until(async () => ((await thread(other, threadId))?.execution.taskId ?? null) !== null, 5_000);
      const report = await shutDown(other.server, { drainMs: 50, cleanupMs: 10_000 }, silentLogger);
      expect(report).toMatchObject({ drained: false, aborted: 1, abandoned: 0 });
      const { records } = await reading;
      expect(records.map((record) => record.event.type)).not.toContain('RUN_ERROR');
      const document = await thread(other, threadId);
      expect(document.activeRun?.['detachedUntil']).toBeGreaterThan(Date.now());
      expect(cancelsOf(other, document.execution.taskId ?? '')).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('whose grace (docs/protocol.md §6.15 "Whose grace")', () => {
  let generous: Stack;
  beforeAll(async () => {
    generous = await startStack({ store: 'file', config: { detachGraceMs: 60_000 }, emulatorInstance: stack.emulator });
  });
  afterAll(async () => generous.close());

  it('a client that asks for none — a plain HttpAgent’s Stop — cancels its run by disconnecting, and its next message is admitted', async () => {
    const run = await cutRun(generous, {});
    await until(async () => cancelsOf(generous, run.taskId) > 0, 5_000);
    await until(async () => (await thread(generous, run.threadId)).activeRun === null, 5_000);
    expect((await thread(generous, run.threadId)).activeRun).toBeNull();
    const next = await generous.run(runBody({ threadId: run.threadId, text: 'hello again' }));
    expect(next.status).toBe(200);
    expect(next.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('a client that asks for less than the server allows gets what it asked for, recorded in the run’s lease', async () => {
    const asked = Date.now();
    const run = await cutRun(generous, { 'x-iac-code-detach-grace-ms': '20000' });
    await until(async () => (await thread(generous, run.threadId)).activeRun?.['detachedUntil'] !== undefined, 5_000);
    const lease = (await thread(generous, run.threadId)).activeRun as { graceMs: number; detachedUntil: number };
    expect(lease.graceMs).toBe(20_000);
    expect(lease.detachedUntil).toBeLessThanOrEqual(Date.now() + 20_000);
    expect(lease.detachedUntil).toBeGreaterThan(asked);
    await generous.post(`/extensions/iac-code/v1/executions/${run.executionId}/cancel`, { threadId: run.threadId, rosInvocationId: 'invocation-1' });
  });

  it('a malformed ask is 400 INVALID_INPUT naming the header, before anything is written or sent', async () => {
    const threadId = uniqueId('thread');
    const sent = generous.emulator.callsOf('SendStreamingMessage').length;
    const response = await generous.post('/', runBody({ threadId }), { 'x-iac-code-detach-grace-ms': 'a minute' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'INVALID_INPUT', details: [{ path: 'X-Iac-Code-Detach-Grace-Ms' }] } });
    expect(await generous.store.load(threadId)).toBeUndefined();
    expect(generous.emulator.callsOf('SendStreamingMessage').length).toBe(sent);
  });
});

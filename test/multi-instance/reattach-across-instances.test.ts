/**
 * Runs that outlive their instance (docs/protocol.md §6.15), with two real adapter processes on one
 * OSS emulator bucket and one A2A emulator, as two FC instances:
 *
 * - the owner's instance is killed (SIGKILL) mid-run while its client streams; the client reattaches
 *   on the other instance with the last id it got, which takes the run over once the dead owner's
 *   lease expired and gives it the rest — the text exact, no event twice, the task never cancelled;
 * - a detached run nobody comes back to is cancelled after its grace by the other instance's sweeper
 *   while the owner's instance is stopped (SIGSTOP) — the deadline is the thread's, not a timer of the
 *   frozen instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type AdapterProcess, startAdapterProcess } from '../support/adapter-process.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { subscribe } from '../support/observe.js';
import { ossStore } from '../support/oss.js';
import { StreamText } from '../support/read-until.js';
import { readRecords, recordsOfText, type SseRecordWithId, textOfRecords } from '../support/sse-records.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';
import { until } from '../support/until.js';

const GRACE_MS = 3_000;
let instances: TwoInstances | undefined;
let kernel: A2AEmulator;
let a: AdapterProcess;
let b: AdapterProcess;

beforeAll(async () => {
  // A short lease, so that a killed owner's run is taken over within seconds (docs/protocol.md §6.6).
  instances = await startTwoInstances({ IAC_CODE_AGUI_DETACH_GRACE_MS: String(GRACE_MS), IAC_CODE_AGUI_LEASE_TTL_MS: '3000', IAC_CODE_AGUI_LEASE_RENEW_MS: '1000' });
  ({ kernel, a, b } = instances);
}, 60_000);
afterAll(async () => instances?.stop());

const identity = (threadId: string, runId: string) => ({ threadId, runId, rosInvocationId: 'invocation-1' });
interface Thread {
  activeRun: { detachedUntil?: number } | null;
  execution: { executionId: string; taskId: string | null };
  terminalExecutions: Record<string, string>;
}

async function thread(threadId: string): Promise<Thread | undefined> {
  return (await ossStore((instances as TwoInstances).oss).load(threadId))?.document as Thread | undefined;
}

describe('runs that outlive their instance', () => {
  it('the owner killed mid-run: its client reattaches on the other instance with its last id and gets the rest exactly', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const response = await fetch(`${a.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...ASK_GRACE },
      body: JSON.stringify(runBody({ threadId, runId, text: 'steps slowly' })),
    });
    const live = new StreamText(response);
    // Once the task streams (its id is durable) and its client read a few steps, the owner's instance is killed under it.
    await until(async () => ((await thread(threadId))?.execution.taskId ?? null) !== null, 10_000, 50);
    await live.until((text) => textOfRecords(recordsOfText(text)).includes('step 5. '), { what: 'five steps', timeoutMs: 15_000 });
    await a.stop('SIGKILL');
    const received: SseRecordWithId[] = recordsOfText(await live.rest());
    expect(received.map((record) => record.event.type)).not.toContain('RUN_FINISHED');
    const executionId = (await thread(threadId))?.execution.executionId as string;
    const rest = await readRecords(await subscribe(b.url, executionId, identity(threadId, runId), { 'last-event-id': received.at(-1)?.id ?? '' }));
    const whole = [...received, ...rest.records];
    expect(whole.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    await assertValidAgUiStream(whole.map((record) => record.event));
    expect(new Set(whole.map((record) => record.id)).size).toBe(whole.length);
    expect(textOfRecords(whole)).toBe(Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join(''));
    expect(kernel.callsOf('CancelTask')).toHaveLength(0);
  });

  it('a detached run nobody comes back to is cancelled after its grace by the other instance while the owner is stopped (SIGSTOP)', async () => {
    // B owns this run (A was killed by the test above); a third instance will have to end it.
    const owner = b;
    const threadId = uniqueId('thread');
    // Started first: the 3-second grace then covers only what it is meant to (a loaded machine takes seconds to start a process).
    const other = await startAdapterProcess({
      IAC_CODE_AGUI_A2A_URL: kernel.url,
      IAC_CODE_AGUI_STATE_STORE: 'oss',
      IAC_CODE_AGUI_OSS_ENDPOINT: (instances as TwoInstances).oss.endpoint,
      IAC_CODE_AGUI_OSS_BUCKET: 'agui-state',
      IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou',
      ALIBABA_CLOUD_ACCESS_KEY_ID: 'test-ak',
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'test-secret',
      IAC_CODE_AGUI_DETACH_GRACE_MS: String(GRACE_MS),
    });
    try {
      const controller = new AbortController();
      const response = await fetch(`${owner.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...ASK_GRACE },
        body: JSON.stringify(runBody({ threadId, text: 'long running' })),
        signal: controller.signal,
      });
      await readRecords(response, { cutAfter: 6, controller });
      await until(async () => (await thread(threadId))?.activeRun?.detachedUntil !== undefined, 10_000, 50);
      const { executionId, taskId } = (await thread(threadId))?.execution as { executionId: string; taskId: string };
      // Its deadline is on the due list too, where another instance's sweeper finds it.
      const journal = ossStore((instances as TwoInstances).oss).journal;
      await until(async () => (await journal.due(Date.now() + 600_000, 1_000)).some((entry) => entry.executionId === executionId), 5_000, 50);
      owner.child.kill('SIGSTOP');
      // Any request starts an instance's sweeper (docs/protocol.md §6.15); a new turn on the busy
      // thread is refused THREAD_BUSY while the detached run is within its grace.
      const busy = await fetch(`${other.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runBody({ threadId })) });
      expect(busy.status).toBe(409);
      await until(async () => kernel.callsOf('CancelTask').some((call) => (call.params as { id: string }).id === taskId), GRACE_MS + 15_000, 50);
      const document = await thread(threadId);
      expect(document?.activeRun).toBeNull();
      expect(document?.terminalExecutions[document.execution.executionId]).toBe('invocation-1');
    } finally {
      owner.child.kill('SIGCONT');
      await other.stop();
    }
  });
});

/**
 * Observing across instances (docs/protocol.md §6.12, §6.14, §6.15): two real adapter processes
 * share one OSS emulator bucket and one A2A emulator, as two FC instances do.
 *
 * - a run streams on A while an observer follows it on B from the run's journal: both see it whole,
 *   to its end, nothing is cancelled;
 * - A dies (SIGKILL) mid-run under an official HttpAgent: the client's connection drops, and the
 *   official client reconnects through subscribe on B (no event id: the run from its start) and
 *   sees the run to its end — B takes it over once A's lease expired; the task lived on in the kernel.
 */
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2AEmulator } from '../../lib/emulators/a2a/server.js';
import type { AdapterProcess } from '../support/adapter-process.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { tolerantFetch } from '../support/dropping-fetch.js';
import { iacCode, runBody, uniqueId } from '../support/fixtures.js';
import { isSessionEvent, LiveSse } from '../support/live-sse.js';
import { subscribe, textOf } from '../support/observe.js';
import { waitFor, within } from '../support/read-until.js';
import { SubscribeAgent } from '../support/subscribe-agent.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

let kernel: A2AEmulator;
let a: AdapterProcess;
let b: AdapterProcess;
let instances: TwoInstances | undefined;

beforeAll(async () => {
  // A short lease, so that a dead owner's run is taken over within seconds (docs/protocol.md §6.6).
  instances = await startTwoInstances({ IAC_CODE_AGUI_LEASE_TTL_MS: '3000', IAC_CODE_AGUI_LEASE_RENEW_MS: '1000' });
  ({ kernel, a, b } = instances);
}, 60_000);

afterAll(async () => instances?.stop());

const STEPS = Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join('');

function cancelsOf(taskId: string): number {
  return kernel.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === taskId).length;
}

describe('observers on another instance', () => {
  it('follows on B a run that streams on A; both end success, the observer sees the whole run once, nothing is cancelled', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const response = await fetch(`${a.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(runBody({ threadId, runId, text: 'steps slowly' })),
    });
    const owner = new LiveSse(response);
    const session = await owner.until((event) => isSessionEvent(event) && typeof (event['value'] as Record<string, unknown>)['taskId'] === 'string');
    const { executionId, taskId } = session['value'] as { executionId: string; taskId: string };
    const observed = await subscribe(b.url, executionId, { threadId, runId, rosInvocationId: 'invocation-1' });
    expect(observed.status).toBe(200);
    const [ownerEvents, observerEvents] = await Promise.all([owner.rest(), new LiveSse(observed).rest()]);
    await assertValidAgUiStream(observerEvents);
    expect(ownerEvents.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(observerEvents.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(textOf(observerEvents)).toBe(STEPS);
    expect(textOf(ownerEvents)).toBe(STEPS);
    expect(cancelsOf(taskId)).toBe(0);
  });

  it('reconnects with the official client on B after A died mid-run, and sees the run to its end', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = new HttpAgent({ url: `${a.url}/`, threadId, fetch: tolerantFetch });
    owner.messages.push({ id: uniqueId('msg'), role: 'user', content: 'steps slowly' });
    let announced: (value: { executionId: string; taskId: string }) => void = () => undefined;
    const session = new Promise<{ executionId: string; taskId: string }>((resolve) => {
      announced = resolve;
    });
    const ownerEvents: BaseEvent[] = [];
    const ownerRun = owner.runAgent(
      { runId, forwardedProps: { iacCode: iacCode() } },
      {
        onEvent: ({ event }) => {
          ownerEvents.push(event);
          const value = (event as { value?: { executionId: string; taskId: string | null } }).value;
          if (event.type === 'CUSTOM' && value?.taskId) announced({ executionId: value.executionId, taskId: value.taskId });
        },
      },
    );
    const { executionId, taskId } = await within(session, 10_000, 'the session event');
    // A few steps reached the owner, then A is killed under it.
    await waitFor(() => textOf(ownerEvents as never).includes('step 5. '), { what: 'five steps', timeoutMs: 15_000, seen: () => textOf(ownerEvents as never) });
    await a.stop('SIGKILL');
    await ownerRun;
    // The owner's stream just stopped: no terminal event ever reached it.
    expect(ownerEvents.filter((event) => event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR')).toEqual([]);

    const followed: BaseEvent[] = [];
    const reconnected = new SubscribeAgent(b.url, executionId, threadId, 'invocation-1');
    await reconnected.runAgent({ runId }, { onEvent: ({ event }) => void followed.push(event) });
    expect(followed[0]).toMatchObject({ type: 'RUN_STARTED', threadId, runId });
    expect(followed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(textOf(followed as never)).toBe(STEPS);
    expect(cancelsOf(taskId)).toBe(0);
  });
});

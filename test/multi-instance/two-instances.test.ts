/**
 * Many instances (docs/protocol.md §6.12, §6.6, §6.7): two real adapter processes (scripts/start-local.ts) share one OSS emulator bucket
 * through the OSS driver and one A2A emulator, as two FC instances share a bucket and a kernel.
 *
 * - an interrupt announced by A is resumed on B;
 * - a cancel sent to B ends A's live stream;
 * - simultaneous runs on one thread across both: exactly one admitted, the rest THREAD_BUSY;
 * - A killed with SIGKILL mid-run: its lease expires, the next run (on B) takes the thread over and
 *   cancels the A2A task A left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2AEmulator } from '../../lib/emulators/a2a/server.js';
import type { AdapterProcess } from '../support/adapter-process.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, resolved, sessionValue } from '../support/interrupts.js';
import { isSessionEvent, LiveSse, type SseEvent } from '../support/live-sse.js';
import { parseSse } from '../support/sse.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';

const LEASE_TTL_MS = 1_500;

let kernel: A2AEmulator;
let a: AdapterProcess;
let b: AdapterProcess;
let instances: TwoInstances | undefined;

beforeAll(async () => {
  instances = await startTwoInstances({
    IAC_CODE_AGUI_LEASE_TTL_MS: String(LEASE_TTL_MS),
    IAC_CODE_AGUI_LEASE_RENEW_MS: '300',
  });
  ({ kernel, a, b } = instances);
}, 60_000);

afterAll(async () => instances?.stop());

function post(instance: AdapterProcess, path: string, body: unknown): Promise<Response> {
  return fetch(`${instance.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
}

async function run(instance: AdapterProcess, body: unknown): Promise<SseEvent[]> {
  const response = await post(instance, '/', body);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await response.text()).events;
}

/** Starts a `long` run and reads it until its task id is durable and announced. */
async function startLongRun(instance: AdapterProcess, threadId: string): Promise<{ stream: LiveSse; executionId: string; taskId: string }> {
  const response = await post(instance, '/', runBody({ threadId, text: 'long' }));
  expect(response.status).toBe(200);
  const stream = new LiveSse(response);
  const session = await stream.until((event) => isSessionEvent(event) && typeof (event['value'] as Record<string, unknown>)['taskId'] === 'string');
  const value = session['value'] as { executionId: string; taskId: string };
  return { stream, executionId: value.executionId, taskId: value.taskId };
}

function cancel(instance: AdapterProcess, executionId: string, threadId: string): Promise<Response> {
  return post(instance, `/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId, rosInvocationId: 'invocation-1' });
}

describe('two adapter processes on one bucket', () => {
  it('resumes on B an interrupt announced by A, on the same task and execution', async () => {
    const threadId = uniqueId('thread');
    const first = { events: await run(a, runBody({ threadId, text: 'permission' })), raw: '' };
    const [interrupt] = interruptsOf(first);
    const second = { events: await run(b, runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] })), raw: '' };
    expect(second.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const [before, after] = [sessionValue(first), sessionValue(second)];
    expect(after).toMatchObject({ executionId: before?.['executionId'], taskId: before?.['taskId'] });
  });

  it('ends A’s live stream with RUN_ERROR CANCELLED when the cancel lands on B', async () => {
    const threadId = uniqueId('thread');
    const live = await startLongRun(a, threadId);
    const response = await cancel(b, live.executionId, threadId);
    expect(await response.json()).toEqual({ executionId: live.executionId, status: 'cancelled' });
    const events = await live.stream.rest();
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    expect(kernel.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(live.taskId);
  });

  it('admits exactly one of many simultaneous runs on one thread across both, the rest THREAD_BUSY', async () => {
    const threadId = uniqueId('thread');
    const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => post(index % 2 === 0 ? a : b, '/', runBody({ threadId, text: 'long' }))));
    const admitted = responses.filter((response) => response.status === 200);
    const rejected = responses.filter((response) => response.status !== 200);
    expect(admitted).toHaveLength(1);
    expect(rejected).toHaveLength(7);
    for (const response of rejected) {
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ error: { code: 'THREAD_BUSY' } });
    }
    // Let the winner go: cancel it and read its stream to the end.
    const stream = new LiveSse(admitted[0] as Response);
    const session = await stream.until(isSessionEvent);
    await cancel(b, (session['value'] as { executionId: string }).executionId, threadId);
    expect((await stream.rest()).at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
  });

  it('lets the next run take over after the owner is killed (SIGKILL), cancelling the task it orphaned', async () => {
    const threadId = uniqueId('thread');
    const live = await startLongRun(a, threadId);
    await a.stop('SIGKILL');
    await live.stream.rest();
    // While A's lease is live the thread stays busy; once it expires, B admits the next run.
    let takeover: Response | undefined;
    for (let attempt = 0; attempt < 40 && takeover === undefined; attempt += 1) {
      const response = await post(b, '/', runBody({ threadId, text: 'hello' }));
      if (response.status === 200) takeover = response;
      else {
        expect(await response.json()).toMatchObject({ error: { code: 'THREAD_BUSY' } });
        await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS / 5));
      }
    }
    expect(takeover).toBeDefined();
    const events = await new LiveSse(takeover as Response).rest();
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(kernel.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(live.taskId);
  });
});

/**
 * Runs that survive their connection (docs/protocol.md §6.15), on one instance over real sockets
 * against the A2A emulator, with a detach grace: every event carries an id; a stream cut by a proxy
 * at random points and reattached each time with Last-Event-ID adds up, id for id and byte for byte,
 * to what an uncut reader got; a run that ended while nobody read keeps its tail for a reader; a new
 * turn meets THREAD_BUSY while a detached run is within its grace; ids that name nothing are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { subscribe } from '../support/observe.js';
import { seededRandom } from '../support/oss-adversary.js';
import { readRecords, type SseRecordWithId } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { detachGraceMs: 60_000 } });
});
afterAll(async () => stack.close());

const identity = (threadId: string, runId: string) => ({ threadId, runId, rosInvocationId: 'invocation-1' });

/** Starts a run; resolves the response and the abort controller of its connection. */
async function startRun(threadId: string, runId: string, text: string): Promise<{ response: Response; controller: AbortController }> {
  const controller = new AbortController();
  const response = await fetch(`${stack.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...ASK_GRACE },
    body: JSON.stringify(runBody({ threadId, runId, text })),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  return { response, controller };
}

function executionIdOf(records: readonly SseRecordWithId[]): string {
  const session = records.find((record) => record.event.type === 'CUSTOM' && record.event['name'] === 'iac-code.session.v1');
  return (session?.event['value'] as { executionId: string }).executionId;
}

async function activeRun(threadId: string): Promise<Record<string, unknown> | null> {
  return ((await stack.store.load(threadId))?.document as { activeRun: Record<string, unknown> | null }).activeRun;
}

describe('exact reattach', () => {
  it('a stream cut at 20 random points, reattached each time with Last-Event-ID, adds up to an uncut reader’s events — ids and payloads', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const random = seededRandom(19);
    const owner = await startRun(threadId, runId, 'steps');
    // The first cut comes after the session event, so the execution is known.
    const first = await readRecords(owner.response, { cutAfter: 3 + Math.floor(random() * 3), controller: owner.controller });
    const executionId = executionIdOf(first.records);
    expect(executionId).toBeTruthy();
    // An uncut reader of the same execution, from the run's start (no id).
    const reference = readRecords(await subscribe(stack.url, executionId, identity(threadId, runId)));
    const got = [...first.records];
    let cuts = 1;
    for (let cut = 1; cut < 20; cut += 1) {
      const controller = new AbortController();
      const response = await subscribe(stack.url, executionId, identity(threadId, runId), { 'last-event-id': got.at(-1)?.id ?? '' }, controller.signal);
      expect(response.status).toBe(200);
      const part = await readRecords(response, { cutAfter: 1 + Math.floor(random() * 4), controller });
      got.push(...part.records);
      if (!part.cut) break;
      cuts += 1;
    }
    expect(cuts).toBe(20);
    const last = await subscribe(stack.url, executionId, identity(threadId, runId), { 'last-event-id': got.at(-1)?.id ?? '' });
    got.push(...(await readRecords(last)).records);
    const uncut = (await reference).records;
    expect(uncut.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(got.map((record) => `${record.id} ${record.data}`)).toEqual(uncut.map((record) => `${record.id} ${record.data}`));
    await assertValidAgUiStream(got.map((record) => record.event));
    const text = got.flatMap((record) => (record.event.type === 'TEXT_MESSAGE_CONTENT' ? [record.event['delta'] as string] : [])).join('');
    expect(text).toBe(Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join(''));
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
  });

  it('a run that ended while nobody read keeps its tail for the reader who comes back', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = await startRun(threadId, runId, 'steps');
    const { records } = await readRecords(owner.response, { cutAfter: 6, controller: owner.controller });
    const executionId = executionIdOf(records);
    // The run goes on detached and ends: its lease is released.
    for (let waited = 0; (await activeRun(threadId)) !== null; waited += 50) {
      expect(waited).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const rest = (await readRecords(await subscribe(stack.url, executionId, identity(threadId, runId), { 'last-event-id': records.at(-1)?.id ?? '' }))).records;
    expect(rest.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const whole = [...records, ...rest];
    await assertValidAgUiStream(whole.map((record) => record.event));
    expect(new Set(whole.map((record) => record.id)).size).toBe(whole.length);
    const text = whole.flatMap((record) => (record.event.type === 'TEXT_MESSAGE_CONTENT' ? [record.event['delta'] as string] : [])).join('');
    expect(text).toBe(Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join(''));
  });

  it('answers a new turn THREAD_BUSY while a detached run is within its grace, naming the run and until when it is kept', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = await startRun(threadId, runId, 'long running');
    await readRecords(owner.response, { cutAfter: 5, controller: owner.controller });
    for (let waited = 0; (await activeRun(threadId))?.['detachedUntil'] === undefined; waited += 20) {
      expect(waited).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const busy = await stack.post('/', runBody({ threadId, runId: uniqueId('run'), text: 'hello' }));
    expect(busy.status).toBe(409);
    const executionId = ((await stack.store.load(threadId))?.document as { execution: { executionId: string } }).execution.executionId;
    const detachedUntil = (await activeRun(threadId))?.['detachedUntil'];
    expect(((await busy.json()) as { error: unknown }).error).toMatchObject({
      code: 'THREAD_BUSY',
      message: expect.stringMatching(/client left.*Reattach to it or cancel it/),
      details: { executionId, runId, state: 'detached', detachedUntil },
    });
    await stack.post(`/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId, rosInvocationId: 'invocation-1' });
  });
});

describe('ids that name nothing to follow', () => {
  it('refuses a malformed Last-Event-ID (400), another execution’s id (409 EVENT_ID_MISMATCH) and one older than the journal keeps (409 EVENT_ID_EXPIRED)', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const first = await stack.run(runBody({ threadId, runId, text: 'permission please' }));
    const executionId = (first.sse.events.find((event) => event['type'] === 'CUSTOM')?.['value'] as { executionId: string }).executionId;
    const malformed = await subscribe(stack.url, executionId, identity(threadId, runId), { 'last-event-id': 'not-an-id' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string; details: Array<{ path: string }> } }).error).toMatchObject({
      code: 'INVALID_INPUT',
      details: [{ path: 'Last-Event-ID' }],
    });
    const other = await subscribe(stack.url, executionId, identity(threadId, runId), { 'last-event-id': '0123456789.1.1.0' });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('EVENT_ID_MISMATCH');
    // The journal of the execution is deleted (as its retention would): the id names what is gone.
    const ownId = /^id: (\S+)$/m.exec(first.sse.raw)?.[1] ?? '';
    await stack.store.journal?.remove(threadId, executionId);
    const expired = await subscribe(stack.url, executionId, identity(threadId, runId), { 'last-event-id': ownId });
    expect(expired.status).toBe(409);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('EVENT_ID_EXPIRED');
  });
});

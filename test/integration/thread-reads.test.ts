/**
 * The thread reads of docs/protocol.md §6.16 — what a runner that holds nothing asks: what the
 * thread is doing, its current run by thread alone, and its conversation rebuilt from the kernel's
 * task history — through real HTTP (adapter + A2A emulator + file store).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent } from '../support/interrupts.js';
import { parseSse, type SseRecord } from '../support/sse.js';
import { readRecords } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';
import { until } from '../support/until.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { detachGraceMs: 60_000 } });
});
afterAll(async () => stack.close());

const threadPath = (threadId: string, rest = '') => `${stack.url}/extensions/iac-code/v1/threads/${encodeURIComponent(threadId)}${rest}`;

async function threadState(threadId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(threadPath(threadId));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function messages(threadId: string): Promise<Array<{ id: string; role: string; content: string }>> {
  const response = await fetch(threadPath(threadId, '/messages'));
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: Array<{ id: string; role: string; content: string }> }).messages;
}

function subscribeThread(threadId: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(threadPath(threadId, '/subscribe'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: '{}',
    signal,
  });
}

/** The assistant text of a run's events, per message id in order: what a chat shows of it. */
function assistantTexts(sse: SseRecord): Array<{ id: string; content: string }> {
  const texts: Array<{ id: string; content: string }> = [];
  for (const event of sse.events) {
    if (event.type === 'TEXT_MESSAGE_START') texts.push({ id: String(event['messageId']), content: '' });
    if (event.type === 'TEXT_MESSAGE_CONTENT') (texts.find((text) => text.id === event['messageId']) as { content: string }).content += String(event['delta']);
  }
  return texts;
}

describe('the thread reads', () => {
  it('answer a thread never used 404 NOT_FOUND on every route', async () => {
    const threadId = uniqueId('thread');
    for (const response of [await fetch(threadPath(threadId)), await fetch(threadPath(threadId, '/messages')), await subscribeThread(threadId)]) {
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND', message: 'The thread was not found.' } });
    }
  });

  it('an idle thread: no run, subscribe 204, and the conversation as the runs streamed it — user messages and assistant text, turn by turn, under the live ids', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'hello there' }));
    const second = await stack.run(runBody({ threadId, text: 'hello again', extra: { messages: [{ id: 'message-2', role: 'user', content: 'hello again' }] } }));
    expect(await threadState(threadId)).toEqual({ status: 200, body: { threadId, run: null } });
    expect((await subscribeThread(threadId)).status).toBe(204);

    const conversation = await messages(threadId);
    const expected: Array<{ id?: string; role: string; content: string }> = [
      { role: 'user', content: 'hello there' },
      ...assistantTexts(first.sse).map((text) => ({ ...text, role: 'assistant' })),
      { role: 'user', content: 'hello again' },
      ...assistantTexts(second.sse).map((text) => ({ ...text, role: 'assistant' })),
    ];
    expect(conversation.map(({ id: _id, ...rest }) => rest)).toEqual(expected.map(({ id: _id, ...rest }) => rest));
    // Assistant messages keep the ids the live runs gave them: a chat that has them merges, not doubles.
    expect(conversation.filter((message) => message.role === 'assistant').map((message) => message.id)).toEqual(
      expected.filter((message) => message.role === 'assistant').map((message) => (message as { id: string }).id),
    );
    expect(new Set(conversation.map((message) => message.id)).size).toBe(conversation.length);
  });

  it('on a kernel without ListTasks: the conversation of the task the thread names (its newest turn)', async () => {
    const threadId = uniqueId('thread');
    await stack.run(runBody({ threadId, text: 'hello one' }));
    await stack.run(runBody({ threadId, text: 'hello two', extra: { messages: [{ id: 'message-2', role: 'user', content: 'hello two' }] } }));
    const three = await stack.run(runBody({ threadId, text: 'hello three', extra: { messages: [{ id: 'message-3', role: 'user', content: 'hello three' }] } }));
    stack.emulator.controls.rpcFaults.push({ method: 'ListTasks', kind: 'error', code: -32601, message: 'Method not found' });
    // The emulator's GetTask history starts at the first status message (task-script.ts), so only the agent text shows here.
    const assistant = (await messages(threadId)).filter((message) => message.role === 'assistant').map(({ id, content }) => ({ id, content }));
    expect(assistant).toEqual(assistantTexts(three.sse));
    expect(stack.emulator.callsOf('ListTasks').length).toBeGreaterThan(0);
  });

  it('an interrupted thread: the interrupts and the run that announced them; subscribe by thread gives that run back, ending with the same interrupts', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const asked = await stack.run(runBody({ threadId, runId, text: 'permission' }));
    const interrupts = interruptsOf(asked.sse);
    const { body } = await threadState(threadId);
    expect(body['run']).toMatchObject({ runId, state: 'interrupted', interrupts });
    const replay = parseSse(await (await subscribeThread(threadId)).text());
    await assertValidAgUiStream(replay.events);
    expect(replay.events[0]).toMatchObject({ type: 'RUN_STARTED', runId });
    expect(lastEvent(replay)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts } });
  });

  it('a live run: live, then detached once its caller left; subscribe by thread follows it from its start, and after an id from there on', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = await stack.post('/', runBody({ threadId, runId, text: 'long running' }), ASK_GRACE);
    const cut = await readRecords(owner, { cutAfter: 6, controller: new AbortController() });
    await until(async () => ((await threadState(threadId)).body['run'] as { state?: string } | null)?.state === 'detached', 5_000);
    const run = (await threadState(threadId)).body['run'] as { executionId: string; runId: string; detachedUntil: number };
    expect(run).toMatchObject({ runId, state: 'detached', detachedUntil: expect.any(Number) });

    const controller = new AbortController();
    const fromStart = await readRecords(await subscribeThread(threadId, {}, controller.signal), { cutAfter: cut.records.length, controller });
    expect(fromStart.records.map((record) => record.id)).toEqual(cut.records.map((record) => record.id));
    const back = new AbortController();
    const after = await readRecords(await subscribeThread(threadId, { 'last-event-id': cut.records.at(-1)?.id ?? '' }, back.signal), { cutAfter: 3, controller: back });
    expect(after.records[0]?.id).not.toBe(cut.records.at(-1)?.id);
    expect(after.records.map((record) => record.event.type)).toContain('TEXT_MESSAGE_CONTENT');
    await stack.post(`/extensions/iac-code/v1/executions/${run.executionId}/cancel`, { threadId, rosInvocationId: 'invocation-1' });
  });
});

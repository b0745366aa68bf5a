/**
 * Reconnecting with the official @ag-ui/client (docs/protocol.md §6.14, §6.15): an HttpAgent runs a
 * turn while a second client follows it through the subscribe route, drops its connection
 * mid-stream, and reconnects with the same official client — no event id, so it gets the run from
 * its start — which sees it to its end through its own verifyEvents; and a client that reloads
 * while an interrupt waits gets the same interrupts back as pendingInterrupts and answers them.
 */
import { type BaseEvent, buildResumeArray, HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutAfter } from '../support/dropping-fetch.js';
import { iacCode, uniqueId } from '../support/fixtures.js';
import { runTurn } from '../support/http-agent.js';
import { textOf } from '../support/observe.js';
import { type Stack, startStack } from '../support/stack.js';
import { SubscribeAgent } from '../support/subscribe-agent.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

interface SessionValue {
  executionId: string;
  taskId: string | null;
}

function isSession(event: BaseEvent): boolean {
  return event.type === 'CUSTOM' && (event as { name?: string }).name === 'iac-code.session.v1';
}

/** Starts an HttpAgent run; resolves its session value as soon as the task id is announced. */
function startRun(agent: HttpAgent, runId: string): { events: BaseEvent[]; done: Promise<unknown>; session: Promise<SessionValue & { taskId: string }> } {
  const events: BaseEvent[] = [];
  let announce: (value: SessionValue & { taskId: string }) => void = () => undefined;
  const session = new Promise<SessionValue & { taskId: string }>((resolve) => {
    announce = resolve;
  });
  const done = agent.runAgent(
    { runId, forwardedProps: { iacCode: iacCode() } },
    {
      onEvent: ({ event }) => {
        events.push(event);
        const value = (event as { value?: SessionValue }).value;
        if (isSession(event) && value?.taskId) announce({ ...value, taskId: value.taskId });
      },
    },
  );
  return { events, done, session };
}

describe('reconnecting with the official client', () => {
  it('a follower drops its stream mid-run and reconnects: the run is seen from its start to its end, the owner is unaffected', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const owner = new HttpAgent({ url: `${stack.url}/`, threadId });
    owner.messages.push({ id: uniqueId('msg'), role: 'user', content: 'steps' });
    const run = startRun(owner, runId);
    const { executionId } = await run.session;

    // The first follower's connection drops mid-stream (a proxy or a network cut): its body ends
    // right after the session event and the socket closes under the official client.
    const dropped: BaseEvent[] = [];
    const first = new SubscribeAgent(
      stack.url,
      executionId,
      threadId,
      'invocation-1',
      cutAfter('iac-code.session.v1', async () => undefined),
    );
    await first.runAgent({ runId }, { onEvent: ({ event }) => void dropped.push(event) });
    expect(dropped.map((event) => event.type)).toContain('CUSTOM');

    // The official client reconnects without an event id: the current run from its start, then live
    // (docs/protocol.md §6.15) — so it ends up with the whole run, exactly as the owner saw it.
    const followed: BaseEvent[] = [];
    const second = new SubscribeAgent(stack.url, executionId, threadId, 'invocation-1');
    await second.runAgent({ runId }, { onEvent: ({ event }) => void followed.push(event) });
    await run.done;

    expect(followed[0]).toMatchObject({ type: 'RUN_STARTED', threadId, runId });
    expect(followed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(run.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(textOf(followed as never)).toBe(Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join(''));
    expect(textOf(followed as never)).toBe(textOf(run.events as never));
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
  });

  it('after a reload while an interrupt waits, the subscribe stream gives the interrupts back and the new client answers them', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const before = new HttpAgent({ url: `${stack.url}/`, threadId });
    before.messages.push({ id: uniqueId('msg'), role: 'user', content: 'permission please' });
    const run = startRun(before, runId);
    const { executionId } = await run.session;
    await run.done;
    const announced = before.pendingInterrupts;
    expect(announced).toHaveLength(1);

    // The reloaded page knows only the identities; its agent starts empty.
    const reloaded = new SubscribeAgent(stack.url, executionId, threadId, 'invocation-1');
    await reloaded.runAgent({ runId });
    expect(reloaded.pendingInterrupts).toEqual(announced);

    const answering = new HttpAgent({ url: `${stack.url}/`, threadId });
    answering.pendingInterrupts = reloaded.pendingInterrupts;
    const resume = buildResumeArray(answering.pendingInterrupts, { [announced[0]!.id]: { status: 'resolved', payload: { decision: 'allow_once' } } });
    const { events } = await runTurn(answering, { resume });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(answering.pendingInterrupts).toEqual([]);
  });
});

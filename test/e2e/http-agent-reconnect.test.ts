/**
 * Reconnecting with the official @ag-ui/client (docs/protocol.md §6.14): an HttpAgent runs a turn
 * while a second client follows it through the subscribe route, drops its connection mid-stream,
 * and reconnects with the same official client, which sees the run to its end through its own
 * verifyEvents; and a client that reloads while an interrupt waits gets the same interrupts back
 * as pendingInterrupts and answers them.
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
  it('a follower drops its stream mid-run and reconnects: the run is seen to its end, the owner is unaffected', async () => {
    stack.emulator.controls.watch.observers = 2;
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const owner = new HttpAgent({ url: `${stack.url}/`, threadId });
      owner.messages.push({ id: uniqueId('msg'), role: 'user', content: 'watched' });
      const run = startRun(owner, runId);
      const { executionId, taskId } = await run.session;
      // Cut only once that follower's observation is attached to the task (the emulator recorded
      // its SubscribeToTask), so the drop happens mid-subscription.
      const attached = async (): Promise<void> => {
        while (!stack.emulator.callsOf('SubscribeToTask').some((call) => (call.params as { id: string }).id === taskId)) await new Promise((resolve) => setTimeout(resolve, 10));
      };

      // The first follower's connection drops mid-stream (a proxy or a network cut): its body ends
      // right after the session event and the socket closes under the official client.
      const dropped: BaseEvent[] = [];
      const first = new SubscribeAgent(stack.url, executionId, threadId, 'invocation-1', cutAfter('iac-code.session.v1', attached));
      await first.runAgent({ runId }, { onEvent: ({ event }) => void dropped.push(event) });
      expect(dropped.map((event) => event.type)).toEqual(['RUN_STARTED', 'CUSTOM']);

      const followed: BaseEvent[] = [];
      const second = new SubscribeAgent(stack.url, executionId, threadId, 'invocation-1');
      await second.runAgent({ runId }, { onEvent: ({ event }) => void followed.push(event) });
      await run.done;

      expect(followed[0]).toMatchObject({ type: 'RUN_STARTED', threadId, runId });
      expect(followed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(textOf(followed as never)).toBe('Observers see this part. ');
      expect(run.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(textOf(run.events as never)).toBe('Watched work begins. Observers see this part. ');
      expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
    } finally {
      stack.emulator.controls.watch.observers = 1;
    }
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

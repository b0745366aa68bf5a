/**
 * IacCodeAgent (lib/client, docs/architecture.md "The client module") through @ag-ui/client's own
 * runAgent/connectAgent against the real adapter over loopback, with the A2A emulator: a plain
 * turn; a stream cut at seeded random byte offsets, again and again, that reassembles exactly to an
 * uncut reader's run (docs/protocol.md §6.15); connect() from another agent instance on a live run
 * (a reload) and on an idle thread (§6.16); abortRun() through the cancel route (§6.7); an error
 * answered before the stream as a RUN_ERROR (§2.3).
 */
import { type BaseEvent, verifyEvents } from '@ag-ui/client';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IacCodeAgent } from '../../lib/client/index.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { agentFor, CWD, cuttingFetch, runTurn, sessionOf, shapes } from '../support/client-agents.js';
import { uniqueId } from '../support/fixtures.js';
import { subscribe } from '../support/observe.js';
import { seededRandom } from '../support/oss-adversary.js';
import { readRecords } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';
import { until } from '../support/until.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { detachGraceMs: 60_000 } });
});
afterAll(async () => stack.close());

async function verified(events: readonly BaseEvent[]): Promise<void> {
  await lastValueFrom(from(events).pipe(verifyEvents(), toArray()));
  await assertValidAgUiStream(events as unknown as Array<Record<string, unknown>>);
}

const terminals = (events: readonly BaseEvent[]) => events.filter((event) => event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR');

describe('IacCodeAgent', () => {
  it('runs a plain turn with forwardedProps.iacCode and the grace header', async () => {
    const threadId = uniqueId('thread');
    const agent = agentFor(stack.url, threadId);
    const events = await runTurn(agent, 'hello');
    await verified(events);
    expect(terminals(events)).toEqual([expect.objectContaining({ type: 'RUN_FINISHED' })]);
    expect(sessionOf(events)?.rosInvocationId).toBe(agent.rosInvocationIdOf(threadId));
    expect(agent.messages.some((message) => message.role === 'assistant')).toBe(true);
    const stored = (await stack.store.load(threadId))?.document as { cwd: string; activeRun: unknown };
    expect(stored.cwd).toBe(CWD);
  });

  for (const seed of [3, 11, 29]) {
    it(`a stream cut at random byte offsets (seed ${seed}) reattaches by itself and adds up to the uncut run`, async () => {
      const threadId = uniqueId('thread');
      // Every cut falls after the first 700 bytes (RUN_STARTED and the session event), so the uncut reference below attaches while the run is live.
      const cutter = cuttingFetch(seededRandom(seed), 5, 700);
      const agent = agentFor(stack.url, threadId, cutter.fetch);
      const runId = uniqueId('run');
      const events: BaseEvent[] = [];
      let reference: Promise<Awaited<ReturnType<typeof readRecords>>> | undefined;
      agent.addMessage({ id: uniqueId('message'), role: 'user', content: 'steps' });
      await agent.runAgent(
        { runId },
        {
          onEvent: ({ event }) => {
            events.push(event);
            const session = sessionOf([event]);
            // An uncut reader of the same execution from its start, attached while the run is live (§6.14, §6.15).
            if (session && !reference)
              reference = subscribe(stack.url, session.executionId, { threadId, runId, rosInvocationId: session.rosInvocationId }).then((response) => readRecords(response));
          },
        },
      );
      expect(cutter.cutsMade()).toBe(5);
      expect(reference, `no session event: ${shapes(events).join('\n')}`).toBeDefined();
      const uncut = await (reference as Promise<Awaited<ReturnType<typeof readRecords>>>);
      expect(uncut.records.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED' });
      expect(shapes(events)).toEqual(shapes(uncut.records.map((record) => record.event as unknown as BaseEvent)));
      expect(terminals(events)).toHaveLength(1);
      await verified(events);
      const text = events.flatMap((event) => (event.type === 'TEXT_MESSAGE_CONTENT' ? [(event as unknown as { delta: string }).delta] : [])).join('');
      expect(text).toBe(Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join(''));
    });
  }

  it('connect() from another agent instance (a reload) gets the live run from its start, after the conversation so far', async () => {
    const threadId = uniqueId('thread');
    const first = agentFor(stack.url, threadId);
    await runTurn(first, 'hello');
    const seen: BaseEvent[] = [];
    first.addMessage({ id: uniqueId('message'), role: 'user', content: 'steps slowly' });
    const running = first.runAgent({ runId: uniqueId('run') }, { onEvent: ({ event }) => void seen.push(event) });
    await until(() => sessionOf(seen) !== undefined, 10_000).catch(() => {
      throw new Error(`no session event; saw ${shapes(seen).join('\n')}`);
    });
    const reloaded = agentFor(stack.url, threadId);
    const connected: BaseEvent[] = [];
    await reloaded.connectAgent({}, { onEvent: ({ event }) => void connected.push(event) });
    await running;
    await verified(connected);
    const snapshot = connected.find((event) => event.type === 'MESSAGES_SNAPSHOT') as { messages: Array<{ role: string; content: unknown }> } | undefined;
    expect(snapshot?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(shapes(connected.filter((event) => event.type !== 'MESSAGES_SNAPSHOT'))).toEqual(shapes(seen));
    // The reloaded agent's messages are the whole conversation, each once.
    expect(reloaded.messages.map((message) => message.role)).toEqual(first.messages.map((message) => message.role));
  });

  it('connect() on an idle thread gives its conversation as a MESSAGES_SNAPSHOT', async () => {
    const threadId = uniqueId('thread');
    const first = agentFor(stack.url, threadId);
    await runTurn(first, 'hello');
    await runTurn(first, 'hello again');
    const reloaded = agentFor(stack.url, threadId);
    const connected: BaseEvent[] = [];
    await reloaded.connectAgent({}, { onEvent: ({ event }) => void connected.push(event) });
    await verified(connected);
    expect(connected.map((event) => event.type)).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    expect(reloaded.messages.map((message) => `${message.role}:${message.id}`)).toEqual(
      first.messages.filter((message) => message.role === 'user' || message.role === 'assistant').map((message) => `${message.role}:${message.id}`),
    );
  });

  /** A long run on a new agent, once its session event named the execution. */
  async function longRunStarted(threadId: string) {
    const agent = agentFor(stack.url, threadId);
    const seen: BaseEvent[] = [];
    agent.addMessage({ id: uniqueId('message'), role: 'user', content: 'long' });
    const running = agent.runAgent({ runId: uniqueId('run') }, { onEvent: ({ event }) => void seen.push(event) });
    await until(() => sessionOf(seen) !== undefined, 10_000);
    return { agent, running };
  }

  it('abortRun() cancels the execution through the cancel route; the thread takes a new message right after', async () => {
    const threadId = uniqueId('thread');
    const { agent, running } = await longRunStarted(threadId);
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    const cancelled = await agent.cancelRun();
    expect(cancelled).toEqual({ status: 'cancelled' });
    agent.abortRun();
    await running;
    expect(stack.emulator.callsOf('CancelTask').length).toBeGreaterThan(cancelsBefore);
    const next = await runTurn(agent, 'hello');
    expect(terminals(next)).toEqual([expect.objectContaining({ type: 'RUN_FINISHED' })]);
  });

  it('abortRun() alone stops the run (no detached run left holding the thread)', async () => {
    const threadId = uniqueId('thread');
    const { agent, running } = await longRunStarted(threadId);
    agent.abortRun();
    await running;
    await until(async () => ((await stack.store.load(threadId))?.document as { activeRun: unknown }).activeRun === null, 10_000).catch(async () => {
      throw new Error(`still held: ${JSON.stringify((await stack.store.load(threadId))?.document)}`);
    });
    const next = await runTurn(agent, 'hello');
    expect(terminals(next)).toEqual([expect.objectContaining({ type: 'RUN_FINISHED' })]);
  });

  it('an error answered before the stream is a RUN_ERROR with its code', async () => {
    const agent = new IacCodeAgent({ url: stack.url, threadId: uniqueId('thread'), cwd: 'relative/path' });
    const events = await runTurn(agent, 'hello');
    expect(events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'INVALID_INPUT' })]);
    expect((events[0] as unknown as { message: string }).message).toBe('Invalid iac-code forwarded properties.');
  });
});

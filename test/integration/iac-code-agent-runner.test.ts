/**
 * IacCodeAgentRunner (lib/client) holds nothing in process: two runner objects take turns on one
 * thread; `connect` on another runner mid-run reassembles the whole run; `isRunning`/`stop` go
 * through the thread read and the cancel route (docs/protocol.md §6.16, §6.7); a fresh runner after
 * the first was dropped (a restart) serves the thread. A real CopilotRuntime takes the runner.
 */
import type { BaseEvent } from '@ag-ui/client';
import { type AgentRunner, CopilotRuntime } from '@copilotkit/runtime/v2';
import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IacCodeAgent, IacCodeAgentRunner } from '../../lib/client/index.js';
import { CWD, sessionOf, shapes } from '../support/client-agents.js';
import { uniqueId } from '../support/fixtures.js';
import { type Stack, startStack } from '../support/stack.js';
import { until } from '../support/until.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { detachGraceMs: 60_000 } });
});
afterAll(async () => stack.close());

const runner = () => new IacCodeAgentRunner({ url: stack.url, cwd: CWD });

function input(threadId: string, text: string) {
  return { threadId, runId: uniqueId('run'), messages: [{ id: uniqueId('message'), role: 'user', content: text }], tools: [], context: [], state: {}, forwardedProps: {} };
}

async function all(observable: { subscribe: unknown }): Promise<BaseEvent[]> {
  return lastValueFrom((observable as import('rxjs').Observable<BaseEvent>).pipe(toArray()));
}

describe('IacCodeAgentRunner', () => {
  it('a real CopilotRuntime takes it as its runner', () => {
    const typed: AgentRunner = runner();
    const runtime = new CopilotRuntime({ agents: { default: new IacCodeAgent({ url: stack.url, cwd: CWD }) as never }, runner: typed });
    expect(runtime.runner).toBe(typed);
  });

  it('connect on a thread never used (a page opening a new chat) is an empty conversation, not an error', async () => {
    const threadId = uniqueId('thread');
    const connected = await all(runner().connect({ threadId }));
    expect(connected.map((event) => event.type)).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    expect(connected[1]).toMatchObject({ messages: [] });
    expect(await runner().isRunning({ threadId })).toBe(false);
  });

  it('two runner objects take turns on one thread; connect on another mid-run reassembles the run', async () => {
    const threadId = uniqueId('thread');
    const first = await all(runner().run({ threadId, input: input(threadId, 'hello') }));
    expect(first.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    const seen: BaseEvent[] = [];
    const running = new Promise<void>((resolve, reject) =>
      runner()
        .run({ threadId, input: input(threadId, 'steps slowly') })
        .subscribe({ next: (event) => void seen.push(event as BaseEvent), error: reject, complete: () => resolve() }),
    );
    await until(() => sessionOf(seen) !== undefined, 10_000);
    expect(await runner().isRunning({ threadId })).toBe(true);
    const connected = await all(runner().connect({ threadId }));
    await running;
    expect(seen.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(shapes(connected.filter((event) => event.type !== 'MESSAGES_SNAPSHOT'))).toEqual(shapes(seen));
    expect(connected.some((event) => event.type === 'MESSAGES_SNAPSHOT')).toBe(true);
    expect(await runner().isRunning({ threadId })).toBe(false);
    // A third runner (a restarted runtime) takes the next turn, and connect gives the whole conversation.
    const third = await all(runner().run({ threadId, input: input(threadId, 'hello') }));
    expect(third.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    const restarted = await all(runner().connect({ threadId }));
    expect(restarted.map((event) => event.type)).toEqual(['RUN_STARTED', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    const messages = (restarted[1] as unknown as { messages: Array<{ role: string }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  });

  it('stop on another runner cancels the live run; a new turn works right after', async () => {
    const threadId = uniqueId('thread');
    const seen: BaseEvent[] = [];
    const running = new Promise<void>((resolve, reject) =>
      runner()
        .run({ threadId, input: input(threadId, 'long') })
        .subscribe({ next: (event) => void seen.push(event as BaseEvent), error: reject, complete: () => resolve() }),
    );
    await until(() => sessionOf(seen) !== undefined, 10_000);
    expect(await runner().stop({ threadId, runId: 'not-this-run' })).toBe(false);
    expect(await runner().stop({ threadId })).toBe(true);
    await running;
    expect(seen.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    expect(await runner().isRunning({ threadId })).toBe(false);
    expect(await runner().stop({ threadId })).toBe(false);
    const next = await all(runner().run({ threadId, input: input(threadId, 'hello') }));
    expect(next.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});

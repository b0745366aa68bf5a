/**
 * Ending a live run in front of the real kernel (docs/architecture.md §9.7): the cancel route, a
 * caller that disconnects (the kernel's task ends either way: the adapter sends CancelTask,
 * docs/protocol.md §6.8), and an observer following a live execution through subscribe.
 */
import type { BaseEvent } from '@ag-ui/client';
import { expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { SubscribeAgent } from '../support/subscribe-agent.js';
import { cancelExecution, describeWithKernel, iacCodeIn, isTextDelta, kernelTaskReaches, liveRun, sessionOfEvents, textOfEvents, useKernel } from './support/kernel-suite.js';

const isSession = (event: BaseEvent) => event.type === 'CUSTOM' && (event as { name?: string }).name === 'iac-code.session.v1';

describeWithKernel('cancel, disconnect and subscribe with the real kernel', () => {
  const kernel = useKernel('cancel');

  it('cancels a run mid-stream: RUN_ERROR CANCELLED after the text so far, and the kernel task is cancelled', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'a slow answer please' });
    const run = liveRun(agent, { forwardedProps: { iacCode: iacCodeIn(workspace) } });
    await run.until(isTextDelta('part 1'));
    const { executionId, taskId } = sessionOfEvents(run.events);
    expect(await cancelExecution(kernel.stack.url, executionId, agent.threadId)).toEqual({ executionId, status: 'cancelled' });
    const { events, error } = await run.done;
    expect(error).toMatchObject({ code: 'CANCELLED', message: 'The execution was cancelled.' });
    // The kernel's "Task canceled." is its account of the end, not the assistant's answer.
    expect(textOfEvents(events)).toMatch(/^part 0 part 1 (part \d+ )*$/);
    expect(await kernelTaskReaches(kernel.pair.url, taskId, ['TASK_STATE_CANCELED'])).toBe('TASK_STATE_CANCELED');
  });

  it('cancels the kernel task when the caller disconnects mid-run', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'a slow answer please' });
    const events: BaseEvent[] = [];
    let cut: () => void = () => undefined;
    const seenText = new Promise<void>((resolve) => {
      cut = resolve;
    });
    const running = agent.runAgent(
      { runId: uniqueId('run'), forwardedProps: { iacCode: iacCodeIn(workspace) } },
      {
        onEvent: ({ event }) => {
          events.push(event);
          if (isTextDelta('part 0')(event)) cut();
        },
      },
    );
    await seenText;
    agent.abortRun();
    await running.catch(() => undefined);
    const { taskId } = sessionOfEvents(events);
    expect(await kernelTaskReaches(kernel.pair.url, taskId, ['TASK_STATE_CANCELED'])).toBe('TASK_STATE_CANCELED');
  });

  it('lets an observer follow a live execution through subscribe until it is cancelled: the run from its start to its RUN_ERROR CANCELLED, as its caller saw it, without the kernel\'s "Task canceled." as text', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    agent.messages.push({ id: uniqueId('msg'), role: 'user', content: 'a slow answer please' });
    const owner = liveRun(agent, { forwardedProps: { iacCode: iacCodeIn(workspace) } });
    await owner.until(isSession);
    await owner.until(isTextDelta('part 0'));
    const { executionId } = sessionOfEvents(owner.events);
    const observer = liveRun(new SubscribeAgent(kernel.stack.url, executionId, agent.threadId, 'kernel-suite'), {
      runId: ((await owner.until((event) => event.type === 'RUN_STARTED')) as { runId?: string }).runId,
    });
    await observer.until(isTextDelta('part 2'));
    await cancelExecution(kernel.stack.url, executionId, agent.threadId);
    const [owned, observed] = await Promise.all([owner.done, observer.done]);
    expect(owned.error?.code).toBe('CANCELLED');
    // Replayed from the journal, the observer reads the run's own events, its end included (docs/protocol.md §6.14, §6.15).
    expect(observed.error?.code).toBe('CANCELLED');
    const seen = textOfEvents(observed.events);
    expect(seen).toContain('part 2 ');
    expect(seen).toBe(textOfEvents(owned.events));
    expect(seen).not.toContain('Task canceled.');
  });
});

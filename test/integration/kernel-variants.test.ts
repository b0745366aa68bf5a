/**
 * Kernels that differ from the current one: v0.13.1 without /iac-code/session/ensure-restored
 * (docs/protocol.md §7.8: skip the step), and kernels that break identity rules (A2A_PROTOCOL_ERROR).
 */
import { describe, expect, it } from 'vitest';
import type { A2AKernel } from '../../lib/core/ports.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { FOLLOWED_RESUME_CALLS, interruptsOf, lastEvent, resolved } from '../support/interrupts.js';
import { startStack } from '../support/stack.js';

describe('a kernel without the session restore route (v0.13.1)', () => {
  it('skips ensure-restored on its 404 and resumes', async () => {
    const stack = await startStack({ emulator: { restoreRoute: false } });
    try {
      const threadId = uniqueId('thread');
      const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'permission' }))).sse);
      const before = stack.emulator.calls.length;
      const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }));
      expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(stack.emulator.calls.slice(before).map((call) => call.method)).toEqual(FOLLOWED_RESUME_CALLS);
    } finally {
      await stack.close();
    }
  });
});

describe('identity violations', () => {
  it('end a resume with A2A_PROTOCOL_ERROR when GetTask answers another task, keeping the interrupt', async () => {
    let forgeTaskId = false;
    const stack = await startStack({
      wrapKernel: (kernel): A2AKernel =>
        Object.assign(Object.create(kernel) as A2AKernel, {
          getTask: async (taskId: string, historyLength: number) => {
            const task = await kernel.getTask(taskId, historyLength);
            return forgeTaskId ? { ...task, id: 'someone-elses-task' } : task;
          },
        }),
    });
    try {
      const threadId = uniqueId('thread');
      const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'permission' }))).sse);
      forgeTaskId = true;
      const broken = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }));
      expect(broken.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_PROTOCOL_ERROR' });
      expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
      forgeTaskId = false;
      expect(lastEvent((await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
    } finally {
      await stack.close();
    }
  });

  it('end a turn with A2A_PROTOCOL_ERROR and cancel the task when the stream switches context', async () => {
    const stack = await startStack({
      wrapKernel: (kernel): A2AKernel =>
        Object.assign(Object.create(kernel) as A2AKernel, {
          async *sendStreamingMessage(params: Parameters<A2AKernel['sendStreamingMessage']>[0], options: Parameters<A2AKernel['sendStreamingMessage']>[1]) {
            let count = 0;
            for await (const item of kernel.sendStreamingMessage(params, options)) {
              count += 1;
              yield count === 3 && item.statusUpdate ? { statusUpdate: { ...item.statusUpdate, contextId: 'agui-other' } } : item;
            }
          },
        }),
    });
    try {
      const { sse } = await stack.run(runBody({ text: 'long' }));
      expect(lastEvent(sse)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_PROTOCOL_ERROR' });
      expect(stack.emulator.callsOf('CancelTask')).toHaveLength(1);
    } finally {
      await stack.close();
    }
  });
});

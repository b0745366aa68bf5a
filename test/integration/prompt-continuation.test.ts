/**
 * Continuation after a prompt answer (docs/protocol.md §5.6): when the stream
 * that delivered a question or candidate-selection answer ends while the task still works, the
 * run follows the task with SubscribeToTask instead of failing — a new input ends it as an
 * interrupt (durable first), completion as success, failure as A2A_EXECUTION_FAILED, and a
 * subscription that ends again without an end state as A2A_UNAVAILABLE with CancelTask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { FOLLOWED_RESUME_CALLS, interruptsOf, resolved, sessionValue } from '../support/interrupts.js';
import { textOf } from '../support/observe.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

async function stored(
  threadId: string,
): Promise<{ execution: { executionId: string; taskId: string | null; pending: Array<{ id: string }> }; terminalExecutions: Record<string, string> }> {
  return (await stack.store.load(threadId))?.document as never;
}

/** Asks, then answers: the answer's stream ends while the task works on. */
async function answered(text: string, answer: unknown = { selectedId: 'plan-a' }) {
  const threadId = uniqueId('thread');
  const first = await stack.run(runBody({ threadId, text }));
  const [prompt] = interruptsOf(first.sse);
  const taskId = sessionValue(first.sse)?.['taskId'] as string;
  const before = stack.emulator.calls.length;
  const resumed = await stack.run(runBody({ threadId, resume: [resolved(prompt!.id, answer)] }));
  await assertValidAgUiStream(resumed.sse.events);
  const calls = stack.emulator.calls.slice(before).filter((call) => JSON.stringify(call.params).includes(taskId));
  return { threadId, taskId, first, resumed, calls };
}

describe('a prompt answer whose stream ends while the task works on', () => {
  it('follows the task with one SubscribeToTask and ends with the new input as an interrupt, committed before it is announced', async () => {
    const { threadId, first, resumed, calls } = await answered('question-continues permission');
    expect(calls.map((call) => call.method)).toEqual(FOLLOWED_RESUME_CALLS);
    const [permission] = interruptsOf(resumed.sse);
    expect(permission).toMatchObject({ reason: 'tool_call', toolCallId: 'toolu-shell-9' });
    expect((await stored(threadId)).execution.pending.map((item) => item.id)).toEqual([permission!.id]);
    // The text of the answer stream and of the subscription, each once; the same execution.
    expect(textOf(resumed.sse.events)).toBe('Noted: Plan A. The pipeline goes on. ');
    expect(resumed.sse.events.filter((event) => event.type === 'TOOL_CALL_RESULT')).toHaveLength(1);
    expect(sessionValue(resumed.sse)?.['executionId']).toBe(sessionValue(first.sse)?.['executionId']);
    const done = await stack.run(runBody({ threadId, resume: [resolved(permission!.id, { decision: 'allow_once' })] }));
    expect(done.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('ends with success when the task completes (the execution is then terminal) or parks in input-required', async () => {
    const completed = await answered('question-continues complete');
    expect(completed.resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(textOf(completed.resumed.sse.events)).toBe('Noted: Plan A. The pipeline goes on. ');
    const document = await stored(completed.threadId);
    expect(document.terminalExecutions[document.execution.executionId]).toBe('invocation-1');
    const parked = await answered('candidates-continue', { selectedId: 'candidate-1' });
    expect(parked.resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(textOf(parked.resumed.sse.events)).toBe('Noted: Serverless. The pipeline goes on. ');
    expect(parked.calls.filter((call) => call.method === 'SubscribeToTask')).toHaveLength(1);
  });

  it('ends with A2A_EXECUTION_FAILED when the followed task fails, and cancels nothing', async () => {
    const { taskId, resumed, calls } = await answered('question-continues fail');
    expect(types(resumed.sse).filter((type) => type === 'RUN_FINISHED' || type === 'RUN_ERROR')).toEqual(['RUN_ERROR']);
    expect(resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED' });
    // The failure is the task's own, seen through the subscription — not the answer stream's early end.
    expect(calls.filter((call) => call.method === 'SubscribeToTask')).toHaveLength(1);
    expect(textOf(resumed.sse.events)).toBe('Noted: Plan A. The pipeline goes on. ');
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === taskId)).toHaveLength(0);
  });

  it('ends with A2A_UNAVAILABLE and cancels the task when the subscription ends again without an end state', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'question-continues' }));
    const [prompt] = interruptsOf(first.sse);
    const taskId = sessionValue(first.sse)?.['taskId'] as string;
    stack.emulator.controls.rpcFaults.push({ method: 'SubscribeToTask', kind: 'emptyStream' });
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(prompt!.id, { freeText: 'my own plan' })] }));
    await assertValidAgUiStream(resumed.sse.events);
    expect(resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });
    expect(stack.emulator.callsOf('CancelTask').filter((call) => (call.params as { id: string }).id === taskId)).toHaveLength(1);
    const document = await stored(threadId);
    expect(document.execution.taskId).toBeNull();
    expect(document.terminalExecutions[document.execution.executionId]).toBe('invocation-1');
  });
});

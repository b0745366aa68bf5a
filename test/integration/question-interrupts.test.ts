/**
 * Question and option-choice interrupts (docs/protocol.md §5.2, §5.3, §5.8): option lines in the message, a oneOf
 * schema, answers sent as text, the answered question's TOOL_CALL_RESULT, and cancellation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { cancelled, interruptsOf, lastEvent, resolved, threadCalls } from '../support/interrupts.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

function sentText(threadId: string): Array<{ messageId: string; parts: unknown[] }> {
  return threadCalls(stack, threadId, 'SendStreamingMessage')
    .slice(1)
    .map((call) => (call.params as { message: { messageId: string; parts: unknown[] } }).message);
}

describe('an ask_user_question interrupt', () => {
  it('lists the options in the message and offers one schema branch per option plus free text', async () => {
    const first = await stack.run(runBody({ text: 'question' }));
    const [interrupt] = interruptsOf(first.sse);
    expect(interrupt).toMatchObject({
      id: 'ask-toolu-q-1',
      reason: 'input_required',
      toolCallId: 'toolu-q-1',
      message: 'Which network plan should I use?\n- plan-a: Plan A\n- plan-b: Plan B',
    });
    const branches = (interrupt!.responseSchema as { oneOf: Array<Record<string, unknown>> }).oneOf;
    expect(branches).toHaveLength(3);
    expect(branches[1]).toMatchObject({ required: ['selectedId'], properties: { selectedId: { const: 'plan-b', title: 'Plan B' } }, additionalProperties: false });
    expect(branches[2]).toMatchObject({ required: ['freeText'], properties: { freeText: { type: 'string', minLength: 1 } } });
    expect(interrupt!.metadata['standardOptions']).toEqual([
      { id: 'plan-a', title: 'Plan A' },
      { id: 'plan-b', title: 'Plan B' },
    ]);
    await assertValidAgUiStream(first.sse.events);
  });

  it('sends the chosen option as its label, emits one TOOL_CALL_RESULT for the question, and succeeds', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'question' }));
    const [interrupt] = interruptsOf(first.sse);
    const body = runBody({ threadId, resume: [resolved(interrupt!.id, { selectedId: 'plan-b' })] });
    const second = await stack.run(body);
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(sentText(threadId)).toEqual([expect.objectContaining({ messageId: `agui-resume-${body['runId'] as string}`, parts: [{ text: 'Plan B' }] })]);
    const results = second.sse.events.filter((event) => event.type === 'TOOL_CALL_RESULT');
    expect(results).toEqual([expect.objectContaining({ toolCallId: 'toolu-q-1', content: 'Plan B', messageId: 'tool-result-toolu-q-1', role: 'tool' })]);
    expect(second.sse.events.map((event) => event['delta']).join('')).toContain('You chose: Plan B.');
    await assertValidAgUiStream(second.sse.events);
  });

  it('sends free text as it is', async () => {
    const threadId = uniqueId('thread');
    const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'question' }))).sse);
    const second = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { freeText: 'three zones please' })] }));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(sentText(threadId)[0]?.parts).toEqual([{ text: 'three zones please' }]);
  });

  it('rejects an option that is not offered and an empty free text, keeping the question', async () => {
    const threadId = uniqueId('thread');
    const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'question' }))).sse);
    for (const payload of [{ selectedId: 'plan-z' }, { freeText: '' }, { selectedId: 'plan-a', freeText: 'both' }, 'plan-a']) {
      const bad = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, payload)] }));
      expect(bad.sse.events[1], JSON.stringify(payload)).toMatchObject({ type: 'RUN_ERROR', code: 'RESUME_PAYLOAD_INVALID' });
    }
    expect(sentText(threadId)).toEqual([]);
  });

  it('cancels the A2A task when the question is cancelled: RUN_ERROR CANCELLED, execution terminal, nothing pending', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'question' }));
    const [interrupt] = interruptsOf(first.sse);
    const second = await stack.run(runBody({ threadId, resume: [cancelled(interrupt!.id)] }));
    expect(types(second.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(second.sse.events[1]).toMatchObject({ code: 'CANCELLED', message: 'The execution was cancelled by the interrupt response.' });
    const cancels = stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id);
    const document = (await (stack.store as FileThreadStore).load(threadId))?.document as {
      execution: { executionId: string; pending: unknown[]; lastTaskId: string };
      terminalExecutions: Record<string, string>;
      activeRun: unknown;
    };
    expect(cancels).toContain(document.execution.lastTaskId);
    expect(document.execution.pending).toEqual([]);
    expect(document.terminalExecutions[document.execution.executionId]).toBe('invocation-1');
    expect(document.activeRun).toBeNull();
    // A new normal turn is allowed again.
    expect((await stack.run(runBody({ threadId }))).status).toBe(200);
  });
});

describe('a candidate_selection interrupt', () => {
  it('titles options by label or name and sends the chosen one as text', async () => {
    const threadId = uniqueId('thread');
    const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'candidates' }))).sse);
    expect(interrupt).toMatchObject({ reason: 'input_required', message: 'Choose an architecture.\n- candidate-0: ECS + SLB\n- candidate-1: Serverless' });
    expect(interrupt).not.toHaveProperty('toolCallId');
    const branches = (interrupt!.responseSchema as { oneOf: unknown[] }).oneOf;
    expect(branches).toHaveLength(2);
    const second = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { selectedId: 'candidate-1' })] }));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(sentText(threadId)[0]?.parts).toEqual([{ text: 'Serverless' }]);
  });
});

describe('a question and a permission pending together', () => {
  it('never ends in success while an answer is still owed: what was not delivered is announced again', async () => {
    const threadId = uniqueId('thread');
    const first = interruptsOf((await stack.run(runBody({ threadId, text: 'question-and-permission' }))).sse);
    expect(first.map((interrupt) => interrupt.reason).sort()).toEqual(['input_required', 'tool_call']);
    const question = first.find((interrupt) => interrupt.reason === 'input_required')!;
    const permission = first.find((interrupt) => interrupt.reason === 'tool_call')!;
    // Both answered at once: the question goes as text; the permission is not lost.
    const both = await stack.run(runBody({ threadId, resume: [resolved(question.id, { selectedId: 'plan-a' }), resolved(permission.id, { decision: 'allow_once' })] }));
    expect(interruptsOf(both.sse).map((interrupt) => interrupt.id)).toEqual([permission.id]);
    const document = (await (stack.store as FileThreadStore).load(threadId))?.document as { execution: { pending: Array<{ id: string }> } };
    expect(document.execution.pending.map((item) => item.id)).toEqual([permission.id]);
    const last = await stack.run(runBody({ threadId, resume: [resolved(permission.id, { decision: 'allow_once' })] }));
    expect(lastEvent(last.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // The permission went through the sideband (SendMessage), after the question's text answer.
    const sideband = threadCalls(stack, threadId, 'SendMessage').map(
      (call) => (call.params as { message: { parts: Array<{ data: { inputId: string; decision: string } }> } }).message.parts[0]?.data,
    );
    expect(sideband).toEqual([expect.objectContaining({ inputId: permission.id, decision: 'allow_once' })]);
    expect(threadCalls(stack, threadId, 'SendStreamingMessage').map((call) => (call.params as { message: { parts: unknown[] } }).message.parts)).toContainEqual([
      { text: 'Plan A' },
    ]);
  });
});

/**
 * A pipeline run through real HTTP (docs/protocol.md §8.4, §8.6): steps balanced within every run,
 * durable steps reopened by the resume, the other candidate's work while waiting recovered from
 * `/iac-code/pipeline/state`, only one interrupt across both runs, and the task not cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent, resolved, threadCalls } from '../support/interrupts.js';
import type { SseRecord } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

function steps(sse: SseRecord, type: 'STEP_STARTED' | 'STEP_FINISHED'): string[] {
  return sse.events.filter((event) => event.type === type).map((event) => String(event['stepName']));
}

describe('a pipeline run with a sub-pipeline permission', () => {
  it('balances steps in each run, recovers the other candidate on resume, and completes', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'pipeline', iacCode: { runMode: 'pipeline' } }));
    expect(
      (threadCalls(stack, threadId, 'SendStreamingMessage')[0]?.params as { message: { metadata: { iac_code: { run_mode: string } } } }).message.metadata.iac_code.run_mode,
    ).toBe('pipeline');
    const interrupts = interruptsOf(first.sse);
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]?.metadata).toMatchObject({ scope: 'candidate', subPipelineId: 'candidate-0' });
    expect(steps(first.sse, 'STEP_STARTED').sort()).toEqual(steps(first.sse, 'STEP_FINISHED').sort());
    expect(steps(first.sse, 'STEP_STARTED')).toEqual(['evaluate_candidates', 'candidate:candidate-0:template_generating']);
    const customs = first.sse.events.filter((event) => event['name'] === 'iac-code.pipeline.v1').map((event) => (event['value'] as { eventType: string }).eventType);
    expect(customs).toEqual(['pipeline_started', 'candidate_started', 'candidate_started', 'stack_progress']);
    await assertValidAgUiStream(first.sse.events);
    const stored = (await (stack.store as FileThreadStore).load(threadId))?.document as {
      execution: { pipelineOpenSteps: string[]; pipelineSequence: number; pending: Array<{ sideband: boolean }> };
    };
    expect(stored.execution.pipelineOpenSteps).toEqual(['candidate:candidate-0:template_generating', 'step:evaluate_candidates']);
    expect(stored.execution.pending[0]?.sideband).toBe(true);
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);

    const second = await stack.run(runBody({ threadId, iacCode: { runMode: 'pipeline' }, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // The resume reopens the durable steps first, sorted by key.
    expect(second.sse.events.slice(1, 3).map((event) => `${event.type}:${String(event['stepName'])}`)).toEqual([
      'STEP_STARTED:candidate:candidate-0:template_generating',
      'STEP_STARTED:evaluate_candidates',
    ]);
    expect(steps(second.sse, 'STEP_STARTED').sort()).toEqual(steps(second.sse, 'STEP_FINISHED').sort());
    expect(second.sse.events.some((event) => event.type === 'ACTIVITY_SNAPSHOT')).toBe(true);
    const text = second.sse.events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT').map((event) => event['delta']);
    expect(text).toContain('Candidate B kept working while A waited.');
    expect(second.sse.events.some((event) => event.type === 'RUN_FINISHED' && (event['outcome'] as { type: string }).type === 'interrupt')).toBe(false);
    await assertValidAgUiStream(second.sse.events);
    const pipelineState = stack.emulator.calls
      .filter((call) => call.method === 'HTTP GET /iac-code/pipeline/state')
      .map((call) => (call.params as { afterSequence: string }).afterSequence);
    expect(pipelineState[0]).toBe(String(stored.execution.pipelineSequence));
    const after = (await (stack.store as FileThreadStore).load(threadId))?.document as { execution: { pipelineOpenSteps: string[] } };
    expect(after.execution.pipelineOpenSteps).toEqual([]);
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
    expect(threadCalls(stack, threadId, 'SendMessage')).toHaveLength(1);
  });
});

/**
 * Pipeline envelopes (docs/protocol.md §8; behaviours pinned by the peer's test_events).
 */
import { describe, expect, it } from 'vitest';
import { unwrapItem } from '../../lib/core/a2a/inbound.js';
import { type AguiEvent, eventFactory } from '../../lib/core/translate/events.js';
import { RunTranslator } from '../../lib/core/translate/run-translator.js';

function translator(seed: { pipelineSequence?: number; pipelineOpenSteps?: string[] } = {}) {
  let n = 0;
  return new RunTranslator({
    make: eventFactory(() => 1),
    runId: 'run-1',
    threadId: 't1',
    textDigests: [],
    pipelineSequence: seed.pipelineSequence ?? 0,
    pipelineOpenSteps: seed.pipelineOpenSteps ?? [],
    textChars: 0,
    newId: () => `id${++n}`,
  });
}

/** The step name of a STEP_* event, undefined for any other event. */
const stepNameOf = (event: AguiEvent) => ('stepName' in event ? event.stepName : undefined);

let sequence = 0;
function envelope(eventType: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1;
  return { eventId: `evt-${sequence}`, sequence, eventType, scope: 'pipeline', data: {}, ...fields };
}

function live(t: RunTranslator, ...envelopes: Array<Record<string, unknown>>) {
  return envelopes.flatMap((item) =>
    t.apply(unwrapItem({ statusUpdate: { taskId: 'task', status: { state: 'TASK_STATE_WORKING' }, metadata: { iac_code: { pipeline: item } } } })),
  );
}

const parentStep = { step: { id: 'evaluate_candidates', runId: 'sr-1' } };
const candidateStep = (candidate: string) => ({
  scope: 'candidate_step',
  candidate: { id: candidate, runId: `run-${candidate}` },
  candidateStep: { id: 'template_generating', runId: `cs-${candidate}` },
});

describe('pipeline envelopes', () => {
  it('emit no CUSTOM for standard signals and step lifecycle, but the standard events', () => {
    const t = translator();
    const events = live(
      t,
      envelope('message_started'),
      envelope('context_usage', { data: { totalTokens: 5 } }),
      envelope('tool_started', { data: { toolUseId: 'x', toolName: 'n', input: { b: 1 } } }),
      envelope('tool_result', { data: { toolUseId: 'x', toolName: 'n', isError: true, result: 'bad' } }),
      envelope('step_started', parentStep),
      envelope('step_completed', parentStep),
      envelope('permission_requested'),
      envelope('backup_committed'),
      envelope('usage', { data: { inputTokens: 3.0, outputTokens: 1, totalTokens: 4, provider: 'p', model: 'm' } }),
    );
    expect(events.map((event) => event.type)).toEqual(['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'STEP_STARTED', 'STEP_FINISHED']);
    expect(t.usage.list()).toEqual([{ provider: 'p', model: 'm', inputTokens: 3, outputTokens: 1, totalTokens: 4, cachedInputTokens: 0 }]);
  });

  it('emit one CUSTOM per allow-listed event with the whole envelope, in order; unknown types emit nothing', () => {
    const types = ['pipeline_started', 'pipeline_completed', 'candidate_started', 'candidate_detail_shown', 'stack_progress', 'pipeline_warning', 'candidate_step_failed'];
    const envelopes = types.map((type) => envelope(type));
    const events = live(translator(), ...envelopes, ...Array.from({ length: 500 }, () => envelope('pipeline_progress')));
    expect(events.filter((event) => event.type === 'CUSTOM').map((event) => (event['value'] as { eventType: string }).eventType)).toEqual(types);
    expect(events.find((event) => event.type === 'CUSTOM')?.['value']).toEqual(envelopes[0]);
    expect(events.every((event) => (event.type === 'CUSTOM' ? event['name'] === 'iac-code.pipeline.v1' : true))).toBe(true);
  });

  it('nest steps: a,b started and finished b,a', () => {
    const a = { step: { id: 'a' } };
    const b = { step: { id: 'b' } };
    const events = live(translator(), envelope('step_started', a), envelope('step_started', b), envelope('step_completed', b), envelope('step_completed', a));
    expect(events.map((event) => `${event.type}:${String(stepNameOf(event))}`)).toEqual(['STEP_STARTED:a', 'STEP_STARTED:b', 'STEP_FINISHED:b', 'STEP_FINISHED:a']);
  });

  it('close run-local steps in sorted-key order at run end, keep them durable, and reopen them on the next run', () => {
    const t = translator();
    live(t, envelope('step_started', parentStep), envelope('candidate_step_started', candidateStep('candidate-0')));
    const closing = t
      .closeSpans()
      .filter((event) => event.type === 'STEP_FINISHED')
      .map((event) => event['stepName']);
    expect(closing).toEqual(['candidate:candidate-0:template_generating', 'evaluate_candidates']);
    expect(t.closeSpans()).toEqual([]);
    const durable = t.durableState().pipelineOpenSteps;
    expect(durable).toEqual(['candidate:candidate-0:template_generating', 'step:evaluate_candidates']);
    const next = translator({ pipelineOpenSteps: durable, pipelineSequence: t.durableState().pipelineSequence });
    expect(next.reopenSteps().map((event) => stepNameOf(event))).toEqual(['candidate:candidate-0:template_generating', 'evaluate_candidates']);
    const finished = live(next, envelope('candidate_step_completed', candidateStep('candidate-0')));
    expect(finished.map((event) => `${event.type}:${String(stepNameOf(event))}`)).toEqual(['STEP_FINISHED:candidate:candidate-0:template_generating']);
    expect(next.closeSpans().map((event) => stepNameOf(event))).toEqual(['evaluate_candidates']);
    expect(next.durableState().pipelineOpenSteps).toEqual(['step:evaluate_candidates']);
  });

  it('name candidate steps per candidate and reopen a step on input_received', () => {
    const t = translator();
    const events = live(
      t,
      envelope('candidate_step_started', candidateStep('candidate-0')),
      envelope('candidate_step_started', candidateStep('candidate-1')),
      envelope('step_started', { step: { id: 's' } }),
      envelope('step_completed', { step: { id: 's' } }),
      envelope('input_received', { step: { id: 's' } }),
      envelope('step_completed', { step: { id: 's' } }),
    );
    expect(events.filter((event) => event.type === 'STEP_STARTED').map((event) => event['stepName'])).toEqual([
      'candidate:candidate-0:template_generating',
      'candidate:candidate-1:template_generating',
      's',
      's',
    ]);
    expect(events.filter((event) => event.type === 'STEP_FINISHED')).toHaveLength(2);
  });

  it('keep parallel candidate text and thinking in separate messages', () => {
    const events = live(
      translator(),
      envelope('text_delta', { ...candidateStep('a'), data: { text: '1' } }),
      envelope('text_delta', { ...candidateStep('b'), data: { text: '2' } }),
      envelope('text_delta', { ...candidateStep('a'), data: { text: '3' } }),
      envelope('text_delta', { ...candidateStep('b'), data: { text: '4' } }),
      envelope('thinking_delta', { ...candidateStep('a'), data: { type: 'raw_thinking', text: 't' } }),
      envelope('thinking_delta', { ...candidateStep('b'), data: { type: 'raw_thinking', text: 'u' } }),
    );
    const starts = events.filter((event) => event.type === 'TEXT_MESSAGE_START').map((event) => String(event['messageId']));
    expect(starts).toHaveLength(2);
    expect(starts[0]).toBe('pipeline-message:pipeline-t1:candidate_step:run-a:cs-a');
    expect(events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')).toHaveLength(4);
    expect(new Set(events.filter((event) => event.type === 'REASONING_START').map((event) => event['messageId'])).size).toBe(2);
    expect(events.some((event) => event.type === 'CUSTOM')).toBe(false);
  });

  it('de-duplicate a batch delivered twice (eventId and sequence)', () => {
    const t = translator();
    const batch = [envelope('step_started', { step: { id: 'x' } }), envelope('step_completed', { step: { id: 'x' } })];
    const item = () => unwrapItem({ statusUpdate: { taskId: 'task', status: { state: 'TASK_STATE_WORKING' }, metadata: { iac_code: { pipelineBatch: { events: batch } } } } });
    const first = t.apply(item());
    const second = t.apply(item());
    expect(first.filter((event) => event.type === 'STEP_FINISHED')).toHaveLength(1);
    expect(second).toEqual([]);
  });

  it('recover from pipeline state: one ACTIVITY_SNAPSHOT, gap events with an eventId applied below the cursor, cursor to lastSequence', () => {
    const t = translator({ pipelineSequence: 10, pipelineOpenSteps: ['step:candidate-b'] });
    t.reopenSteps();
    const events = t.recover({
      snapshot: { pipelineRunId: 'pr-1', lastSequence: 12 },
      events: [
        { eventId: 'gap-9', sequence: 9, eventType: 'step_completed', scope: 'step', step: { id: 'candidate-b' } },
        { eventId: 'gap-9', sequence: 9, eventType: 'step_completed', scope: 'step', step: { id: 'candidate-b' } },
        { sequence: 8, eventType: 'text_delta', scope: 'pipeline', data: { text: 'old, no id' } },
        { eventId: 'e-11', sequence: 11, eventType: 'text_delta', scope: 'pipeline', data: { text: 'new' } },
      ],
    });
    expect(events[0]).toMatchObject({
      type: 'ACTIVITY_SNAPSHOT',
      messageId: 'pipeline:pr-1',
      activityType: 'iac-code.pipeline.v1',
      replace: true,
      content: { schemaVersion: 1, pipelineRunId: 'pr-1', snapshot: { lastSequence: 12 } },
    });
    expect(events.filter((event) => event.type === 'STEP_FINISHED').map((event) => event['stepName'])).toEqual(['candidate-b']);
    expect(events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT').map((event) => event['delta'])).toEqual(['new']);
    expect(events.filter((event) => event.type === 'TEXT_MESSAGE_START')[0]?.['messageId']).toBe('pipeline-message:pr-1:pipeline');
    expect(t.durableState().pipelineSequence).toBe(12);
  });

  it('leave pipeline events of a snapshot mapped for pre-flight alone (cursor unchanged)', () => {
    const t = translator();
    const events = t.apply(
      unwrapItem({
        task: {
          id: 'task',
          status: { state: 'TASK_STATE_INPUT_REQUIRED' },
          metadata: { iac_code: { pipelineBatch: { events: [envelope('step_completed', { step: { id: 'z' } })] } } },
        },
      }),
      { statusText: false },
    );
    expect(events).toEqual([]);
    expect(t.durableState().pipelineSequence).toBe(0);
  });

  it('extract the session id from a pipeline batch', () => {
    const item = unwrapItem({ statusUpdate: { taskId: 't', metadata: { iac_code: { pipelineBatch: { events: [{ eventType: 'x', iacCodeSessionId: 'session-9' }] } } } } });
    expect(item.sessionId).toBe('session-9');
  });
});

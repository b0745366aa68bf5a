/**
 * The console's pipeline tree (lib/console/app/transcript/pipeline-model.ts) folded from the
 * events the adapter's own pipeline lane emits (lib/core/translate/pipeline) for the emulator's
 * kind of envelopes — in particular, a step closed only because its run ended is "paused", not
 * "completed" (docs/protocol.md §4, §8).
 */
import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../lib/console/app/transcript/event-fields.js';
import { PipelineModel } from '../../lib/console/app/transcript/pipeline-model.js';
import { eventFactory } from '../../lib/core/translate/events.js';
import { PipelineLane } from '../../lib/core/translate/pipeline/pipeline-lane.js';
import { ToolLane } from '../../lib/core/translate/tool-lane.js';
import { UsageLedger } from '../../lib/core/translate/usage.js';

const make = eventFactory(() => 0);
const parent = { id: 'evaluate', runId: 'step-run-1' };
const candidate = (index: number) => ({ id: `candidate-${index}`, runId: `cand-run-${index}`, name: index === 0 ? 'ECS' : 'Serverless' });
let sequence = 0;
const envelope = (eventType: string, fields: Record<string, unknown>) => ({ eventId: `e${++sequence}`, sequence, eventType, pipelineName: 'vpc', data: {}, ...fields });
const inCandidate = (index: number) => ({ scope: 'candidate_step', candidate: candidate(index), candidateStep: { id: 'generate', runId: `cs-${index}` }, step: parent });

function lane(openSteps: string[] = []): PipelineLane {
  return new PipelineLane(make, new ToolLane(make, () => 'id'), new UsageLedger(), { threadId: 't', cursor: sequence, openSteps });
}

function fold(model: PipelineModel, events: unknown[]): void {
  for (const event of events) model.apply(event as EventRecord);
}

describe('PipelineModel', () => {
  it('builds steps and candidates, pauses what a run closes at its end, and completes them in the next run', () => {
    const model = new PipelineModel();
    const first = lane();
    fold(model, [make('RUN_STARTED', { threadId: 't', runId: 'r1' })]);
    for (const item of [
      envelope('pipeline_started', { scope: 'pipeline' }),
      envelope('step_started', { scope: 'step', step: parent }),
      envelope('candidate_started', { scope: 'candidate', candidate: candidate(0), step: parent }),
      envelope('candidate_started', { scope: 'candidate', candidate: candidate(1), step: parent }),
      envelope('candidate_step_started', inCandidate(0)),
      envelope('text_delta', { ...inCandidate(0), data: { text: 'A drafted.' } }),
      envelope('stack_progress', { scope: 'stack', data: { stack: 'vpc-a', progress: 0.5 } }),
    ])
      fold(model, first.live(item));
    fold(model, [...first.closeSteps(), make('RUN_FINISHED', { threadId: 't', runId: 'r1' })]);
    model.markWaiting(['candidate-0']);

    const step = model.steps.get('evaluate');
    expect(model.name).toBe('vpc');
    expect(step?.state).toBe('paused');
    expect(step?.candidates.get('candidate-0')).toMatchObject({ name: 'ECS', runId: 'cand-run-0', state: 'waiting' });
    expect(step?.candidates.get('candidate-0')?.steps.get('generate')?.state).toBe('paused');
    expect(step?.candidates.get('candidate-1')?.state).toBe('running');
    expect(model.notes).toEqual(['stack progress: vpc-a 50%']);
    expect(model.candidateForMessage('pipeline-message:pipeline-t:candidate_step:cand-run-0:cs-0:step-run-1')?.id).toBe('candidate-0');

    const second = lane(first.openSteps());
    fold(model, [make('RUN_STARTED', { threadId: 't', runId: 'r2' }), ...second.reopenSteps()]);
    expect(step?.candidates.get('candidate-0')?.state).toBe('running');
    expect(step?.state).toBe('running');
    for (const item of [
      envelope('candidate_step_completed', inCandidate(0)),
      envelope('candidate_completed', { scope: 'candidate', candidate: candidate(0), step: parent }),
      envelope('candidate_completed', { scope: 'candidate', candidate: candidate(1), step: parent }),
      envelope('step_completed', { scope: 'step', step: parent }),
      envelope('pipeline_completed', { scope: 'pipeline' }),
    ])
      fold(model, second.live(item));
    fold(model, [...second.closeSteps(), make('RUN_FINISHED', { threadId: 't', runId: 'r2' })]);

    expect(model.status).toBe('completed');
    expect(step?.state).toBe('completed');
    expect(step?.candidates.get('candidate-0')?.steps.get('generate')?.state).toBe('completed');
    expect([...(step?.candidates.values() ?? [])].map((node) => node.state)).toEqual(['completed', 'completed']);
  });

  it('takes the pipeline name and status from a recovery snapshot', () => {
    const model = new PipelineModel();
    fold(model, lane().recover({ snapshot: { pipelineRunId: 'p-1', pipelineName: 'network', status: 'working', lastSequence: 3 }, events: [] }));
    expect(model).toMatchObject({ name: 'network', status: 'working', visible: true });
  });
});

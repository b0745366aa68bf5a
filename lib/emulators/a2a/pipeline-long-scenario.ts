/**
 * A pipeline that stays live long enough to be guided (docs/protocol.md §6.13): it opens a step,
 * then works for up to a minute, applying each guidance message as it arrives with a pipeline text
 * delta "Guidance applied: <text>." on the owning run's stream. The guidance text steers the
 * emulator: `finish…` applies it and completes the pipeline, `fail…` fails the task, `wait…` is held
 * unapplied until the task stops (a kernel busy in a long tool call).
 */
import { guidanceInbox } from './guidance-inbox.js';
import type { EnvelopeFields } from './pipeline-log.js';
import type { Scenario } from './scenarios.js';

const step = { id: 'generate_templates', runId: 'step-run-long-1', index: 0, total: 1, type: 'sequential' };

function inStep(data: Record<string, unknown> = {}): EnvelopeFields {
  return { scope: 'step', step, data };
}

const TICKS = 600;
const TICK_MS = 100;

export const pipelineLongScenario: Scenario = async (script) => {
  script.task('SUBMITTED');
  script.pipeline([['pipeline_started', { scope: 'pipeline', data: { candidates: 1 } }]]);
  script.pipeline([['step_started', { scope: 'step', step }]]);
  script.pipeline([['text_delta', inStep({ text: 'Generating templates. ' })]]);
  const inbox = guidanceInbox(script);
  for (let tick = 0; tick < TICKS; tick += 1) {
    const guidance = await inbox.next(TICK_MS);
    if (!guidance) continue;
    const word = /^[a-z]+/.exec(guidance.text.trim().toLowerCase())?.[0];
    if (word === 'wait') {
      guidance.hold();
      continue;
    }
    if (word === 'fail') {
      script.pipeline([['pipeline_error', { scope: 'pipeline', status: 'failed', data: { message: 'Guidance asked the pipeline to fail.' } }]]);
      script.errorStatus('The pipeline failed.', { retryable: false, errorId: 'err-guided-fail' });
      // The guidance learns the state it left the task in: FAILED, before the kernel closes the turn.
      guidance.applied();
      script.closeAfterError();
      return;
    }
    script.pipeline([['text_delta', inStep({ text: `Guidance applied: ${guidance.text}. ` })]]);
    guidance.applied();
    if (word === 'finish') break;
  }
  script.pipeline([['step_completed', { scope: 'step', step }]]);
  script.pipeline([['pipeline_completed', { scope: 'pipeline', status: 'completed', data: {} }]]);
  if (script.pipelineLog) script.pipelineLog.status = 'completed';
  script.text('Pipeline finished.');
  script.finish('INPUT_REQUIRED');
};

/**
 * A pipeline run with two candidates (docs/protocol.md §8.4, §8.6): a parent step, a candidate
 * step, parallel candidate text, thinking and tools, CUSTOM-worthy progress, then a sub-pipeline
 * permission for candidate 0 while candidate 1 keeps working unseen — its text reaches the adapter
 * only through `/iac-code/pipeline/state` on the resume.
 */

import { awaited, permissionInput } from './inputs.js';
import type { EnvelopeFields } from './pipeline-log.js';
import type { Scenario } from './scenarios.js';

const parent = { id: 'evaluate_candidates', runId: 'step-run-1', index: 0, total: 2, type: 'parallel' };
const candidate = (index: number) => ({ id: `candidate-${index}`, runId: `cand-run-${index}`, index, attempt: 1, name: index === 0 ? 'ECS' : 'Serverless' });
const candidateStep = (index: number) => ({ id: 'template_generating', runId: `cs-run-${index}`, attempt: 1 });

function inCandidate(index: number, data: Record<string, unknown> = {}): EnvelopeFields {
  return { scope: 'candidate_step', candidate: candidate(index), candidateStep: candidateStep(index), step: parent, data };
}

export const pipelineScenario: Scenario = async (script) => {
  script.task('SUBMITTED');
  script.pipeline([['pipeline_started', { scope: 'pipeline', data: { candidates: 2 } }]]);
  script.pipeline([['step_started', { scope: 'step', step: parent }]]);
  script.pipeline([
    ['candidate_started', { scope: 'candidate', candidate: candidate(0), step: parent }],
    ['candidate_started', { scope: 'candidate', candidate: candidate(1), step: parent }],
    ['candidate_step_started', inCandidate(0)],
  ]);
  script.pipeline([['text_delta', inCandidate(0, { text: 'Generating template A. ' })]]);
  script.pipeline([['text_delta', inCandidate(1, { text: 'Generating template B. ' })]]);
  script.pipeline([['thinking_delta', inCandidate(0, { type: 'raw_thinking', text: 'ECS needs an SLB.' })]]);
  script.pipeline([['text_delta', inCandidate(0, { text: 'Template A drafted.' })]]);
  script.pipeline([['tool_started', inCandidate(1, { toolName: 'validate_template', toolUseId: 'toolu-validate-1', input: { template: 'b.yaml' } })]]);
  script.pipeline([['tool_result', inCandidate(1, { toolName: 'validate_template', toolUseId: 'toolu-validate-1', isError: false, result: { valid: true } })]]);
  script.pipeline([
    ['stack_progress', { scope: 'stack', data: { stack: 'vpc-a', progress: 0.5 } }],
    ['pipeline_progress', { scope: 'pipeline', data: { unknown: true } }],
  ]);
  // Candidate 0 needs a permission; the task keeps WORKING (a sub-pipeline permission).
  const input = permissionInput(script, {
    toolUseId: 'toolu-deploy-0',
    toolName: 'deploy_stack',
    title: 'Deploy stack A.',
    target: 'vpc-a',
    sideband: { subPipelineId: 'candidate-0' },
  });
  script.exposed = { pendingPermissions: [input] };
  script.pipeline([['permission_requested', { ...inCandidate(0, { inputId: input['inputId'] }), status: 'input_required' }]], { extra: { pendingPermissions: [input] } });
  // While the adapter is away, candidate 1 goes on; only the pipeline log sees it.
  script.pipeline(
    [
      ['text_delta', inCandidate(1, { text: 'Candidate B kept working while A waited.' })],
      ['candidate_step_completed', inCandidate(1)],
    ],
    { quiet: true },
  );
  const answer = await script.awaitAnswer(awaited(input, true));
  script.exposed = {};
  const decision = answer.kind === 'permission' ? answer.decision : 'deny';
  script.pipeline([['input_received', inCandidate(0, { inputId: input['inputId'], decision })]], {
    extra: { inputReceived: { kind: 'permission', inputId: input['inputId'], toolUseId: 'toolu-deploy-0', decision } },
  });
  script.pipeline([
    ['candidate_step_completed', inCandidate(0)],
    ['candidate_completed', { scope: 'candidate', candidate: candidate(0), step: parent }],
    ['candidate_completed', { scope: 'candidate', candidate: candidate(1), step: parent }],
  ]);
  script.pipeline([['step_completed', { scope: 'step', step: parent }]]);
  script.pipeline([['pipeline_completed', { scope: 'pipeline', status: 'completed', data: { selected: 'candidate-0' } }]]);
  if (script.pipelineLog) script.pipelineLog.status = 'completed';
  script.text(`Pipeline finished (${decision}).`);
  script.finish('INPUT_REQUIRED');
};

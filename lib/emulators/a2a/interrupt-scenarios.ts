/**
 * Scenarios that stop for a permission, a question or an option choice (docs/protocol.md §5.1, §5.3).
 * Each parks on its input and continues when the adapter's answer arrives.
 */
import type { EmulatorControls } from './executor.js';
import { awaited, candidateSelectionInput, permissionInput, questionInput } from './inputs.js';
import { pipelineScenario } from './pipeline-scenario.js';
import type { Scenario } from './scenarios.js';
import type { Json, ReceivedAnswer, TaskScript } from './task-script.js';

async function words(script: TaskScript, sentence: string): Promise<void> {
  for (const word of sentence.split(/(?<= )/)) {
    script.text(word);
    await script.pause(3);
  }
}

const SHELL = 'run_shell';

/**
 * Asks for one permission as v0.13.1 does (test/fixtures/kernel-streams/permission-*.json): the
 * tool's call streamed (a length per input delta, an input summary), usage, then INPUT_REQUIRED with
 * the input and `permission {pending}`. The answer's own stream carries the two acknowledgements
 * (the first without the session id) and, for a deny, the failed tool; then it ends while the task
 * works on (runTool).
 */
async function askPermission(script: TaskScript, toolUseId: string, target: string): Promise<ReceivedAnswer> {
  script.status('WORKING', { tool: { status: 'started', toolUseId, name: SHELL } });
  for (const partialJsonLength of [16, 33]) script.status('WORKING', { tool: { status: 'input_delta', toolUseId, partialJsonLength } });
  script.status('WORKING', { tool: { status: 'input_complete', toolUseId, name: SHELL, inputSummary: { tool_name: SHELL, fields: { command: { type: 'str' } } } } });
  script.usage();
  const input = permissionInput(script, { toolUseId, toolName: SHELL, title: 'Run a local shell command.', target });
  script.exposed = { input };
  script.status('INPUT_REQUIRED', { input, permission: { autoApproved: false, pending: true, toolName: SHELL, toolUseId } });
  const answer = await script.awaitAnswer(awaited(input));
  script.exposed = {};
  const acknowledged = { kind: 'permission', inputId: input['inputId'], toolUseId };
  script.status('WORKING', { inputReceived: { ...acknowledged, decision: answer.kind === 'permission' ? answer.decision : 'deny' } }, undefined, false);
  script.status('WORKING', { inputReceived: acknowledged });
  return answer;
}

function allowed(answer: ReceivedAnswer): boolean {
  return answer.kind === 'permission' && answer.decision === 'allow_once';
}

/**
 * After the acknowledgements: a denied tool fails on the answer's stream; the stream then ends while
 * the task works on, and the rest reaches the reader that follows the task (SubscribeToTask) — which
 * the scenario waits for (bounded), except for the first words after a deny: the kernel's model
 * answers before any reader attached, and only the task's history keeps them (docs/protocol.md §5.6).
 */
async function runTool(script: TaskScript, followMs: number, toolUseId: string, answer: ReceivedAnswer, output: string): Promise<void> {
  if (allowed(answer)) {
    script.detach();
    // The tool finishes before the reader follows: only the task's metadata shows it by then.
    script.status('WORKING', { tool: { status: 'completed', toolUseId, name: SHELL, result: output } });
    await script.untilFollowed(followMs);
    await words(script, 'The command finished. ');
  } else {
    script.status('WORKING', { tool: { status: 'failed', toolUseId, name: SHELL, result: 'Permission denied.' } });
    script.detach();
    script.text('Permission denied; ');
    await script.untilFollowed(followMs);
    await words(script, 'the command was skipped. ');
  }
  script.usage();
}

/** Two sub-pipeline permissions open at once, listed in `pendingPermissions` (sideband). */
const twoPermissions: Scenario = async (script) => {
  script.task('SUBMITTED');
  await words(script, 'Two candidates need approval. ');
  const first = permissionInput(script, { toolUseId: 'toolu-a', toolName: 'deploy_stack', title: 'Deploy stack A.', target: 'vpc-a', sideband: { subPipelineId: 'sub-a' } });
  const second = permissionInput(script, { toolUseId: 'toolu-b', toolName: 'deploy_stack', title: 'Deploy stack B.', target: 'vpc-b', sideband: { subPipelineId: 'sub-b' } });
  script.exposed = { input: first, pendingPermissions: [first, second] };
  script.status('INPUT_REQUIRED', { input: first, pendingPermissions: [first, second] });
  const decisions: string[] = [];
  for (const input of [first, second]) {
    const answer = await script.awaitAnswer(awaited(input, true));
    decisions.push(answer.kind === 'permission' ? answer.decision : 'none');
    const rest = (script.exposed['pendingPermissions'] as Json[]).filter((item) => item['inputId'] !== input['inputId']);
    script.exposed = rest.length > 0 ? { input: rest[0], pendingPermissions: rest } : {};
  }
  script.status('WORKING', { iacCodeSessionId: script.sessionId });
  await words(script, `Decisions: ${decisions.join(', ')}. `);
  script.finish('INPUT_REQUIRED');
};

/** A sub-pipeline permission while the task keeps WORKING (docs/protocol.md §5.1). */
const subPipelinePermission: Scenario = async (script) => {
  script.task('SUBMITTED');
  await words(script, 'Candidate A is deploying. ');
  const input = permissionInput(script, { toolUseId: 'toolu-sub-1', toolName: 'deploy_stack', title: 'Deploy stack A.', target: 'vpc-a', sideband: { subPipelineId: 'sub-a' } });
  script.exposed = { pendingPermissions: [input] };
  script.status('WORKING', { pendingPermissions: [input] });
  const answer = await script.awaitAnswer(awaited(input, true));
  script.exposed = {};
  script.status('WORKING', {
    inputReceived: { kind: 'permission', inputId: input['inputId'], toolUseId: 'toolu-sub-1', decision: answer.kind === 'permission' ? answer.decision : 'deny' },
  });
  await words(script, allowed(answer) ? 'Stack A deployed. ' : 'Stack A skipped. ');
  script.finish('INPUT_REQUIRED');
};

const question: Scenario = async (script) => {
  script.task('SUBMITTED');
  await words(script, 'Before I start, one question. ');
  script.status('WORKING', { tool: { status: 'started', toolUseId: 'toolu-q-1', name: 'ask_user_question' } });
  script.status('WORKING', { tool: { status: 'input_complete', toolUseId: 'toolu-q-1', name: 'ask_user_question', toolInput: { question: 'Which network plan?' } } });
  const input = questionInput(script, 'toolu-q-1');
  script.exposed = { input };
  script.status('INPUT_REQUIRED', { input });
  const answer = await script.awaitAnswer(awaited(input));
  script.exposed = {};
  script.status('WORKING', { inputReceived: { kind: 'ask_user_question', inputId: input['inputId'], toolUseId: 'toolu-q-1' } });
  await words(script, `You chose: ${answer.kind === 'text' ? answer.text : '?'}. `);
  script.finish('INPUT_REQUIRED');
};

/** A question and a sub-pipeline permission open at the same time. */
const questionAndPermission: Scenario = async (script) => {
  script.task('SUBMITTED');
  const question = questionInput(script, 'toolu-q-2');
  const permission = permissionInput(script, {
    toolUseId: 'toolu-deploy-9',
    toolName: 'deploy_stack',
    title: 'Deploy stack Q.',
    target: 'vpc-q',
    sideband: { subPipelineId: 'sub-q' },
  });
  script.exposed = { input: question, pendingPermissions: [permission] };
  script.status('INPUT_REQUIRED', { input: question, pendingPermissions: [permission] });
  const chosen = await script.awaitAnswer(awaited(question));
  script.exposed = { pendingPermissions: [permission] };
  script.status('WORKING', { inputReceived: { kind: 'ask_user_question', inputId: question['inputId'], toolUseId: 'toolu-q-2' } });
  await words(script, `Plan noted: ${chosen.kind === 'text' ? chosen.text : '?'}. `);
  script.status('INPUT_REQUIRED', { pendingPermissions: [permission] });
  const decision = await script.awaitAnswer(awaited(permission, true));
  script.exposed = {};
  await words(script, `Deployment ${decision.kind === 'permission' ? decision.decision : '?'}. `);
  script.finish('INPUT_REQUIRED');
};

const candidates: Scenario = async (script) => {
  script.task('SUBMITTED');
  await words(script, 'Two architectures fit. ');
  const input = candidateSelectionInput(script);
  script.exposed = { input };
  script.status('INPUT_REQUIRED', { input });
  const answer = await script.awaitAnswer(awaited(input));
  script.exposed = {};
  await words(script, `Generating ${answer.kind === 'text' ? answer.text : '?'}. `);
  script.finish('INPUT_REQUIRED');
};

export function interruptScenarios(controls: EmulatorControls): Record<string, Scenario> {
  const followMs = (): number => controls.watch.timeoutMs;

  const permission: Scenario = async (script) => {
    script.task('SUBMITTED');
    await words(script, 'I need to run a command. ');
    const answer = await askPermission(script, 'toolu-shell-1', 'terraform plan');
    await runTool(script, followMs(), 'toolu-shell-1', answer, 'Plan: 1 to add.');
    script.finish('INPUT_REQUIRED');
  };

  /** After the answer the task keeps working for a minute (a disconnect then abandons it). */
  const permissionThenLong: Scenario = async (script) => {
    script.task('SUBMITTED');
    const answer = await askPermission(script, 'toolu-shell-1', 'terraform apply');
    await runTool(script, followMs(), 'toolu-shell-1', answer, 'Applying…');
    for (let i = 1; i <= 600; i += 1) {
      script.text(`apply step ${i}. `);
      await script.pause(100);
    }
    script.finish('INPUT_REQUIRED');
  };

  /** A new permission raised right after the first answer (docs/protocol.md §5.9). */
  const permissionChain: Scenario = async (script) => {
    script.task('SUBMITTED');
    await words(script, 'Two commands need approval. ');
    const first = await askPermission(script, 'toolu-shell-1', 'terraform init');
    await runTool(script, followMs(), 'toolu-shell-1', first, 'Initialised.');
    const second = await askPermission(script, 'toolu-shell-2', 'terraform apply');
    await runTool(script, followMs(), 'toolu-shell-2', second, 'Apply complete.');
    script.finish('INPUT_REQUIRED');
  };

  /** The kernel loses the session while the permission waits (ensure-restored answers missing). */
  const sessionMissing: Scenario = async (script, input) => {
    const parked = script.nextPark().then(() => controls.sessions.set(script.sessionId, 'missing'));
    void parked;
    await permission(script, input);
  };
  return {
    permission,
    'permission-chain': permissionChain,
    'permission-long': permissionThenLong,
    'two-permissions': twoPermissions,
    'subpipeline-permission': subPipelinePermission,
    question,
    candidates,
    'question-and-permission': questionAndPermission,
    pipeline: pipelineScenario,
    'session-missing': sessionMissing,
  };
}

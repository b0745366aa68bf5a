/**
 * `explore <plan>`: a turn played from a plan the caller wrote as JSON after the word — the reattach
 * explorer's kernel (test/reattach-explorer, issue 26). The plan mixes, in any order, streamed text,
 * reasoning, tool calls (argument deltas, progress, a result or a failure), artifacts, usage,
 * pauses, a question that parks the task until it is answered (interrupt → answer → resume in one
 * execution), a failure (its reason may quote the request's secrets back, as a provider refusing a
 * key does), and long answers generated on the fly (past the adapter's journal cap). The plan may
 * also pick how the task keeps its text in its history (`perDelta`, the kernel's way, or `growing`:
 * one message per messageId, its text growing in place; TaskScript.historyMode).
 *
 * What the adapter's readers should reassemble is computed from the same plan (`expectedTurns`), so
 * the explorer's oracle knows the truth without reading the kernel.
 */
import { awaited, questionInput } from './inputs.js';
import type { Scenario } from './scenarios.js';
import type { HistoryMode, Json, TaskScript } from './task-script.js';

export const EXPLORE_SCENARIO = 'explore';

export type ExploreStep =
  /** Text deltas, `pace` apart. */
  | { kind: 'text'; deltas: string[] }
  /** Reasoning fragments (raw thinking), `pace` apart. */
  | { kind: 'reasoning'; parts: string[] }
  /** A tool call: started, `args` input deltas, its input, optionally progress, then completed or failed. */
  | { kind: 'tool'; id: string; name: string; args: number; progress: boolean; outcome: 'completed' | 'failed' }
  | { kind: 'artifact'; id: string }
  | { kind: 'usage' }
  | { kind: 'pause'; ms: number }
  /** A question: the task parks on it (the run ends with an interrupt); the answer's run plays the rest. */
  | { kind: 'ask'; id: string }
  /** The turn fails (FAILED with the reason, then closed); `quoteSecrets`: the reason repeats the request's key, header and secret. */
  | { kind: 'fail'; reason: string; quoteSecrets: boolean }
  /** A long answer: `bytes` of generated text in deltas of `chunk` characters, `every` deltas per pause. */
  | { kind: 'long'; bytes: number; chunk: number; every: number };

export interface ExplorePlan {
  /** Milliseconds between deltas. */
  pace: number;
  history?: HistoryMode;
  steps: ExploreStep[];
  /** The state the turn ends in (default INPUT_REQUIRED, as the kernel's turns do). */
  end?: 'INPUT_REQUIRED' | 'COMPLETED';
}

/** What one run of the plan should show a reader: the agent text, and how the run ends. */
export interface ExpectedTurn {
  text: string;
  end: 'success' | 'interrupt' | 'failed';
}

export function exploreMessage(plan: ExplorePlan): string {
  return `${EXPLORE_SCENARIO} ${JSON.stringify(plan)}`;
}

/** The text of a `long` step: numbered, so a piece missing or repeated shows where. */
export function longDeltas(step: Extract<ExploreStep, { kind: 'long' }>): string[] {
  const deltas: string[] = [];
  for (let made = 0, index = 0; made < step.bytes; index += 1) {
    const head = `<${index}>`;
    const size = Math.min(step.chunk, step.bytes - made);
    const delta = (head + 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil(size / 26))).slice(0, Math.max(size, head.length));
    deltas.push(delta);
    made += delta.length;
  }
  return deltas;
}

/** The runs the plan makes — one, plus one per question answered — each with its text and its end. */
export function expectedTurns(plan: ExplorePlan): ExpectedTurn[] {
  const turns: ExpectedTurn[] = [];
  let text = '';
  for (const step of plan.steps) {
    if (step.kind === 'text') text += step.deltas.join('');
    if (step.kind === 'long') text += longDeltas(step).join('');
    if (step.kind === 'ask') {
      turns.push({ text, end: 'interrupt' });
      text = '';
    }
    if (step.kind === 'fail') {
      turns.push({ text, end: 'failed' });
      return turns;
    }
  }
  turns.push({ text, end: 'success' });
  return turns;
}

/** The reason a `fail` step reports, with the request's secrets when it quotes them (as the adapter received them in metadata.iac_code). */
function failureReason(step: Extract<ExploreStep, { kind: 'fail' }>, iacCode: Json): string {
  if (!step.quoteSecrets) return step.reason;
  const headers = Object.values((iacCode['llm_headers'] as Record<string, string> | undefined) ?? {}).join(' ');
  return `${step.reason}: Incorrect API key provided: ${String(iacCode['iac_code_api_key'] ?? '')} (headers ${headers}; access key ${String(iacCode['alibaba_cloud_access_key_secret'] ?? '')}; token ${String(iacCode['alibaba_cloud_security_token'] ?? '')})`;
}

/** A final answer longer than this is not repeated (@a2a-js/sdk's client refuses an SSE event over 4 MiB, docs/protocol.md §7.1). */
const MAX_FINAL_CHARS = 1024 * 1024;

async function play(script: TaskScript, plan: ExplorePlan, iacCode: Json): Promise<void> {
  let said = 0;
  for (const step of plan.steps) {
    if (step.kind === 'text') said += step.deltas.join('').length;
    if (step.kind === 'long') said += step.bytes;
    switch (step.kind) {
      case 'text':
        for (const delta of step.deltas) {
          script.text(delta);
          await script.pause(plan.pace);
        }
        break;
      case 'reasoning':
        for (const text of step.parts) {
          script.status('WORKING', { thinking: { type: 'raw_thinking', text } });
          await script.pause(plan.pace);
        }
        break;
      case 'tool': {
        const tool = { toolUseId: step.id, name: step.name };
        script.status('WORKING', { tool: { status: 'started', ...tool } });
        for (let index = 1; index <= step.args; index += 1) {
          script.status('WORKING', { tool: { status: 'input_delta', toolUseId: step.id, partialJsonLength: index * 7 } });
          await script.pause(plan.pace);
        }
        script.status('WORKING', { tool: { status: 'input_complete', ...tool, toolInput: { path: `${step.id}.tf` } } });
        if (step.progress) {
          script.status('WORKING', {
            tool: { status: 'progress', ...tool, mcp: { serverName: 'fs', toolName: step.name, progress: 1, total: 2, message: 'working' }, mcpProgress: 0.5 },
          });
          await script.pause(plan.pace);
        }
        script.status('WORKING', { tool: { status: step.outcome, ...tool, result: step.outcome === 'completed' ? `result of ${step.id}` : { error: `${step.id} failed` } } });
        await script.pause(plan.pace);
        break;
      }
      case 'artifact': {
        const metadata = { uri: `file:///workspace/${step.id}.yaml`, mediaType: 'application/yaml', byteSize: 42, sha256: 'b'.repeat(64) };
        script.artifact({
          artifactId: step.id,
          name: `${step.id}.yaml`,
          parts: [{ url: metadata.uri, filename: `${step.id}.yaml`, mediaType: 'application/yaml', metadata }],
          metadata: { ...metadata, sourcePath: `${step.id}.yaml` },
        });
        await script.pause(plan.pace);
        break;
      }
      case 'usage':
        script.usage();
        break;
      case 'pause':
        await script.pause(step.ms);
        break;
      case 'ask': {
        script.status('WORKING', { tool: { status: 'started', toolUseId: step.id, name: 'ask_user_question' } });
        script.status('WORKING', { tool: { status: 'input_complete', toolUseId: step.id, name: 'ask_user_question', toolInput: { question: 'Which plan?' } } });
        const input = questionInput(script, step.id);
        script.exposed = { input };
        script.status('INPUT_REQUIRED', { input });
        await script.awaitAnswer(awaited(input));
        script.exposed = {};
        script.status('WORKING', { inputReceived: { kind: 'ask_user_question', inputId: input['inputId'], toolUseId: step.id } });
        break;
      }
      case 'fail':
        script.reportError(failureReason(step, iacCode), { retryable: false, errorId: 'explore-failure-1' });
        return;
      case 'long': {
        let sent = 0;
        for (const delta of longDeltas(step)) {
          script.text(delta);
          sent += 1;
          if (sent % step.every === 0) await script.pause(plan.pace);
        }
        break;
      }
    }
  }
  script.usage();
  if (said > MAX_FINAL_CHARS) script.finish(plan.end ?? 'INPUT_REQUIRED', '');
  else script.finish(plan.end ?? 'INPUT_REQUIRED');
}

export const exploreScenario: Scenario = async (script, input) => {
  const plan = JSON.parse(input.text.trim().slice(EXPLORE_SCENARIO.length)) as ExplorePlan;
  if (plan.history) script.historyMode = plan.history;
  script.task('SUBMITTED');
  await play(script, plan, input.iacCode);
};

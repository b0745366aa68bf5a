/**
 * The emulator's documented scenarios (README "Emulator scenarios"). A scenario is chosen by the
 * first word of the user's message, or programmatically by tests. Each plays one turn of an
 * iac-code task through a TaskScript.
 */
import type { Json, TaskScript } from './task-script.js';

export interface ScenarioInput {
  /** The user's text (all text parts joined). */
  text: string;
  /** The `metadata.iac_code` the adapter sent. */
  iacCode: Json;
  /** Milliseconds the `silence` scenario stays quiet. */
  silenceMs: number;
}

export type Scenario = (script: TaskScript, input: ScenarioInput) => Promise<void>;

const USAGE = { inputTokens: 1200, outputTokens: 340, totalTokens: 1540, cachedInputTokens: 200, provider: 'dashscope', model: 'qwen3-max' };

async function streamWords(script: TaskScript, sentence: string): Promise<void> {
  for (const word of sentence.split(/(?<= )/)) {
    script.text(word);
    await script.pause(5);
  }
}

/** Characters of the user's text the greeting repeats: a kernel's answer does not echo megabytes of input. */
const ECHO_CHARS = 1_000;

function echoOf(text: string): string {
  return text.length <= ECHO_CHARS ? text : `${text.slice(0, ECHO_CHARS)}… (${text.length} characters)`;
}

const normal: Scenario = async (script, input) => {
  script.task('SUBMITTED');
  script.status('WORKING');
  await streamWords(script, `Hello from the iac-code emulator. You said: ${echoOf(input.text)}`);
  script.status('WORKING', { usage: USAGE });
  script.finish('INPUT_REQUIRED');
};

const tools: Scenario = async (script) => {
  script.task('SUBMITTED');
  await streamWords(script, 'Let me read the template first. ');
  script.status('WORKING', { tool: { status: 'started', toolUseId: 'toolu-read-1', name: 'read_file' } });
  script.status('WORKING', { tool: { status: 'input_delta', toolUseId: 'toolu-read-1', name: 'read_file', delta: '{"pa' } });
  script.status('WORKING', { tool: { status: 'input_complete', toolUseId: 'toolu-read-1', name: 'read_file', toolInput: { path: 'main.tf', limit: 200 } } });
  script.status('WORKING', {
    tool: {
      status: 'progress',
      toolUseId: 'toolu-read-1',
      name: 'read_file',
      mcp: { serverName: 'fs', toolName: 'read_file', progress: 1, total: 2, message: 'reading' },
      mcpProgress: 0.5,
    },
  });
  script.status('WORKING', { tool: { status: 'completed', toolUseId: 'toolu-read-1', name: 'read_file', result: 'resource "alicloud_vpc" "main" {}' } });
  script.status('WORKING', { tool: { status: 'started', toolUseId: 'toolu-lint-1', name: 'lint_template' } });
  script.status('WORKING', { tool: { status: 'input_complete', toolUseId: 'toolu-lint-1', name: 'lint_template', inputSummary: 'lint main.tf' } });
  script.status('WORKING', { tool: { status: 'failed', toolUseId: 'toolu-lint-1', name: 'lint_template', result: { error: 'lint failed', line: 3 } } });
  await streamWords(script, 'The template has one VPC.');
  script.status('WORKING', { usage: USAGE });
  script.finish('INPUT_REQUIRED');
};

const thinking: Scenario = async (script) => {
  script.task('SUBMITTED');
  script.status('WORKING', { thinking: { type: 'raw_thinking', text: 'The user wants a VPC. ' } });
  script.status('WORKING', { thinking: { type: 'summary', text: 'ignored: only raw thinking is exposed' } });
  script.status('WORKING', { thinking: { type: 'raw_thinking', text: 'A /16 CIDR is a safe default.' } });
  await streamWords(script, 'I will create a VPC with a /16 CIDR block.');
  script.finish('INPUT_REQUIRED');
};

const artifact: Scenario = async (script) => {
  script.task('SUBMITTED');
  await streamWords(script, 'Here is the template. ');
  const metadata = { uri: 'file:///workspace/template.yaml', mediaType: 'application/yaml', byteSize: 42, sha256: 'a'.repeat(64) };
  script.artifact({
    artifactId: 'artifact-template-1',
    name: 'template.yaml',
    parts: [{ url: 'file:///workspace/template.yaml', filename: 'template.yaml', mediaType: 'application/yaml', metadata }],
    metadata: { ...metadata, sourcePath: 'template.yaml' },
  });
  script.finish('INPUT_REQUIRED');
};

const complete: Scenario = async (script) => {
  script.task('SUBMITTED');
  await streamWords(script, 'All done; the task is complete.');
  script.finish('COMPLETED');
};

const retryableError: Scenario = async (script) => {
  script.task('SUBMITTED');
  script.status('WORKING');
  script.finish('INPUT_REQUIRED', { error: { retryable: true, errorId: 'err-retry-1' } }, 'A temporary error occurred. Please try again.');
};

const fatalError: Scenario = async (script) => {
  script.task('SUBMITTED');
  await streamWords(script, 'Starting. ');
  script.finish('FAILED', { error: { retryable: false, errorId: 'err-fatal-1' } }, 'The model provider rejected the request.');
};

const silence: Scenario = async (script, input) => {
  script.task('SUBMITTED');
  script.text('Thinking quietly… ');
  await script.pause(input.silenceMs);
  script.text('done.');
  script.finish('INPUT_REQUIRED');
};

/** Keeps working until cancelled (for CancelTask and disconnect checks). */
const longRunning: Scenario = async (script) => {
  script.task('SUBMITTED');
  for (let i = 1; i <= 600; i += 1) {
    script.text(`step ${i}. `);
    await script.pause(100);
  }
  script.finish('INPUT_REQUIRED');
};

/** A minute-long turn's shape in 1.5 s: 60 numbered deltas 25 ms apart, then the turn ends (reattach tests, docs/protocol.md §6.15). */
const steps: Scenario = async (script) => {
  script.task('SUBMITTED');
  for (let i = 1; i <= 60; i += 1) {
    script.text(`step ${i}. `);
    await script.pause(25);
  }
  script.finish('INPUT_REQUIRED');
};

/** The stream ends while the task is still WORKING (the adapter must fail the run). */
const workingEnd: Scenario = async (script) => {
  script.task('WORKING');
  script.text('Started but never finished.');
};

/** The session id appears only at the end (session event just before the closing events). */
const lateSession: Scenario = async (script) => {
  script.task('SUBMITTED', { iacCodeSessionId: '' });
  script.status('WORKING', { iacCodeSessionId: '' }, { messageId: `${script.taskId}-message`, text: 'Session comes last.' });
  script.finish('INPUT_REQUIRED', {}, '');
};

export const SCENARIOS: Record<string, Scenario> = {
  hello: normal,
  tools,
  thinking,
  artifact,
  complete,
  'retryable-error': retryableError,
  'fatal-error': fatalError,
  silence,
  long: longRunning,
  steps,
  'working-end': workingEnd,
  'late-session': lateSession,
};

export const DEFAULT_SCENARIO = 'hello';

/** The scenario named by the first word of the message, else the default one. */
export function scenarioNameFor(text: string, known: ReadonlySet<string>): string {
  const first = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return known.has(first) ? first : DEFAULT_SCENARIO;
}

/**
 * The emulator's documented scenarios (README "Emulator scenarios"). A scenario is chosen by the
 * first word of the user's message, or programmatically by tests. Each plays one turn of an
 * iac-code task through a TaskScript.
 */
import { type Json, KERNEL_USAGE, type TaskScript } from './task-script.js';

export interface ScenarioInput {
  /** The user's text (all text parts joined). */
  text: string;
  /** The `metadata.iac_code` the adapter sent. */
  iacCode: Json;
  /** Milliseconds the `silence` scenario stays quiet. */
  silenceMs: number;
}

export type Scenario = (script: TaskScript, input: ScenarioInput) => Promise<void>;

/** Usage as the contract allows newer kernels to report it (cached tokens, provider, model); v0.13.1 reports KERNEL_USAGE. */
const USAGE = { ...KERNEL_USAGE, cachedInputTokens: 200, provider: 'dashscope', model: 'qwen3-max' };

/** What `fatal-error` reports when the message names no reason of its own: a provider outage, in the kernel's words. */
export const DEFAULT_FAILURE_REASON = "InternalServerError: Error code: 500 - {'error': {'message': 'model provider outage', 'type': 'server_error'}}";

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
  await streamWords(script, `Hello from the iac-code emulator. You said: ${echoOf(input.text)}`);
  script.usage();
  script.finish('INPUT_REQUIRED');
};

/**
 * One read-only tool exactly as v0.13.1 reports it (test/fixtures/kernel-streams/tool.json): a
 * length for each input delta, an input summary (field names and types, no values), the result.
 */
const read: Scenario = async (script) => {
  script.task('SUBMITTED');
  await streamWords(script, 'Let me check. ');
  const tool = { toolUseId: 'toolu-read-2', name: 'read_file' };
  script.status('WORKING', { tool: { status: 'started', ...tool } });
  for (const partialJsonLength of [10, 21]) script.status('WORKING', { tool: { status: 'input_delta', toolUseId: tool.toolUseId, partialJsonLength } });
  script.status('WORKING', { tool: { status: 'input_complete', ...tool, inputSummary: { tool_name: tool.name, fields: { path: { type: 'str' } } } } });
  script.usage();
  script.status('WORKING', { tool: { status: 'completed', ...tool, result: '# demo workspace' } });
  await streamWords(script, 'Done: the tool answered. ');
  script.usage();
  script.finish('INPUT_REQUIRED');
};

const tools: Scenario = async (script) => {
  script.task('SUBMITTED');
  await streamWords(script, 'Let me read the template first. ');
  script.status('WORKING', { tool: { status: 'started', toolUseId: 'toolu-read-1', name: 'read_file' } });
  script.status('WORKING', { tool: { status: 'input_delta', toolUseId: 'toolu-read-1', partialJsonLength: 4 } });
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
  script.usage(USAGE);
  script.finish('INPUT_REQUIRED');
};

const thinking: Scenario = async (script) => {
  script.task('SUBMITTED');
  script.status('WORKING', { thinking: { type: 'raw_thinking', text: 'The user wants a VPC. ' } });
  script.status('WORKING', { thinking: { type: 'raw_thinking', text: 'A /16 CIDR is a safe default.' } });
  await streamWords(script, 'I will create a VPC with a /16 CIDR block.');
  script.usage();
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
  script.reportError('A temporary error occurred. Please retry.', { retryable: true, errorId: 'err-retry-1' });
};

/**
 * The model provider fails the turn (test/fixtures/kernel-streams/provider-*.json): FAILED with the
 * reason — the words after `fatal-error`, else DEFAULT_FAILURE_REASON — and an error id, then the
 * turn closes. Unlike the real kernel, the emulator quotes the reason as given, secrets included, so
 * the adapter's own redaction can be shown (docs/protocol.md §2.4).
 */
const fatalError: Scenario = async (script, input) => {
  script.task('SUBMITTED');
  const reason = input.text.trim().split(/\s+/).slice(1).join(' ');
  script.reportError(reason || DEFAULT_FAILURE_REASON, { retryable: false, errorId: '3e7c17ff7f29' });
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

/**
 * A minute-long turn's shape in 1.5 s: 60 numbered deltas 25 ms apart, then the turn ends (reattach
 * tests, docs/protocol.md §6.15); "steps slowly": 100 ms apart, six seconds — time to kill an
 * instance and take the run over before it ends; "steps very slowly": 300 ms apart, eighteen
 * seconds — time to kill a CopilotKit runtime process, start it again and reload the page on a
 * loaded machine (test/browser/copilotkit/iac-code-wiring.test.ts).
 */
const steps: Scenario = async (script, input) => {
  const pace = /\bvery slowly\b/i.test(input.text) ? 300 : /\bslowly\b/i.test(input.text) ? 100 : 25;
  script.task('SUBMITTED');
  for (let i = 1; i <= 60; i += 1) {
    script.text(`step ${i}. `);
    await script.pause(pace);
  }
  script.finish('INPUT_REQUIRED');
};

/** What one delta of `huge` says: ASCII, two- and three-byte characters, a surrogate pair, quotes and backslashes to escape. */
const HUGE_DELTA = 'A long answer, line after line: é 中文 😀 "quoted" \\ back\\slash.\n'.repeat(1_000);

/** The text `huge <mib>` streams: at least `mib` MiB of UTF-8, in deltas of about 80 KB. */
export function hugeAnswer(mib: number): string[] {
  const deltas: string[] = [];
  let bytes = 0;
  for (let index = 0; bytes < mib * 1024 * 1024; index += 1) {
    const delta = `${index}: ${HUGE_DELTA}`;
    deltas.push(delta);
    bytes += Buffer.byteLength(delta);
  }
  return deltas;
}

/**
 * "huge <mib>" (default 24): a long answer streamed in deltas, then repeated whole in the final
 * `assistantFinal` status as the kernel does — one SSE event of that size (docs/protocol.md §7.1).
 * "huge <mib> unstreamed": no deltas, the answer only in that final status.
 */
const huge: Scenario = async (script, input) => {
  const mib = Number(/\bhuge\s+(\d+)/i.exec(input.text)?.[1] ?? 24);
  const deltas = hugeAnswer(mib);
  script.task('SUBMITTED');
  if (/\bunstreamed\b/i.test(input.text)) {
    script.usage();
    script.finish('INPUT_REQUIRED', deltas.join(''));
    return;
  }
  for (const delta of deltas) {
    script.text(delta);
    await script.pause(0);
  }
  script.usage();
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
  script.finish('INPUT_REQUIRED', '');
};

export const SCENARIOS: Record<string, Scenario> = {
  hello: normal,
  read,
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
  huge,
};

export const DEFAULT_SCENARIO = 'hello';

/** The scenario named by the first word of the message, else the default one. */
export function scenarioNameFor(text: string, known: ReadonlySet<string>): string {
  const first = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return known.has(first) ? first : DEFAULT_SCENARIO;
}

/**
 * How a ROS invocation drives the adapter (docs/ros-integration.md), runnable against the local
 * stack (`npm start`, http://127.0.0.1:8000) or any adapter URL:
 *
 *   npm start                                  # in one terminal
 *   npx tsx scripts/ros-example.ts             # in another; or: ... -- --url https://<trigger-url>
 *
 * 1. Execution A under its own rosInvocationId; the `iac-code.session.v1` event names the
 *    executionId the adapter gave it. The turn stops for a permission (the emulator's `permission`
 *    scenario): RUN_FINISHED carries outcome "interrupt", and a `resume` run — same threadId, a new
 *    runId, the same rosInvocationId — answers every interrupt (permissions allow_once; questions
 *    and choices take their first option), until the execution's turn succeeds.
 * 2. Execution B on the same thread under a new rosInvocationId (a new execution on the same A2A
 *    context, docs/protocol.md §6.5): a long turn, cancelled while it streams with
 *    POST /extensions/iac-code/v1/executions/{executionId}/cancel {threadId, rosInvocationId};
 *    the stream ends with RUN_ERROR CANCELLED, and a second cancel answers "already_terminal".
 *
 * Uses $IAC_CODE_AGUI_AUTH_TOKEN as the bearer token when set. Exit code 0 when every step behaved.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorSummary } from '../lib/core/error-fields.js';
import { type AguiEvent, authHeaders, describeEvent, postRun, readEvents, runAgentInput } from './smoke.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

function option(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? (args[at + 1] as string) : fallback;
}

function executionIdOf(event: AguiEvent): string | undefined {
  if (event.type !== 'CUSTOM' || event['name'] !== 'iac-code.session.v1') return undefined;
  return (event['value'] as { executionId?: string }).executionId;
}

async function cancel(baseUrl: string, executionId: string, threadId: string, rosInvocationId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL(`/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/cancel`, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders() },
    body: JSON.stringify({ threadId, rosInvocationId }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface Interrupt {
  id: string;
  reason: string;
  metadata?: { standardOptions?: Array<{ id: string }> };
}

/** An answer for each interrupt: what a ROS invocation's policy would decide (here: go ahead). */
function answersFor(interrupts: Interrupt[]): Array<Record<string, unknown>> {
  return interrupts.map((interrupt) => {
    if (interrupt.reason === 'tool_call') return { interruptId: interrupt.id, status: 'resolved', payload: { decision: 'allow_once' } };
    const first = interrupt.metadata?.standardOptions?.[0];
    return { interruptId: interrupt.id, status: 'resolved', payload: first ? { selectedId: first.id } : { freeText: 'Go ahead.' } };
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const url = option(args, '--url', args.find((arg) => /^https?:\/\//.test(arg)) ?? 'http://127.0.0.1:8000');
  const cwd = option(args, '--cwd', '/workspace/ros-example');
  // The emulator's `long` scenario keeps the task working until it is cancelled.
  const longMessage = option(args, '--long-message', 'long running deployment of the VPC stack');
  const threadId = `ros-stack-${randomUUID()}`;
  let ok = true;

  out(`thread ${threadId} on ${url}`);
  const invocationA = `ros-invocation-${randomUUID()}`;
  out(`\n[1] execution A: normal turn, rosInvocationId ${invocationA}`);
  let body: Record<string, unknown> = runAgentInput({ threadId, rosInvocationId: invocationA, message: option(args, '--message', 'permission to run terraform plan'), cwd });
  for (let round = 0; round < 5; round += 1) {
    const response = await postRun(url, body);
    if (response.status !== 200) {
      out(`POST / -> ${response.status} ${await response.text()}`);
      return 1;
    }
    const end = (await readEvents(response, (event) => out(`  ${describeEvent(event)}`))).at(-1);
    const outcome = end?.['outcome'] as { type?: string; interrupts?: Interrupt[] } | undefined;
    if (end?.type !== 'RUN_FINISHED') {
      ok = false;
      break;
    }
    if (outcome?.type !== 'interrupt') break;
    const resume = answersFor(outcome.interrupts ?? []);
    out(`  -> interrupted: resuming with ${JSON.stringify(resume)} (same threadId, new runId, same rosInvocationId)`);
    body = { ...runAgentInput({ threadId, rosInvocationId: invocationA, message: '', cwd }), messages: [], resume };
  }

  const invocationB = `ros-invocation-${randomUUID()}`;
  out(`\n[2] execution B on the same thread: long turn, rosInvocationId ${invocationB}, cancelled while it streams`);
  const second = await postRun(url, runAgentInput({ threadId, rosInvocationId: invocationB, message: longMessage, cwd }));
  if (second.status !== 200) {
    out(`POST / -> ${second.status} ${await second.text()}`);
    return 1;
  }
  let cancelled: Promise<boolean> | undefined;
  const streamed = await readEvents(second, (event) => {
    out(`  ${describeEvent(event)}`);
    const executionId = executionIdOf(event);
    if (!executionId || cancelled) return;
    cancelled = cancel(url, executionId, threadId, invocationB).then(async (answer) => {
      out(`  POST .../executions/${executionId}/cancel -> ${answer.status} ${JSON.stringify(answer.body)}`);
      const again = await cancel(url, executionId, threadId, invocationB);
      out(`  cancel again -> ${again.status} ${JSON.stringify(again.body)}`);
      return answer.body['status'] === 'cancelled' && again.body['status'] === 'already_terminal';
    });
  });
  const last = streamed.at(-1);
  ok &&= (await cancelled) === true && last?.type === 'RUN_ERROR' && last['code'] === 'CANCELLED';
  out(ok ? '\nros-example: ok' : '\nros-example: FAILED (see above)');
  return ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`ros-example: FAILED (${errorSummary(error)})\n`);
      process.exit(1);
    },
  );
}

/**
 * What every file of the kernel suite shares (docs/architecture.md §9.7): a describe that is
 * skipped when the real kernel is unavailable, a kernel of the file's own on its own ports with the
 * adapter in front of it, a workspace folder per test, and AG-UI turns through the official
 * @ag-ui/client whose every stream passes the strict oracle and verifyEvents.
 */
import { type BaseEvent, HttpAgent, type RunAgentParameters } from '@ag-ui/client';
import { afterAll, afterEach, beforeAll, describe, inject } from 'vitest';
import { type KernelPair, type KernelWorkspace, startKernelPair } from '../../../scripts/real-kernel/kernel-pair.js';
import { basePorts } from '../../../scripts/real-kernel/ports.js';
import { assertValidAgUiStream } from '../../support/agui-oracle.js';
import { uniqueId } from '../../support/fixtures.js';
import { type Stack, type StackOptions, startStack } from '../../support/stack.js';

/**
 * Each file's kernel: its offset from REAL_KERNEL_PORT / FAKE_LLM_PORT. The recorder
 * (scripts/record-kernel-streams.ts) uses offsets 0 and 1, the bench offset 8: neither runs beside
 * the suite.
 */
export const KERNEL_OFFSETS = { turns: 0, reasoning: 1, permissions: 2, cancel: 3, failures: 4, restart: 5, instances: 6, reattach: 7 } as const;

/** A describe that runs only in front of a real kernel; without one its tests are reported skipped. */
export function describeWithKernel(name: string, body: () => void): void {
  describe.skipIf(!inject('realKernel').available)(name, body);
}

export interface KernelHarness {
  pair: KernelPair;
  /** The adapter (file store unless `stack` says otherwise) in front of the kernel. */
  stack: Stack;
  /** A fresh folder of the kernel's workspace for this test, removed after it. */
  workspace(): Promise<KernelWorkspace>;
  /** An HttpAgent on the adapter, for a new thread unless one is named. */
  agent(threadId?: string): HttpAgent;
}

/** Starts the file's kernel and an adapter in front of it for the describe it is called in. */
export function useKernel(file: keyof typeof KERNEL_OFFSETS, options: { args?: string; stack?: StackOptions } = {}): KernelHarness {
  const created: KernelWorkspace[] = [];
  const harness = {
    workspace: async () => {
      const workspace = await harness.pair.workspace(uniqueId(file));
      created.push(workspace);
      return workspace;
    },
    agent: (threadId = uniqueId('thread')) => new HttpAgent({ url: `${harness.stack.url}/`, threadId }),
  } as KernelHarness;
  beforeAll(async () => {
    const base = basePorts();
    const offset = KERNEL_OFFSETS[file];
    harness.pair = await startKernelPair({ ports: { kernel: base.kernel + offset, model: base.model + offset }, args: options.args });
    harness.stack = await startStack({ store: 'file', ...options.stack, kernelUrl: harness.pair.url });
  });
  afterEach(async () => {
    for (const workspace of created.splice(0)) await workspace.remove();
  });
  afterAll(async () => {
    await harness.stack?.close();
    await harness.pair?.stop();
  });
  return harness;
}

export interface TurnResult {
  runId: string;
  events: BaseEvent[];
  /** The RUN_ERROR, when the run ended with one. */
  error: { code?: string; message: string } | undefined;
}

/**
 * One run through the official client (its runAgent applies verifyEvents as it reads); the
 * collected events then pass the strict oracle and verifyEvents again as a whole.
 */
export async function agentRun(agent: HttpAgent, parameters: RunAgentParameters, onEvent?: (event: BaseEvent) => void): Promise<TurnResult> {
  const events: BaseEvent[] = [];
  let error: TurnResult['error'];
  const runId = parameters.runId ?? uniqueId('run');
  await agent
    .runAgent(
      { ...parameters, runId },
      {
        onEvent: ({ event }) => {
          events.push(event);
          onEvent?.(event);
        },
        onRunErrorEvent: ({ event }) => {
          error = event;
        },
      },
    )
    .catch((thrown: unknown) => {
      // A RUN_ERROR rejects runAgent after delivering the event; anything else is the test's failure.
      if (!error) throw thrown;
    });
  await assertValidAgUiStream(events as unknown as Array<Record<string, unknown>>);
  return { runId, events, error };
}

export interface LiveRun {
  events: BaseEvent[];
  done: Promise<TurnResult>;
  /** Resolves with the first event that matches, as soon as it arrived (bounded by the test's timeout). */
  until(predicate: (event: BaseEvent) => boolean): Promise<BaseEvent>;
}

/** A run read in the background, to act while it streams (cancel, disconnect, kill the kernel). */
export function liveRun(agent: HttpAgent, parameters: RunAgentParameters): LiveRun {
  const events: BaseEvent[] = [];
  const waiters = new Set<{ predicate: (event: BaseEvent) => boolean; resolve: (event: BaseEvent) => void }>();
  const done = agentRun(agent, parameters, (event) => {
    events.push(event);
    for (const waiter of waiters) {
      if (!waiter.predicate(event)) continue;
      waiters.delete(waiter);
      waiter.resolve(event);
    }
  });
  return {
    events,
    done,
    until: (predicate) => {
      const seen = events.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.add({ predicate, resolve });
        void done.then(() => reject(new Error(`the run ended first: ${events.map((event) => event.type).join(', ')}`)), reject);
      });
    },
  };
}

export function isTextDelta(text: string): (event: BaseEvent) => boolean {
  return (event) => event.type === 'TEXT_MESSAGE_CONTENT' && ((event as { delta?: string }).delta ?? '').includes(text);
}

/** POST …/executions/{executionId}/cancel (docs/protocol.md §6.7). */
export async function cancelExecution(adapterUrl: string, executionId: string, threadId: string, rosInvocationId = 'kernel-suite'): Promise<unknown> {
  const response = await fetch(`${adapterUrl}/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ threadId, rosInvocationId }),
  });
  return response.json();
}

/** The forwarded iacCode of a run in `workspace`. */
export function iacCodeIn(workspace: KernelWorkspace, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { schemaVersion: 1, rosInvocationId: 'kernel-suite', cwd: workspace.cwd, ...extra };
}

/** Adds the user's message and runs a turn in `workspace`. */
export function userTurn(agent: HttpAgent, workspace: KernelWorkspace, content: string, extra: Record<string, unknown> = {}): Promise<TurnResult> {
  agent.messages.push({ id: uniqueId('msg'), role: 'user', content });
  return agentRun(agent, { forwardedProps: { iacCode: iacCodeIn(workspace, extra) } });
}

export function textOfEvents(events: readonly BaseEvent[]): string {
  return events
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => (event as { delta?: string }).delta ?? '')
    .join('');
}

export function sessionOfEvents(events: readonly BaseEvent[]): { executionId: string; taskId: string; sessionId: string } {
  const session = events.find((event) => event.type === 'CUSTOM' && (event as { name?: string }).name === 'iac-code.session.v1');
  if (!session) throw new Error(`no session event among ${events.map((event) => event.type).join(', ')}`);
  return (session as unknown as { value: { executionId: string; taskId: string; sessionId: string } }).value;
}

/** The state the kernel itself reports for a task (GetTask), e.g. `TASK_STATE_CANCELED`. */
export async function kernelTaskState(kernelUrl: string, taskId: string): Promise<string | undefined> {
  const response = await fetch(kernelUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: taskId, historyLength: 1 } }),
  });
  const answer = (await response.json()) as { result?: { status?: { state?: string } } };
  return answer.result?.status?.state;
}

/** Polls the kernel until the task is in one of `states` (a bounded wait for a fact, not a timing assertion). */
export async function kernelTaskReaches(kernelUrl: string, taskId: string, states: readonly string[], attempts = 100): Promise<string | undefined> {
  let state: string | undefined;
  for (let i = 0; i < attempts; i += 1) {
    state = await kernelTaskState(kernelUrl, taskId);
    if (state && states.includes(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return state;
}

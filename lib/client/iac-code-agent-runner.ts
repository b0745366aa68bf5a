/**
 * `IacCodeAgentRunner`: a runner for CopilotKit's runtime (`@copilotkit/runtime/v2`, its
 * `AgentRunner`: `run`, `connect`, `isRunning`, `stop`) that keeps nothing in process. Every answer
 * comes from the adapter's routes (docs/protocol.md §6.16 thread reads, §6.7 cancel, §6.15
 * reattach), so any runtime instance — another one behind a load balancer, or one restarted
 * mid-run — serves any thread, where CopilotKit's `InMemoryAgentRunner` loses a thread with its
 * process:
 *
 * - `run`: `POST /` with `forwardedProps.iacCode` and the detach grace, reattached by itself when
 *   the stream drops (an IacCodeAgent made for the call, iac-code-agent.ts);
 * - `connect`: the thread's conversation and its current run from its start, or its conversation
 *   alone when idle (connect-thread.ts);
 * - `isRunning`: the thread read says a run is live or detached;
 * - `stop`: the cancel route for the thread's current run (only `runId`, when given).
 *
 * Structurally typed: CopilotKit 1.75 builds on @ag-ui/client 0.0.59, this module on 1.0, and their
 * `EventType` enums are distinct types; the events are the same JSON. The test checks that a real
 * `CopilotRuntime` takes it (test/integration/iac-code-agent-runner.test.ts).
 */
import { type BaseEvent, type RunAgentInput, randomUUID } from '@ag-ui/client';
import type { Observable } from 'rxjs';
import { IacCodeAgent, type IacCodeAgentConfig } from './iac-code-agent.js';
import { readThread } from './thread-client.js';

/** An AG-UI event as CopilotKit's side types it (its own @ag-ui/core): the same JSON, another enum. */
// biome-ignore lint/suspicious/noExplicitAny: the type field is CopilotKit's EventType enum, nominal in TypeScript.
export type RunnerEvent = { type: any; timestamp?: number | undefined; rawEvent?: unknown };

export interface RunnerRunRequest {
  threadId: string;
  agent?: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: CopilotKit's RunAgentInput (its @ag-ui/core 0.0.59); sent as JSON.
  input: any;
}

export interface RunnerConnectRequest {
  threadId: string;
  agentId?: string;
  headers?: Record<string, string>;
}

export type IacCodeAgentRunnerOptions = Omit<IacCodeAgentConfig, 'threadId' | 'initialMessages' | 'initialState'>;

export class IacCodeAgentRunner {
  constructor(readonly options: IacCodeAgentRunnerOptions) {}

  /** A fresh agent per call: nothing is kept between calls. */
  private agent(threadId: string): IacCodeAgent {
    return new IacCodeAgent({ ...this.options, threadId });
  }

  run(request: RunnerRunRequest): Observable<RunnerEvent> {
    const input = request.input as RunAgentInput;
    return this.agent(request.threadId).run({ ...input, threadId: request.threadId }) as Observable<BaseEvent> as Observable<RunnerEvent>;
  }

  connect(request: RunnerConnectRequest): Observable<RunnerEvent> {
    return this.agent(request.threadId).connectThread(request.threadId, `connect-${randomUUID()}`) as Observable<RunnerEvent>;
  }

  async isRunning(request: { threadId: string }): Promise<boolean> {
    const agent = this.agent(request.threadId);
    const run = await readThread(agent.connection, request.threadId).catch(() => null);
    return run !== null && run.state !== 'interrupted';
  }

  /** `true` when this call cancelled the run; `false` when none (or not `runId`) was running. */
  async stop(request: { threadId: string; runId?: string }): Promise<boolean | undefined> {
    const agent = this.agent(request.threadId);
    const run = await readThread(agent.connection, request.threadId).catch(() => null);
    if (!run || run.state === 'interrupted') return false;
    if (request.runId !== undefined && run.runId !== request.runId) return false;
    const cancelled = await agent.cancelRun(request.threadId);
    return cancelled !== undefined && 'status' in cancelled && cancelled.status === 'cancelled';
  }
}

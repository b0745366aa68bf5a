/**
 * The emulator's AgentExecutor. A new task plays a scenario until it parks on an input or ends; a
 * message to an existing task delivers the answer to the parked scenario and plays on until the
 * next park or the end. Cancellation aborts the scenario and publishes CANCELED itself (the SDK's
 * cancel of a parked task waits for the executor to do so).
 */
import { randomUUID } from 'node:crypto';
import { Message } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { DEFAULT_SCENARIO, type Scenario, type ScenarioInput, scenarioNameFor } from './scenarios.js';
import { CancelledError, type HistoryMode, type Json, type ReceivedAnswer, TaskScript } from './task-script.js';

export type SessionState = 'ok' | 'missing' | 'backupNotReady';

/** A JSON-RPC level fault the kernel answers instead of running the method. */
export interface RpcFault {
  method: string;
  /**
   * `error`: a JSON-RPC error object; `emptyStream`: an SSE response with no event; `http`: a bare
   * HTTP error; `hang`: an SSE response that never sends anything (until the client leaves);
   * `cutFirstEvent`: the method runs (a task starts), but the connection breaks halfway through
   * the first event — a kernel crash or a proxy cutting the stream.
   */
  kind: 'error' | 'emptyStream' | 'http' | 'hang' | 'cutFirstEvent';
  code?: number;
  message?: string;
  data?: unknown;
  status?: number;
  times?: number;
}

export interface EmulatorControls {
  scenarios: Map<string, Scenario>;
  /** When set, the next new task plays this scenario whatever the message says. */
  nextScenario: string | Scenario | undefined;
  silenceMs: number;
  /** Session state as /iac-code/session/ensure-restored reports it (default ok). */
  sessions: Map<string, SessionState>;
  /** False: the kernel predates /iac-code/session/ensure-restored (v0.13.1, docs/protocol.md §7.8). */
  restoreRoute: boolean;
  /**
   * How ensure-restored answers a missing session (docs/protocol.md §7.8): `status` — 404
   * `{"status":"not_found"}`, as the newest kernel does (default); `error` — 404 with an `error`
   * object, as earlier kernels did.
   */
  missingSessionAnswer: 'status' | 'error';
  /**
   * Watched scenarios (observation-scenarios.ts) go on once `observers` SubscribeToTask streams
   * have attached to their task, or after `timeoutMs` without them.
   */
  watch: { observers: number; timeoutMs: number };
  rpcFaults: RpcFault[];
  /**
   * What GetTask shows of the open inputs: `full` (default); `none` — a restarted kernel that kept
   * no metadata; `emptyList` — an explicit empty `pendingPermissions`; `extraPermission` — one
   * more sub-pipeline permission opened since the adapter last looked.
   */
  snapshotInputs: 'full' | 'none' | 'emptyList' | 'extraPermission';
  /** How new tasks keep their streamed text in GetTask's history (TaskScript.historyMode; default `perDelta`). */
  historyMode: HistoryMode;
}

interface WireMessage {
  parts?: Array<{ text?: string; data?: unknown }>;
  metadata?: { iac_code?: Json };
}

export function messageInput(context: RequestContext, silenceMs: number): ScenarioInput {
  const wire = Message.toJSON(context.userMessage) as WireMessage;
  const text = (wire.parts ?? []).map((part) => part.text ?? '').join('');
  return { text, iacCode: wire.metadata?.iac_code ?? {}, silenceMs };
}

/** The answer a message carries: a permission data part, or text. */
export function answerOf(context: RequestContext): ReceivedAnswer | undefined {
  const wire = Message.toJSON(context.userMessage) as WireMessage;
  const data = wire.parts?.[0]?.data as Json | undefined;
  if (data && data['kind'] === 'permission') return { kind: 'permission', decision: data['decision'] as 'allow_once' | 'deny', inputId: String(data['inputId']) };
  const text = (wire.parts ?? []).map((part) => part.text ?? '').join('');
  return text ? { kind: 'text', text } : undefined;
}

export class EmulatorExecutor implements AgentExecutor {
  readonly scripts = new Map<string, TaskScript>();
  private readonly sessionIds = new Map<string, string>();

  constructor(private readonly controls: EmulatorControls) {}

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const existing = this.scripts.get(context.taskId);
    if (existing) {
      await this.continueTask(existing, context, bus);
      return;
    }
    const input = messageInput(context, this.controls.silenceMs);
    const script = new TaskScript(context.taskId, context.contextId, this.sessionFor(context.contextId), bus);
    script.historyMode = this.controls.historyMode;
    script.userMessage = Message.toJSON(context.userMessage) as Json;
    this.scripts.set(context.taskId, script);
    const parked = script.nextPark();
    void this.play(script, this.pickScenario(input.text), input);
    await parked;
    if (script.ended) script.finished();
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const script = this.scripts.get(taskId);
    if (script && !script.ended) {
      script.rebind(bus);
      script.controller.abort();
      script.cancelled();
    }
    bus.finished();
  };

  private async continueTask(script: TaskScript, context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const answer = answerOf(context);
    const awaiting = script.awaiting;
    script.rebind(bus);
    if (!awaiting || !answer) {
      // Nothing is parked: answer like a kernel that has nothing to do.
      script.task('INPUT_REQUIRED');
      script.finished();
      return;
    }
    if (awaiting.sideband) {
      script.acknowledge({ kind: 'permission_ack', inputId: awaiting.inputId, decision: answer.kind === 'permission' ? answer.decision : undefined });
    } else if (answer.kind !== 'permission') {
      // A prompt answer's stream opens with the task (a permission's with its acknowledgements).
      script.state = 'WORKING';
      script.task();
    }
    await script.deliver(answer, bus);
    if (script.ended) script.finished();
  }

  private async play(script: TaskScript, scenario: Scenario, input: ScenarioInput): Promise<void> {
    try {
      await scenario(script, input);
    } catch (error) {
      if (error instanceof CancelledError) script.cancelled();
      else script.reportError(`Emulator scenario failed: ${String(error)}`, { retryable: false, errorId: 'emulator-1' });
    } finally {
      script.markEnded();
    }
  }

  /** One iac-code session per A2A context, as the kernel keeps it. */
  private sessionFor(contextId: string): string {
    let session = this.sessionIds.get(contextId);
    if (!session) {
      session = `session-${randomUUID()}`;
      this.sessionIds.set(contextId, session);
    }
    return session;
  }

  private pickScenario(text: string): Scenario {
    const forced = this.controls.nextScenario;
    if (forced !== undefined) {
      this.controls.nextScenario = undefined;
      const scenario = typeof forced === 'string' ? this.controls.scenarios.get(forced) : forced;
      if (scenario) return scenario;
    }
    const known = new Set(this.controls.scenarios.keys());
    return this.controls.scenarios.get(scenarioNameFor(text, known)) ?? (this.controls.scenarios.get(DEFAULT_SCENARIO) as Scenario);
  }
}

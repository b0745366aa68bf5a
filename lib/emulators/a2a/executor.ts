/**
 * The emulator's AgentExecutor: picks a scenario for each new task, keeps the task's script so a
 * cancel can stop it, and publishes CANCELED itself (the SDK's cancel of a parked task waits for
 * the executor to do so).
 */
import { randomUUID } from 'node:crypto';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { Message } from '@a2a-js/sdk';
import { CancelledError, TaskScript, type Json } from './task-script.js';
import { SCENARIOS, scenarioNameFor, type Scenario, type ScenarioInput } from './scenarios.js';

export interface EmulatorControls {
  scenarios: Map<string, Scenario>;
  /** When set, the next new task plays this scenario whatever the message says. */
  nextScenario: string | Scenario | undefined;
  silenceMs: number;
}

export function messageInput(context: RequestContext, silenceMs: number): ScenarioInput {
  const wire = Message.toJSON(context.userMessage) as { parts?: { text?: string }[]; metadata?: { iac_code?: Json } };
  const text = (wire.parts ?? []).map((part) => part.text ?? '').join('');
  return { text, iacCode: wire.metadata?.iac_code ?? {}, silenceMs };
}

export class EmulatorExecutor implements AgentExecutor {
  readonly scripts = new Map<string, TaskScript>();
  private readonly sessions = new Map<string, string>();

  constructor(private readonly controls: EmulatorControls) {}

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const input = messageInput(context, this.controls.silenceMs);
    const script = new TaskScript(context.taskId, context.contextId, this.sessionFor(context.contextId), bus);
    this.scripts.set(context.taskId, script);
    try {
      await this.pickScenario(input.text)(script, input);
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
      script.cancelled();
    } finally {
      script.done();
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const script = this.scripts.get(taskId);
    if (script && !script.signal.aborted) {
      script.rebind(bus);
      script.controller.abort();
      // A scenario parked in INPUT_REQUIRED is not running: answer for it.
      script.cancelled();
      bus.finished();
      return;
    }
    bus.finished();
  };

  /** One iac-code session per A2A context, as the kernel keeps it. */
  private sessionFor(contextId: string): string {
    let session = this.sessions.get(contextId);
    if (!session) {
      session = `session-${randomUUID()}`;
      this.sessions.set(contextId, session);
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
    return this.controls.scenarios.get(scenarioNameFor(text, known)) ?? (SCENARIOS['hello'] as Scenario);
  }
}

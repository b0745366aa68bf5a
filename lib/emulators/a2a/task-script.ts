/**
 * What a scenario uses to play one iac-code task: publishes A2A 1.0 events shaped like the
 * iac-code kernel's (contract §B.2): streamed text as status messages `<taskId>-message`, the final
 * text repeated under `<taskId>-<n>` with `assistantFinal`, signals under `metadata.iac_code`, and
 * the session id on every status update.
 */
import { AgentEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';
import { Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { setTimeout as sleep } from 'node:timers/promises';

export type Json = Record<string, unknown>;

export type TaskStateName = 'SUBMITTED' | 'WORKING' | 'INPUT_REQUIRED' | 'COMPLETED' | 'FAILED' | 'CANCELED' | 'REJECTED' | 'AUTH_REQUIRED';

export class CancelledError extends Error {
  constructor() {
    super('task cancelled');
    this.name = 'CancelledError';
  }
}

export class TaskScript {
  private stateNumber = 0;
  private fullText = '';
  private cancelPublished = false;
  /** Set by the executor when the task is cancelled. */
  readonly controller = new AbortController();

  constructor(
    readonly taskId: string,
    readonly contextId: string,
    readonly sessionId: string,
    private bus: ExecutionEventBus,
  ) {}

  /** A continuation (a resume message) publishes on the bus of its own request. */
  rebind(bus: ExecutionEventBus): void {
    this.bus = bus;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The first event of every execute call must be the task (an @a2a-js/sdk rule). */
  task(state: TaskStateName = 'SUBMITTED', iac: Json = {}): void {
    this.bus.publish(
      AgentEvent.task(
        Task.fromJSON({
          id: this.taskId,
          contextId: this.contextId,
          status: { state: `TASK_STATE_${state}` },
          metadata: { iac_code: { iacCodeSessionId: this.sessionId, ...iac } },
        }),
      ),
    );
  }

  /** A status update carrying iac_code signals and optionally an agent message. */
  status(state: TaskStateName, iac: Json = {}, message?: { messageId: string; text: string }): void {
    this.throwIfCancelled();
    const status: Json = { state: `TASK_STATE_${state}` };
    if (message) {
      status['message'] = { messageId: message.messageId, role: 'ROLE_AGENT', contextId: this.contextId, taskId: this.taskId, parts: [{ text: message.text }] };
    }
    this.bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId: this.taskId, contextId: this.contextId, status, metadata: { iac_code: { iacCodeSessionId: this.sessionId, ...iac } } }),
      ),
    );
  }

  /** One streamed text delta. */
  text(delta: string, iac: Json = {}): void {
    this.fullText += delta;
    this.status('WORKING', iac, { messageId: `${this.taskId}-message`, text: delta });
  }

  artifact(artifact: Json): void {
    this.throwIfCancelled();
    this.bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ taskId: this.taskId, contextId: this.contextId, artifact, append: false, lastChunk: true })));
  }

  /** The final status of a turn: the whole answer again, marked assistantFinal. */
  finish(state: TaskStateName, iac: Json = {}, finalText = this.fullText): void {
    this.stateNumber += 1;
    const message = finalText ? { messageId: `${this.taskId}-${this.stateNumber}`, text: finalText } : undefined;
    this.status(state, finalText ? { ...iac, assistantFinal: { complete: true } } : iac, message);
    this.fullText = '';
  }

  /** The CANCELED status that ends a cancelled task (published even for a parked task). */
  cancelled(): void {
    if (this.cancelPublished) return;
    this.cancelPublished = true;
    this.bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId: this.taskId, contextId: this.contextId, status: { state: 'TASK_STATE_CANCELED' }, metadata: { iac_code: { iacCodeSessionId: this.sessionId } } }),
      ),
    );
  }

  done(): void {
    this.bus.finished();
  }

  async pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.signal });
    } catch {
      throw new CancelledError();
    }
  }

  throwIfCancelled(): void {
    if (this.signal.aborted) throw new CancelledError();
  }
}

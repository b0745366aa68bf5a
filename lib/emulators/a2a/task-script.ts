/**
 * What a scenario uses to play one iac-code task: publishes A2A 1.0 events shaped like the
 * iac-code kernel's (docs/protocol.md §4.5, §7.5): streamed text as status messages `<taskId>-message`, the final
 * text repeated under `<taskId>-<n>` with `assistantFinal`, signals under `metadata.iac_code`, and
 * the session id on every status update. A scenario can park on an input and wait for the answer;
 * the task's current state and open inputs are what GetTask shows.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';
import { type EnvelopeFields, PIPELINE_EXTENSION_URI, PipelineLog } from './pipeline-log.js';

export type Json = Record<string, unknown>;

export type TaskStateName = 'SUBMITTED' | 'WORKING' | 'INPUT_REQUIRED' | 'COMPLETED' | 'FAILED' | 'CANCELED' | 'REJECTED' | 'AUTH_REQUIRED';

/** An answer the kernel received for a parked input. */
export type ReceivedAnswer = { kind: 'permission'; decision: 'allow_once' | 'deny'; inputId: string } | { kind: 'text'; text: string };

/** The input a scenario is parked on. */
export interface AwaitedInput {
  inputId: string;
  kind: string;
  toolUseId: string;
  /** Answered through SendMessage (sub-pipeline permission). */
  sideband: boolean;
}

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
  private answerWaiter: { resolve: (answer: ReceivedAnswer) => void } | undefined;
  private parkWaiters: Array<() => void> = [];
  /** The task's current state and last status message, as GetTask shows them. */
  state: TaskStateName = 'SUBMITTED';
  statusMessage: Json | undefined;
  /** The open inputs GetTask shows under metadata.iac_code (input, pendingPermissions). */
  exposed: Json = {};
  awaiting: AwaitedInput | undefined;
  /** A permission only GetTask reveals (see EmulatorControls.snapshotInputs). */
  extraPermission: Json | undefined;
  ended = false;
  readonly controller = new AbortController();
  /** The task's pipeline, once a scenario runs one. */
  pipelineLog: PipelineLog | undefined;
  /** Listeners that see every published event as wire JSON (the kernel's own SubscribeToTask). */
  readonly taps = new Set<(item: Json) => void>();
  /** SubscribeToTask streams attached to this task so far (each counts once, even after it left). */
  private attachments = 0;
  private attachWaiters: Array<() => void> = [];

  constructor(
    readonly taskId: string,
    readonly contextId: string,
    readonly sessionId: string,
    private bus: ExecutionEventBus,
  ) {}

  /** A continuation (an answer, a cancel) publishes on the bus of its own request. */
  rebind(bus: ExecutionEventBus): void {
    this.bus = bus;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  snapshotMetadata(): Json {
    return { iac_code: { iacCodeSessionId: this.sessionId, ...this.exposed } };
  }

  /** The first event of every execute call must be the task (an @a2a-js/sdk rule). */
  task(state?: TaskStateName, iac: Json = {}): void {
    if (state) this.state = state;
    this.bus.publish(
      AgentEvent.task(
        Task.fromJSON({
          id: this.taskId,
          contextId: this.contextId,
          status: { state: `TASK_STATE_${this.state}`, ...(this.statusMessage ? { message: this.statusMessage } : {}) },
          metadata: { iac_code: { iacCodeSessionId: this.sessionId, ...this.exposed, ...iac } },
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
    this.state = state;
    this.statusMessage = status['message'] as Json | undefined;
    const update = { taskId: this.taskId, contextId: this.contextId, status, metadata: { iac_code: { iacCodeSessionId: this.sessionId, ...iac } } };
    this.bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON(update)));
    this.tap({ statusUpdate: update });
  }

  /** One streamed text delta. */
  text(delta: string, iac: Json = {}): void {
    this.fullText += delta;
    this.status('WORKING', iac, { messageId: `${this.taskId}-message`, text: delta });
  }

  artifact(artifact: Json): void {
    this.throwIfCancelled();
    const update = { taskId: this.taskId, contextId: this.contextId, artifact, append: false, lastChunk: true };
    this.bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON(update)));
    this.tap({ artifactUpdate: update });
  }

  /**
   * One pipeline envelope: recorded in the pipeline log and, unless `quiet`, published as
   * `metadata.iac_code.pipeline` (several at once go as a `pipelineBatch`).
   */
  pipeline(events: Array<[eventType: string, fields: EnvelopeFields]>, options: { quiet?: boolean; extra?: Json } = {}): Json[] {
    this.pipelineLog ??= new PipelineLog(`pipe-run-${this.taskId.slice(0, 8)}`, 'vpc-candidates', this.taskId, this.contextId);
    const log = this.pipelineLog;
    const envelopes = events.map(([eventType, fields]) => log.record(eventType, fields));
    if (options.quiet) return envelopes;
    const signal = envelopes.length === 1 ? { pipeline: envelopes[0] } : { pipelineBatch: { schemaVersion: 1, extensionUri: PIPELINE_EXTENSION_URI, events: envelopes } };
    this.status('WORKING', { ...signal, ...options.extra });
    return envelopes;
  }

  /** A sideband acknowledgement: the first event of a non-streaming answer (docs/protocol.md §5.7). */
  acknowledge(data: Json): void {
    this.bus.publish(
      AgentEvent.message(
        Message.fromJSON({
          messageId: `${this.taskId}-ack-${Date.now()}`,
          role: 'ROLE_AGENT',
          contextId: this.contextId,
          taskId: this.taskId,
          parts: [{ data, mediaType: 'application/json' }],
        }),
      ),
    );
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
    this.state = 'CANCELED';
    this.exposed = {};
    const update = { taskId: this.taskId, contextId: this.contextId, status: { state: 'TASK_STATE_CANCELED' }, metadata: { iac_code: { iacCodeSessionId: this.sessionId } } };
    this.bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON(update)));
    this.tap({ statusUpdate: update });
  }

  /** Parks the scenario until an answer for `input` arrives (or the task is cancelled). */
  async awaitAnswer(input: AwaitedInput): Promise<ReceivedAnswer> {
    this.throwIfCancelled();
    this.awaiting = input;
    const answer = new Promise<ReceivedAnswer>((resolve, reject) => {
      this.answerWaiter = { resolve };
      this.signal.addEventListener('abort', () => reject(new CancelledError()), { once: true });
    });
    this.notifyPark();
    try {
      return await answer;
    } finally {
      this.awaiting = undefined;
      this.answerWaiter = undefined;
    }
  }

  /** Hands an answer to the parked scenario; resolves when it parks again or ends. */
  deliver(answer: ReceivedAnswer, bus: ExecutionEventBus): Promise<void> {
    this.rebind(bus);
    const parked = this.nextPark();
    this.answerWaiter?.resolve(answer);
    return parked;
  }

  /** Resolves the next time the scenario parks on an input or ends. */
  nextPark(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.parkWaiters.push(resolve));
  }

  markEnded(): void {
    this.ended = true;
    this.notifyPark();
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

  finished(): void {
    this.bus.finished();
  }

  /**
   * Ends the stream of the current request while the task works on, as the kernel ends a prompt
   * answer's stream while a pipeline continues (docs/protocol.md §5.6). Later events reach only
   * SubscribeToTask observers (the taps) and what GetTask shows.
   */
  detach(): void {
    this.bus.finished();
  }

  /** A SubscribeToTask stream attached (subscribe.ts). */
  attached(): void {
    this.attachments += 1;
    const waiters = this.attachWaiters;
    this.attachWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * Waits until `count` SubscribeToTask streams have attached to this task, or `timeoutMs` passed:
   * scenarios that are watched go on only once their observers listen, so what each observer sees
   * does not depend on timing.
   */
  async untilAttached(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.attachments < count && Date.now() < deadline) {
      this.throwIfCancelled();
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.signal.removeEventListener('abort', wake);
          resolve();
        };
        const timer = setTimeout(wake, deadline - Date.now());
        this.signal.addEventListener('abort', wake, { once: true });
        this.attachWaiters.push(wake);
      });
    }
    this.throwIfCancelled();
  }

  private tap(item: Json): void {
    for (const listener of this.taps) listener(item);
  }

  private notifyPark(): void {
    const waiters = this.parkWaiters;
    this.parkWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

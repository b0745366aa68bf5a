/**
 * What a scenario uses to play one iac-code task: publishes A2A 1.0 events shaped like the real
 * kernel's recorded streams (test/fixtures/kernel-streams, docs/architecture.md §9.2): the opening
 * (a task without metadata, then SUBMITTED and WORKING statuses carrying the session id), text
 * deltas as status messages all under `<taskId>-message`, the answer again under `<taskId>-<n>`
 * with `assistantFinal` on a WORKING status followed by a separate end status, signals under
 * `metadata.iac_code`. A scenario can park on an input and wait for the answer; GetTask shows the
 * task as the kernel's task store keeps it: the last status, the metadata of the last status, and
 * every earlier status message in the history.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';
import { Attachments } from './attachments.js';
import { type EnvelopeFields, PIPELINE_EXTENSION_URI, PipelineLog } from './pipeline-log.js';

export type Json = Record<string, unknown>;

/** How a task store keeps streamed text in a task's history (TaskScript.historyMode). */
export type HistoryMode = 'perDelta' | 'growing';

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

/** The usage the kernel reports after each model call: three counters (floats on the wire). */
export const KERNEL_USAGE = { inputTokens: 1200, outputTokens: 340, totalTokens: 1540 };

/** States at which @a2a-js/sdk ends the stream of the request that published them. */
const STREAM_ENDS = new Set<TaskStateName>(['INPUT_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELED', 'REJECTED']);

export class TaskScript {
  private stateNumber = 1;
  private fullText = '';
  private cancelPublished = false;
  private opened = false;
  /** False once the current request's stream ended: later events reach only subscribers and GetTask. */
  private streamOpen = true;
  private answerWaiter: { resolve: (answer: ReceivedAnswer) => void } | undefined;
  private parkWaiters: Array<() => void> = [];
  /** The task's current state and last status message, as GetTask shows them. */
  state: TaskStateName = 'SUBMITTED';
  statusMessage: Json | undefined;
  /**
   * The message that started the task, which the kernel's history opens with: ListTasks shows it
   * (rpc-guard.ts); GetTask's history here starts at the first status message, as the tests of
   * the takeover's history windows count it (the takeover reads agent text only).
   */
  userMessage: Json | undefined;
  /** Every earlier status message, as the kernel's task store keeps them (GetTask's history). */
  readonly history: Json[] = [];
  /**
   * How the task store keeps streamed text (EmulatorControls.historyMode): `perDelta` — one history
   * message per status message, as iac-code 0.13.1 does; `growing` — one history message per
   * messageId, its text growing in place as deltas under that id arrive (A2A allows it).
   */
  historyMode: HistoryMode = 'perDelta';
  /** `metadata.iac_code` of the last status: GetTask's metadata. */
  lastIac: Json = {};
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
  readonly attachments = new Attachments(this.controller.signal);

  constructor(
    readonly taskId: string,
    readonly contextId: string,
    readonly sessionId: string,
    private bus: ExecutionEventBus,
  ) {}

  /** A continuation (an answer, a cancel) publishes on the bus of its own request. */
  rebind(bus: ExecutionEventBus): void {
    this.bus = bus;
    this.streamOpen = true;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  snapshotMetadata(): Json {
    return { iac_code: { ...this.lastIac, iacCodeSessionId: this.sessionId, ...this.exposed } };
  }

  /**
   * The first event of every execute call must be the task (an @a2a-js/sdk rule). A new task opens
   * as the kernel's do: the task without metadata, then SUBMITTED and WORKING with the session id
   * (`iac` replaces what they carry).
   */
  task(state?: TaskStateName, iac: Json = {}): void {
    if (!this.opened) {
      this.opened = true;
      this.bus.publish(AgentEvent.task(Task.fromJSON({ id: this.taskId, contextId: this.contextId, status: { state: 'TASK_STATE_SUBMITTED' } })));
      this.status('SUBMITTED', iac);
      this.status('WORKING', iac);
      return;
    }
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
  status(state: TaskStateName, iac: Json = {}, message?: { messageId: string; text: string }, withSession = true): void {
    this.throwIfCancelled();
    const status: Json = { state: `TASK_STATE_${state}` };
    if (message) {
      status['message'] = { messageId: message.messageId, role: 'ROLE_AGENT', contextId: this.contextId, taskId: this.taskId, parts: [{ text: message.text }] };
    }
    this.record(state, status, iac);
    const update = { taskId: this.taskId, contextId: this.contextId, status, metadata: { iac_code: withSession ? { iacCodeSessionId: this.sessionId, ...iac } : iac } };
    this.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON(update)), state);
    this.tap({ statusUpdate: update });
  }

  /** One streamed text delta. */
  text(delta: string, iac: Json = {}): void {
    this.fullText += delta;
    this.status('WORKING', iac, { messageId: `${this.taskId}-message`, text: delta });
  }

  /** The usage the kernel reports after a model call. */
  usage(counters: Json = KERNEL_USAGE): void {
    this.status('WORKING', { usage: counters });
  }

  artifact(artifact: Json): void {
    this.throwIfCancelled();
    const update = { taskId: this.taskId, contextId: this.contextId, artifact, append: false, lastChunk: true };
    if (this.streamOpen) this.bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON(update)));
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
    this.publish(
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
    // @a2a-js/sdk ends a stream at its first message.
    this.streamOpen = false;
  }

  /**
   * The end of a turn, as the kernel ends one: a WORKING status carrying the whole answer again
   * (`<taskId>-<n>`, `assistantFinal`; without a message when nothing was said), then the end state
   * on a status of its own.
   */
  finish(state: TaskStateName = 'INPUT_REQUIRED', finalText = this.fullText): void {
    this.stateNumber += 1;
    this.status('WORKING', { assistantFinal: { complete: true } }, finalText ? { messageId: `${this.taskId}-${this.stateNumber}`, text: finalText } : undefined);
    this.fullText = '';
    this.status(state);
  }

  /**
   * The kernel's account of an error (iac-code's ErrorEvent): the reason as a status message under
   * `<taskId>-message` with `error {retryable, errorId}` — FAILED, or INPUT_REQUIRED when retryable —
   * and then the turn closed as after a provider failure: usage at zero, an empty assistantFinal,
   * INPUT_REQUIRED. FAILED is not the end of the task.
   */
  reportError(reason: string, error: { retryable: boolean; errorId: string }): void {
    this.errorStatus(reason, error);
    this.closeAfterError();
  }

  /** The status that reports the error (reportError's first half). */
  errorStatus(reason: string, error: { retryable: boolean; errorId: string }): void {
    this.status(error.retryable ? 'INPUT_REQUIRED' : 'FAILED', { error }, { messageId: `${this.taskId}-message`, text: reason });
  }

  /** The turn closed after an error (reportError's second half). */
  closeAfterError(): void {
    this.usage({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    this.finish('INPUT_REQUIRED', '');
  }

  /** The CANCELED status that ends a cancelled task (published even for a parked task), with the kernel's "Task canceled.". */
  cancelled(): void {
    if (this.cancelPublished) return;
    this.cancelPublished = true;
    this.exposed = {};
    this.stateNumber += 1;
    const status = {
      state: 'TASK_STATE_CANCELED',
      message: { messageId: `${this.taskId}-${this.stateNumber}`, role: 'ROLE_AGENT', contextId: this.contextId, taskId: this.taskId, parts: [{ text: 'Task canceled.' }] },
    };
    this.record('CANCELED', status, {});
    const update = { taskId: this.taskId, contextId: this.contextId, status, metadata: { iac_code: { iacCodeSessionId: this.sessionId } } };
    this.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON(update)), 'CANCELED');
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
   * answer's stream while a pipeline continues, and a permission answer's after its
   * acknowledgements (docs/protocol.md §5.6). Later events reach only SubscribeToTask observers
   * (the taps) and what GetTask shows.
   */
  detach(): void {
    this.streamOpen = false;
    this.bus.finished();
  }

  /** A SubscribeToTask stream attached (subscribe.ts). */
  attached(): void {
    this.attachments.add();
  }

  /**
   * Waits until `count` SubscribeToTask streams have attached to this task, or `timeoutMs` passed:
   * scenarios that are watched go on only once their observers listen, so what each observer sees
   * does not depend on timing.
   */
  async untilAttached(count: number, timeoutMs: number): Promise<void> {
    await this.attachments.until(count, timeoutMs);
    this.throwIfCancelled();
  }

  /** Waits (bounded) for one more SubscribeToTask stream than attached so far: the reader following the task after an answer. */
  untilFollowed(timeoutMs: number): Promise<void> {
    return this.untilAttached(this.attachments.attached + 1, timeoutMs);
  }

  /**
   * The task store's view of a new status: the last status and its metadata. `perDelta`: the status
   * message it replaces goes to the history. `growing`: the new status message is in the history at
   * once — appended to the history message of the same messageId when there is one (its text grows
   * in place), else added — so the history holds each message once, with all its text so far.
   */
  private record(state: TaskStateName, status: Json, iac: Json): void {
    const message = status['message'] as Json | undefined;
    if (this.historyMode === 'growing') {
      if (message) this.grow(message);
    } else if (this.statusMessage) this.history.push(this.statusMessage);
    this.state = state;
    this.statusMessage = message;
    this.lastIac = iac;
  }

  private grow(message: Json): void {
    const textOf = (entry: Json): string => ((entry['parts'] as Array<{ text?: string }> | undefined) ?? []).map((part) => part.text ?? '').join('');
    const index = this.history.findIndex((entry) => entry['messageId'] === message['messageId']);
    const kept = this.history[index];
    if (kept === undefined) {
      this.history.push({ ...message, parts: [{ text: textOf(message) }] });
      return;
    }
    this.history[index] = { ...kept, parts: [{ text: textOf(kept) + textOf(message) }] };
  }

  private publish(event: Parameters<ExecutionEventBus['publish']>[0], state?: TaskStateName): void {
    if (!this.streamOpen) return;
    this.bus.publish(event);
    if (state && STREAM_ENDS.has(state)) this.streamOpen = false;
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

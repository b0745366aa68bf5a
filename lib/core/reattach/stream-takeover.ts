/**
 * Following the task of a run taken over (docs/protocol.md §6.15 "Takeover"): SubscribeToTask —
 * whose first item is the task with its whole history — and, when that cannot attach (the task
 * already stopped) or breaks, GetTask. Text comes only from the task's history (kernel-text.ts):
 * the deltas after the run's text cursor, caught up from every snapshot and from a GetTask made
 * when live updates say more text exists (at most every 250 ms, and always before any other signal
 * and at the end) — each such GetTask asks only for the history's newest messages and joins them
 * onto what it read before (history-window.ts). Every other signal of a live update — tools, usage, inputs, pipeline — is mapped
 * as the run maps it. The run ends as a run does (lib/core/run/run-ending.ts).
 */
import { agentText, type InboundItem, unwrapItem, unwrapTask } from '../a2a/inbound.js';
import type { WireMessage, WireStreamItem } from '../a2a/wire-types.js';
import { errorFields } from '../error-fields.js';
import type { RequiredInput } from '../interrupts/inputs.js';
import { KernelRpcError } from '../ports.js';
import { absorbIdentities, absorbItem, isStopState, type StreamResult } from '../run/consume-stream.js';
import { ReadAhead } from '../run/read-ahead.js';
import { finishRun } from '../run/run-ending.js';
import { RunFailure } from '../run/run-failure.js';
import type { RunSession } from '../run/run-session.js';
import { agentTextMessages } from '../translate/text-cursor.js';
import { joinWindow, windowFor } from './history-window.js';
import { textAfter, withoutFailureText, withoutText } from './kernel-text.js';

/** GetTask's historyLength for "all of it": a task's history is bounded by its turn, far below this. */
const WHOLE_HISTORY = 1_000_000;
/** The longest text waits for a GetTask while live updates say it exists. */
const TEXT_SYNC_MS = 250;
/** Live updates a history window allows for beyond those counted (history-window.ts). */
const SEAM_SLACK = 2;
/** A2A's JSON-RPC code for an unknown task. */
const TASK_NOT_FOUND = -32001;

export async function streamTakeover(session: RunSession, signal: AbortSignal): Promise<void> {
  const taskId = session.taskId;
  if (!taskId) throw new RunFailure('EXECUTION_LOST', 'executionLostTask', false);
  const text = new KernelText(session, taskId, signal);
  let result: StreamResult | undefined;
  try {
    result = await follow(session, session.kernel.subscribeToTask(taskId, { signal }), text);
  } catch (error) {
    if (signal.aborted || error instanceof RunFailure) throw error;
    session.deps.logger.info('the task subscription of a takeover failed; reading the task', { error: errorFields(error) });
  }
  result ??= await lastSnapshot(session, text);
  signal.throwIfAborted();
  await finishRun(session, result);
}

async function follow(session: RunSession, stream: AsyncIterable<WireStreamItem>, text: KernelText): Promise<StreamResult | undefined> {
  let lastState: string | undefined;
  const items = new ReadAhead(stream);
  try {
    for (;;) {
      const next = await text.raceWithSync(items.next());
      if (next.done) return undefined;
      const item = unwrapItem(next.value);
      if (!isStopState(item.state)) items.readNext();
      text.counted(item);
      await absorbIdentities(session, item);
      if (item.kind === 'task') text.caughtUp(item);
      else if (agentText(item.statusMessage) !== undefined) text.more();
      const stops = isStopState(item.state);
      // The end reads the history once more, whatever the updates said: one whose text fell in the
      // seam between the subscription's first snapshot and its live updates was never seen (file seed 69).
      if (stops) text.more();
      if (stops && item.state !== undefined && FAILED_STATES.has(item.state)) text.failedWith(item.statusMessage);
      // Text streamed before this signal goes out before it.
      if (stops || hasSignals(item)) await text.sync();
      const inputs: RequiredInput[] = absorbItem(session, withoutText(item));
      if (item.state) lastState = item.state;
      if (inputs.length > 0 || stops) {
        await text.sync();
        return { lastState, sawItem: true, newInputs: inputs };
      }
    }
  } finally {
    await items.close();
  }
}

/** The subscription could not attach, broke or ended: the task as it is now decides — all of its history (what it added unseen is not counted). */
async function lastSnapshot(session: RunSession, text: KernelText): Promise<StreamResult> {
  const item = await text.snapshot(false);
  const inputs = absorbItem(session, withoutText(item));
  if (inputs.length === 0 && !isStopState(item.state)) throw new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', false);
  return { lastState: item.state, sawItem: true, newInputs: inputs };
}

/** Whether an item carries anything besides text that the run maps. */
function hasSignals(item: InboundItem): boolean {
  return Object.keys(item.iac).some((key) => key !== 'iacCodeSessionId') || item.artifacts.length > 0;
}

/** States whose status message is the kernel's account of a failure, reported by the RUN_ERROR (run-translator.ts). */
const FAILED_STATES = new Set(['failed', 'rejected', 'auth-required']);

class KernelText {
  private due = false;
  private lastSync = 0;
  private failure: WireMessage | undefined;
  /** The task's whole history as last read, and the live updates since: each adds at most one history message. */
  private history: WireMessage[] | undefined;
  private updates = 0;

  /** The run ends with this failure: its reason is not text, wherever the history put it. */
  failedWith(message: WireMessage | undefined): void {
    this.failure = message;
    this.due = true;
  }

  constructor(
    private readonly session: RunSession,
    private readonly taskId: string,
    private readonly signal: AbortSignal,
  ) {}

  /** A live update carried text: the history has it (the kernel stores before it fans out). */
  more(): void {
    this.due = true;
  }

  /** A snapshot with the whole history: the deltas after the cursor, now. */
  caughtUp(task: InboundItem): void {
    if (task.historyOmitted) {
      // Too large to come with the subscription (sse-history-trim.ts): read with GetTask at once.
      this.history = undefined;
      this.updates = 0;
      this.due = true;
      return;
    }
    this.history = task.history;
    this.updates = 0;
    this.emitAfterCursor(task);
    this.due = false;
  }

  /** A live update of the subscription (not its first snapshot): the history may have one more message. */
  counted(item: InboundItem): void {
    if (item.kind !== 'task') this.updates += 1;
  }

  async sync(): Promise<void> {
    if (!this.due) return;
    this.emitAfterCursor(await this.snapshot(true));
    this.due = false;
  }

  /**
   * The task now, with its whole history: while the live updates since the last read are counted
   * (`counted`), only its newest messages, joined onto the history read before; all of it when the
   * join is not certain or the count is not known.
   */
  async snapshot(counted: boolean): Promise<InboundItem> {
    this.lastSync = this.session.deps.clock();
    const updates = this.updates;
    this.updates = 0;
    let item: InboundItem | undefined;
    if (this.history && counted) {
      // Two more than counted: the subscription's seam with its first snapshot may hide an update.
      const asked = windowFor(updates + SEAM_SLACK);
      const windowed = await this.getTask(asked);
      const history = joinWindow(this.history, windowed.history, asked);
      if (history) item = { ...windowed, history };
      else this.session.deps.logger.debug('the newest history did not join onto the known one; reading all of it', { asked });
    }
    item ??= await this.getTask(WHOLE_HISTORY);
    this.history = item.history;
    this.emitAfterCursor(item);
    return item;
  }

  private async getTask(historyLength: number): Promise<InboundItem> {
    const task = await this.session.kernel.getTask(this.taskId, historyLength, { signal: this.signal }).catch((error: unknown) => {
      if (error instanceof KernelRpcError && error.rpcCode === TASK_NOT_FOUND) throw new RunFailure('EXECUTION_LOST', 'observedTaskLost', false, { cause: error });
      throw error;
    });
    return unwrapTask(task);
  }

  /** The next item; while text is due, a sync when none comes within TEXT_SYNC_MS of the last one. */
  async raceWithSync<T>(next: Promise<T>): Promise<T> {
    for (;;) {
      if (!this.due) return next;
      const wait = Math.max(0, TEXT_SYNC_MS - (this.session.deps.clock() - this.lastSync));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const tick = new Promise<'tick'>((resolve) => {
        timer = setTimeout(() => resolve('tick'), wait);
      });
      const winner = await Promise.race([next, tick]);
      clearTimeout(timer);
      if (winner !== 'tick') return winner as T;
      await this.sync();
    }
  }

  private emitAfterCursor(task: InboundItem): void {
    const messages = withoutFailureText(agentTextMessages(task), this.failure ?? (task.state && FAILED_STATES.has(task.state) ? task.statusMessage : undefined));
    const { translator } = this.session;
    for (const text of textAfter(messages, translator.textCursor)) this.session.emitAll(translator.applyRegenerated(text));
  }
}

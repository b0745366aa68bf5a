/**
 * Reads one A2A stream for a run (docs/protocol.md §7.4, §5.1, §7.7): checks identities, makes new
 * identities durable before anything reveals them, translates signals into events, and stops at
 * the first new required input or at a state that ends the turn.
 */
import { agentText, type InboundItem, TERMINAL_STATES, unwrapItem } from '../a2a/inbound.js';
import type { WireStreamItem } from '../a2a/wire-types.js';
import { type RequiredInput, requiredInputs } from '../interrupts/inputs.js';
import { isApplied } from '../thread/interrupt-transitions.js';
import { recordIdentities as withIdentities } from '../thread/run-transitions.js';
import type { ApplyOptions } from '../translate/run-translator.js';
import { ReadAhead } from './read-ahead.js';
import { protocolViolation } from './run-failure.js';
import type { RunSession } from './run-session.js';

/** States that end a run's reading of the stream: iac-code parks a finished turn in input-required. */
export const STOP_STATES = new Set([...TERMINAL_STATES, 'input-required']);

export interface StreamResult {
  lastState: string | undefined;
  /** At least one item arrived (a resume answer is accepted on its first event). */
  sawItem: boolean;
  /** Required inputs that are neither pending nor answered: the run ends as an interrupt. */
  newInputs: RequiredInput[];
}

export interface ConsumeOptions {
  /** Runs once, after the first item's identities check out and before anything is emitted for it. */
  onAccepted?: () => Promise<void>;
  /**
   * The stream attaches to a task already running (SubscribeToTask): its `task` items are
   * snapshots, mapped as followedItemText says.
   */
  attached?: boolean;
}

export async function consumeStream(session: RunSession, stream: AsyncIterable<WireStreamItem>, options: ConsumeOptions = {}): Promise<StreamResult> {
  let lastState: string | undefined;
  let sawItem = false;
  let held: IdentityChange | undefined;
  const items = new ReadAhead(stream);
  try {
    for (;;) {
      const next = await items.next();
      if (next.done) break;
      const item = unwrapItem(next.value);
      // The following item is received while this one's writes are awaited; its events still
      // come after them (read-ahead.ts). A stop state ends the stream: nothing to read ahead.
      if (!isStopState(item.state)) items.readNext();
      const change = identityChange(session, item);
      if (change && holdsTaskId(session, item, change)) {
        // Known (and cancellable) from now on, durable with the next item's identities.
        session.taskId = change.taskId;
        held = change;
      } else if (change || held) {
        await recordIdentities(session, { taskId: held?.taskId ?? change?.taskId, sessionId: change?.sessionId });
        held = undefined;
      }
      if (!sawItem) {
        sawItem = true;
        await options.onAccepted?.();
      }
      const newInputs = absorbItem(session, item, options.attached ? followedItemText(item) : LIVE_ITEM);
      if (item.state) lastState = item.state;
      if (newInputs.length > 0) return { lastState, sawItem, newInputs };
      if (isStopState(item.state)) break;
    }
  } finally {
    await items.close();
  }
  return { lastState, sawItem, newInputs: [] };
}

const LIVE_ITEM: ApplyOptions = { statusText: true };

/** Emits an item's events and returns the new required inputs it announces. */
export function absorbItem(session: RunSession, item: InboundItem, text: ApplyOptions = LIVE_ITEM): RequiredInput[] {
  if (session.taskId && session.sessionId) session.emitSessionOnce();
  session.emitAll(session.translator.apply(item, text));
  return newRequiredInputs(session, item);
}

/** Inputs not yet pending and not already answered in this execution (docs/protocol.md §5.1). */
export function newRequiredInputs(session: RunSession, item: InboundItem): RequiredInput[] {
  const inputs = requiredInputs(item.iac);
  // Most items (every text delta) announce none: nothing to compare.
  if (inputs.length === 0) return inputs;
  const document = session.thread.document;
  const pending = new Set(document.execution.pending.map((entry) => entry.id));
  for (const input of inputs) {
    const requestTaskId = input.input['requestTaskId'];
    if (typeof requestTaskId === 'string' && requestTaskId !== session.taskId) throw protocolViolation(`input ${input.id} belongs to task ${requestTaskId}`);
    const contextId = input.input['contextId'];
    if (typeof contextId === 'string' && contextId !== document.contextId) throw protocolViolation(`input ${input.id} belongs to context ${contextId}`);
  }
  return inputs.filter((input) => !pending.has(input.id) && !isApplied(document, input.id));
}

/**
 * Identity rules (docs/protocol.md §7.6): the context must be the thread's; the first task id is kept and
 * never changes; a session id seen in this run never changes. New ids are committed before
 * returning, so no event can reveal an id that is not durable.
 */
export async function absorbIdentities(session: RunSession, item: InboundItem): Promise<void> {
  const change = identityChange(session, item);
  if (change) await recordIdentities(session, change);
}

interface IdentityChange {
  taskId: string | undefined;
  sessionId: string | undefined;
}

/**
 * The ids this item brings that the run has not recorded yet, checked against the rules above;
 * undefined for the usual item, which brings none — decided without a promise, since every text
 * delta passes here (docs/architecture.md §2.3).
 */
function identityChange(session: RunSession, item: InboundItem): IdentityChange | undefined {
  const document = session.thread.document;
  if (item.contextId && item.contextId !== document.contextId) throw protocolViolation(`context ${item.contextId} is not the thread's`);
  let taskId: string | undefined;
  if (item.taskId && item.taskId !== session.taskId) {
    if (session.taskId) throw protocolViolation(`task id changed from ${session.taskId} to ${item.taskId}`);
    taskId = item.taskId;
  }
  let sessionId: string | undefined;
  if (item.sessionId && item.sessionId !== session.sessionId) {
    if (session.sessionSeenInRun) throw protocolViolation(`session id changed to ${item.sessionId}`);
    sessionId = item.sessionId;
  }
  if (item.sessionId) session.sessionSeenInRun = true;
  return taskId || sessionId ? { taskId, sessionId } : undefined;
}

/**
 * The kernel names a new turn's task on its first item — a task without metadata that shows
 * nothing — and the session only on the next: such a task id is held until that item, and both
 * become durable in one write (docs/protocol.md §6.9). Until then the run knows the task (a failure
 * cancels it, §2.4), as it does between sending its message and the first item.
 */
function holdsTaskId(session: RunSession, item: InboundItem, change: IdentityChange): boolean {
  if (change.taskId === undefined || change.sessionId !== undefined || session.sessionId !== undefined) return false;
  if (item.kind !== 'task' || isStopState(item.state) || item.statusMessage !== undefined || item.artifacts.length > 0) return false;
  return Object.keys(item.iac).length === 0 && item.history.every((message) => agentText(message) === undefined);
}

async function recordIdentities(session: RunSession, change: IdentityChange): Promise<void> {
  // Adopt the task id before writing: if the write fails the run still knows which task to cancel.
  if (change.taskId) session.taskId = change.taskId;
  await session.thread.update((current) => withIdentities(current, change));
  if (change.sessionId) session.sessionId = change.sessionId;
}

export function isStopState(state: string | undefined): boolean {
  return state !== undefined && STOP_STATES.has(state);
}

/**
 * Whether a task snapshot's status text is mapped (docs/protocol.md §5.6): only once the task
 * stopped, when it is the whole final answer. While the task works its status message is just the
 * latest streamed delta — already delivered, or followed by the deltas a subscription brings — so
 * mapping it would repeat or garble text. Status updates are always mapped.
 */
export function snapshotStatusText(item: InboundItem): boolean {
  return item.kind !== 'task' || isStopState(item.state);
}

/**
 * How a run maps what it reads while following its task after an answer (docs/protocol.md §5.6):
 * as snapshotStatusText says, except that a snapshot of the working task still gives its history
 * text. The kernel ends an answer's stream while the task works on, and what it says before the
 * subscription attaches reaches no stream: the history holds every delta so far, the text digests
 * drop what the caller already saw (§4.6), and only while this run has shown no text yet (§4.5).
 * The subscription's repeat of the snapshot's latest delta is dropped by the translator.
 */
export function followedItemText(item: InboundItem): ApplyOptions {
  return snapshotStatusText(item) ? LIVE_ITEM : { statusText: false, historyText: true };
}

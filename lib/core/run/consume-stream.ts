/**
 * Reads one A2A stream for a run (contract §B.1, §B.8): checks identities, makes new identities
 * durable before anything reveals them, translates signals into events, and reports the last
 * state so the caller can decide how the run ends.
 */
import { TERMINAL_STATES, unwrapItem, type InboundItem } from '../a2a/inbound.js';
import type { WireStreamItem } from '../a2a/wire-types.js';
import { recordIdentities } from '../thread/run-transitions.js';
import { protocolViolation } from './run-failure.js';
import type { RunSession } from './run-session.js';

/** States that end a run's reading of the stream: iac-code parks a finished turn in input-required. */
const STOP_STATES = new Set([...TERMINAL_STATES, 'input-required']);

export interface StreamResult {
  lastState: string | undefined;
  /** At least one item arrived (a resume answer counts as accepted on its first event). */
  sawItem: boolean;
}

export async function consumeStream(session: RunSession, stream: AsyncIterable<WireStreamItem>): Promise<StreamResult> {
  let lastState: string | undefined;
  let sawItem = false;
  for await (const raw of stream) {
    sawItem = true;
    const item = unwrapItem(raw);
    await absorbIdentities(session, item);
    if (session.taskId && session.sessionId) session.emitSessionOnce();
    session.emitAll(session.translator.apply(item));
    if (item.state) lastState = item.state;
    if (item.state && STOP_STATES.has(item.state)) break;
  }
  return { lastState, sawItem };
}

/**
 * Identity rules (contract §B.1): the context must be the thread's; the first task id is kept and
 * never changes; a session id seen in this run never changes. New ids are committed before
 * returning, so no event can reveal an id that is not durable.
 */
export async function absorbIdentities(session: RunSession, item: InboundItem): Promise<void> {
  const document = session.thread.document;
  if (item.contextId && item.contextId !== document.contextId) throw protocolViolation(`context ${item.contextId} is not the thread's`);
  let newTaskId: string | undefined;
  if (item.taskId && item.taskId !== session.taskId) {
    if (session.taskId) throw protocolViolation(`task id changed from ${session.taskId} to ${item.taskId}`);
    newTaskId = item.taskId;
  }
  let newSessionId: string | undefined;
  if (item.sessionId && item.sessionId !== session.sessionId) {
    if (session.sessionSeenInRun) throw protocolViolation(`session id changed to ${item.sessionId}`);
    newSessionId = item.sessionId;
  }
  if (item.sessionId) session.sessionSeenInRun = true;
  if (!newTaskId && !newSessionId) return;
  // Adopt the task id before writing: if the write fails the run still knows which task to cancel.
  if (newTaskId) session.taskId = newTaskId;
  await session.thread.update((current) => recordIdentities(current, { taskId: newTaskId, sessionId: newSessionId }));
  if (newSessionId) session.sessionId = newSessionId;
}

/**
 * Whether and how a subscriber may follow an execution (docs/protocol.md §6.14, §6.15), decided
 * before the stream from the stored thread and the execution's journal: 404 / 409 / 503 as HTTP
 * JSON, never a stream that ends at once.
 *
 * - With a position (an event id): the execution must be the thread's current one, or an ended one
 *   the thread still names (its journal may still hold what the reader missed); identities as for
 *   an observation; an id some producer of the execution handed out (not an observation's epoch 0,
 *   not a future epoch, not past what the producer on this instance placed); and the journal must
 *   still hold the position's epoch, unless a run of the execution is live (it may not have
 *   journaled the position yet) — else 409 `EVENT_ID_EXPIRED`.
 * - Without one: the rules of an observation (a live task, §6.14). The current run is replayed from
 *   the journal when it holds the run's start or the run is live (its start goes with its first
 *   write that must land); otherwise — a run from before the journal, or one whose journal
 *   expired — the execution is observed from the kernel's snapshot, as always.
 */
import { AdapterError } from '../errors.js';
import type { JournalBatch } from '../journal/batch.js';
import { canonicalOrder, continuationAfter } from '../journal/canonical.js';
import type { Position } from '../journal/position.js';
import { decideObservation, type Observation } from '../observe/observable.js';
import type { ObservationRequest } from '../observe/observation-request.js';
import { StoreError, type ThreadStore } from '../ports.js';
import { readThread } from '../thread/compare-and-swap.js';
import type { ThreadDocument } from '../thread/document.js';
import { ownValue } from '../thread/keyed-record.js';
import { answeredAsMissing, foreignTo } from '../thread/ownership.js';

export type Reattach = { kind: 'journal'; document: ThreadDocument; batches: JournalBatch[]; position: Position | undefined } | { kind: 'snapshot'; observation: Observation };

/** The run this instance produces for the execution, if any: its epoch and the last seq it placed. */
export interface LocalProducer {
  epoch: number;
  lastSeq: number;
}

export async function admitReattach(store: ThreadStore, request: ObservationRequest, position: Position | undefined, local: LocalProducer | undefined): Promise<Reattach> {
  const localEpoch = local?.epoch;
  const document = await read(store, request.threadId);
  // Another person's thread is no thread (docs/protocol.md §6.3): the answers below for a missing one.
  const foreign = foreignTo(document, request.caller);
  if (foreign) {
    const missing =
      !store.journal && position !== undefined ? new AdapterError('EVENT_ID_EXPIRED', 'eventIdExpired') : new AdapterError('EXECUTION_NOT_FOUND', 'executionNotObservable');
    throw answeredAsMissing(missing, foreign);
  }
  // A store without a journal (docs/protocol.md §6.15): observations from the kernel only, and no id to resume from.
  if (!store.journal) {
    if (position !== undefined) throw new AdapterError('EVENT_ID_EXPIRED', 'eventIdExpired');
    return { kind: 'snapshot', observation: decideObservation(document, request) };
  }
  if (position === undefined) {
    const observation = decideObservation(document, request);
    const batches = await readJournal(store, request);
    const order = canonicalOrder(batches);
    const runId = observation.document.activeRun?.runId;
    const replayable = [...order.epochs.values()].some((info) => info.start?.kind === 'run' && (runId === undefined || info.start.runId === runId));
    // A run live now journals its start with its first write that must land: followed through the journal even before that.
    const live = observation.document.activeRun !== null && observation.document.execution.executionId === request.executionId;
    return replayable || live || localEpoch !== undefined ? { kind: 'journal', document: observation.document, batches, position } : { kind: 'snapshot', observation };
  }
  if (!document) throw new AdapterError('EXECUTION_NOT_FOUND', 'executionNotObservable');
  checkIdentity(document, request);
  const current = document.execution.executionId === request.executionId;
  // Ids no producer handed out for this execution's journal (docs/protocol.md §6.15): an observation's
  // (epoch 0), a future epoch, or past what the producer here has placed — refused as on an ended run.
  const unknown =
    position.epoch === 0 ||
    (current && position.epoch > (document.execution.journalEpoch ?? 0)) ||
    (local !== undefined && position.epoch === local.epoch && position.seq > local.lastSeq);
  if (unknown) throw new AdapterError('EVENT_ID_EXPIRED', 'eventIdExpired');
  const batches = await readJournal(store, request);
  const live = document.activeRun !== null && current;
  // The local producer's own epoch is answered from its log; every other from the journal.
  if (localEpoch === undefined || position.epoch !== localEpoch) {
    const continuation = continuationAfter(canonicalOrder(batches), position);
    if (continuation.kind === 'expired' || (continuation.kind === 'ahead' && !live)) throw new AdapterError('EVENT_ID_EXPIRED', 'eventIdExpired');
  }
  return { kind: 'journal', document, batches, position };
}

/** The execution is the current one, or an ended one of this thread, under the same invocation; the run was admitted here. */
function checkIdentity(document: ThreadDocument, request: ObservationRequest): void {
  const { execution } = document;
  const invocation = request.executionId === execution.executionId ? execution.rosInvocationId : ownValue(document.terminalExecutions, request.executionId);
  if (invocation !== request.rosInvocationId || document.runDigests[request.runId] === undefined) {
    throw new AdapterError('OBSERVATION_IDENTITY_CHANGED', 'observationIdentityChanged');
  }
}

async function read(store: ThreadStore, threadId: string): Promise<ThreadDocument | undefined> {
  try {
    return (await readThread(store, threadId)).document;
  } catch (error) {
    if (error instanceof StoreError) throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
    throw error;
  }
}

async function readJournal(store: ThreadStore, request: ObservationRequest): Promise<JournalBatch[]> {
  try {
    return (await store.journal?.read(request.threadId, request.executionId)) ?? [];
  } catch (error) {
    if (error instanceof StoreError) throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
    throw error;
  }
}

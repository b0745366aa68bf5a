/**
 * The one read-decide-write loop over the thread store (docs/architecture.md §3): read the thread,
 * let the caller decide from what it read, write the decision as the next revision; when another
 * writer got there first (a StoreError of kind `conflict`), read again and decide again. Admission,
 * the cancel endpoint and a run's thread handle all write through it, with one retry limit.
 *
 * A store that remembers what it last saw (ThreadStore.cached, e.g. the OSS driver) saves the first
 * read: the first decision is made on that memory, unconfirmed. Only a decision to write may stand
 * on it — the save is the compare-and-swap that proves the memory current, or meets a conflict and
 * reads — while a refusal, or a decision to write nothing, is made again on a fresh load, so no
 * caller is ever refused on stale state (docs/state-store.md "Load").
 *
 * What leaves here: the caller's own errors from `decide`, untouched; every store failure as a
 * StoreError — a thread that kept changing through every attempt as kind `unavailable`, and
 * anything a driver throws outside the family wrapped as `unavailable` too.
 */
import { StoreError, StoreUnavailableError, type ThreadStore } from '../ports.js';
import type { ThreadDocument } from './document.js';
import { parseThreadDocument } from './parse-document.js';

/** Writes tried per update before the thread counts as unavailable. */
export const MAX_CAS_ATTEMPTS = 8;

/** A thread as read: `document` undefined (revision 0) when it has never been saved. */
export interface ThreadState {
  document: ThreadDocument | undefined;
  revision: number;
}

/** Write `write` as the next revision and answer `value`; or write nothing and answer `value`. */
export type CasDecision<T> = { write: ThreadDocument; value: T } | { value: T; write?: undefined };

export interface CasOutcome<T> {
  value: T;
  /** The thread after the update: what was written, or what was read when nothing was. */
  state: ThreadState;
  /** A revision was written. */
  written: boolean;
}

export interface CasOptions {
  /** A state already read (a run's cached document): the first decision is made on it, unread. */
  start?: ThreadState;
}

/** Loads and validates one thread; any failure leaves as a StoreError. */
export async function readThread(store: ThreadStore, threadId: string): Promise<ThreadState> {
  const stored = await storeCall(() => store.load(threadId), 'read');
  if (!stored) return { document: undefined, revision: 0 };
  return { document: parseThreadDocument(stored.document, threadId), revision: stored.revision };
}

/** What the store remembers of the thread, validated like a load; undefined when it remembers nothing usable. */
function rememberedThread(store: ThreadStore, threadId: string): ThreadState | undefined {
  try {
    const remembered = store.cached?.(threadId);
    return remembered ? { document: parseThreadDocument(remembered.document, threadId), revision: remembered.revision } : undefined;
  } catch {
    return undefined;
  }
}

export async function compareAndSwap<T>(store: ThreadStore, threadId: string, decide: (state: ThreadState) => CasDecision<T>, options: CasOptions = {}): Promise<CasOutcome<T>> {
  if (!options.start) {
    const optimistic = await fromRemembered(store, threadId, decide);
    if (optimistic) return optimistic;
  }
  let state = options.start ?? (await readThread(store, threadId));
  for (let attempt = 1; ; attempt += 1) {
    const decision = decide(state);
    if (decision.write === undefined) return { value: decision.value, state, written: false };
    const expected = state.revision;
    try {
      const revision = await storeCall(() => store.save(threadId, decision.write, expected), 'write');
      return { value: decision.value, state: { document: decision.write, revision }, written: true };
    } catch (error) {
      if (!(error instanceof StoreError) || error.kind !== 'conflict') throw error;
      if (attempt >= MAX_CAS_ATTEMPTS) throw new StoreUnavailableError(`The thread kept changing: ${attempt} writes in a row met a newer revision.`, { cause: error });
    }
    state = await readThread(store, threadId);
  }
}

/**
 * The decision on what the store remembers, written when it is a write: the outcome when that save
 * commits; undefined — read and decide as usual — when the store remembers nothing, the decision
 * is a refusal or writes nothing, or the save meets a conflict (the memory was stale).
 */
async function fromRemembered<T>(store: ThreadStore, threadId: string, decide: (state: ThreadState) => CasDecision<T>): Promise<CasOutcome<T> | undefined> {
  const remembered = rememberedThread(store, threadId);
  if (!remembered) return undefined;
  let decision: CasDecision<T>;
  try {
    decision = decide(remembered);
  } catch {
    return undefined;
  }
  if (decision.write === undefined) return undefined;
  try {
    const revision = await storeCall(() => store.save(threadId, decision.write, remembered.revision), 'write');
    return { value: decision.value, state: { document: decision.write, revision }, written: true };
  } catch (error) {
    if (error instanceof StoreError && error.kind === 'conflict') return undefined;
    throw error;
  }
}

/** A driver keeps to the family (ports.ts); anything else it throws still leaves as a StoreError. */
async function storeCall<T>(call: () => Promise<T>, action: 'read' | 'write'): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreUnavailableError(`Cannot ${action} thread state.`, { cause: error });
  }
}

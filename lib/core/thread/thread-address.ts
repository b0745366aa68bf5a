/**
 * Where a thread id leads (docs/protocol.md §6.3 "Namespaces", §6.11): the one place that turns a
 * caller and a thread id into the thread's storage and A2A context. Every route that names a thread —
 * run, resume, guidance, cancel, subscribe, Last-Event-ID reattach, the thread reads — and the sweeper
 * reach the store through `threadStoreFor` / `threadStoreAt`, so they all resolve a thread id alike.
 *
 * - A **service** (the shared token) addresses the shared namespace: the thread id alone, keyed by
 *   `threadKey` (thread-key.ts) and with `contextIdFor` (a2a/outbound.ts), byte for byte what every
 *   version before stored and what iac-code's own adapter computes. A declared `userId` never moves
 *   it: that stays a binding check (§6.3).
 * - A **person** addresses their own namespace: the pair (their user id, the thread id). Two people's
 *   thread "t1" are two threads with two kernel contexts, so a new turn under an id someone else uses
 *   starts the caller's own thread and shows nothing of the other (issue 27).
 *
 * The namespace is a SHA-256 of the user id (never the id itself), so file and object names say no
 * more of a person than the log's `user` hash does: nothing, unless the id is guessed.
 */
import { contextIdFor } from '../a2a/outbound.js';
import type { Caller } from '../caller.js';
import { sha256Hex } from '../hash.js';
import type { JournalBatch } from '../journal/batch.js';
import type { BatchKey, DueEntry, EventJournal, StoredDocument, ThreadRef, ThreadStore } from '../ports.js';
import { threadKey } from './thread-key.js';

/** The longest key of any kind (docs/protocol.md §6.11): the file driver's names stay within 255 bytes. */
const MAX_KEY = 200;
/** Person keys start so; no shared key can (a raw id has no `~`, the encoded ones start `aguiid~`/`aguihash~`). */
const PERSON_PREFIX = 'aguiuser~';
const NAMESPACE = /^[0-9a-f]{64}$/;

/** A person's namespace: 64 hex characters of a SHA-256 of their user id, domain-separated from the log's `userIdHash`. */
export function personNamespace(userId: string): string {
  return sha256Hex(`iac-code-agui thread namespace\n${userId}`);
}

/** Whether a string is a namespace `personNamespace` could have made (due entries are read back from storage). */
export function isNamespace(value: unknown): value is string {
  return typeof value === 'string' && NAMESPACE.test(value);
}

/** The caller's namespace: none (the shared one) for a service, their own for a person. */
export function namespaceOf(caller: Caller): string | undefined {
  return caller.kind === 'person' ? personNamespace(caller.userId) : undefined;
}

/**
 * The storage key of a thread (docs/protocol.md §6.11): `threadKey(threadId)` in the shared namespace;
 * `aguiuser~<namespace>~<threadKey(threadId)>` in a person's, or `aguiuser~<namespace>~aguihash~<SHA-256
 * of the id>` when that would pass 200 characters. Every key is a safe file name of at most 200.
 */
export function storageKey(thread: ThreadRef): string {
  if (typeof thread === 'string') return threadKey(thread);
  const base = `${PERSON_PREFIX}${thread.namespace}~`;
  const key = base + threadKey(thread.threadId);
  return key.length <= MAX_KEY ? key : `${base}aguihash~${sha256Hex(thread.threadId)}`;
}

/**
 * The thread's A2A context id (docs/protocol.md §6.1): `contextIdFor(threadId)` in the shared namespace;
 * in a person's, `aguiu-` + the first 40 hex of SHA-256(namespace + "\n" + threadId) — its sixth
 * character is never the shared form's (`agui-` + hex), so no service thread shares a person's context.
 */
export function contextIdOf(threadId: string, namespace: string | undefined): string {
  return namespace === undefined ? contextIdFor(threadId) : `aguiu-${sha256Hex(`${namespace}\n${threadId}`).slice(0, 40)}`;
}

/** The store as the caller addresses it: the store itself for a service, a person's namespace of it for a person. */
export function threadStoreFor(store: ThreadStore, caller: Caller): ThreadStore {
  return threadStoreAt(store, namespaceOf(caller));
}

/**
 * The store seen from one namespace: thread ids given to it address that namespace (undefined: the
 * shared one, the store itself). Its journal's due entries carry the namespace, so the sweeper —
 * which reads the due list of the whole store — comes back to the same thread (lib/core/reattach/sweeper.ts).
 */
export function threadStoreAt(store: ThreadStore, namespace: string | undefined): ThreadStore {
  if (namespace === undefined) return store;
  const ref = at(namespace);
  const journal = store.journal;
  const cached = store.cached;
  return {
    kind: store.kind,
    load: (thread: ThreadRef): Promise<StoredDocument | undefined> => store.load(ref(thread)),
    save: (thread: ThreadRef, document: unknown, expected: number): Promise<number> => store.save(ref(thread), document, expected),
    ...(cached ? { cached: (thread: ThreadRef) => cached.call(store, ref(thread)) } : {}),
    ...(journal ? { journal: journalAt(journal, namespace) } : {}),
  };
}

function journalAt(journal: EventJournal, namespace: string): EventJournal {
  const ref = at(namespace);
  const entry = (due: DueEntry): DueEntry => ({ ...due, namespace });
  return {
    append: (thread: ThreadRef, batch: JournalBatch) => journal.append(ref(thread), batch),
    read: (thread: ThreadRef, executionId: string, after?: BatchKey) => journal.read(ref(thread), executionId, after),
    remove: (thread: ThreadRef, executionId: string, throughEpoch?: number) => journal.remove(ref(thread), executionId, throughEpoch),
    schedule: (due: DueEntry, replacing?: DueEntry) => journal.schedule(entry(due), replacing && entry(replacing)),
    unschedule: (due: DueEntry) => journal.unschedule(entry(due)),
    due: (now: number, limit: number) => journal.due(now, limit),
  };
}

/** A thread id of the view, placed in its namespace; a ref already placed is kept (the core only ever hands a view ids). */
function at(namespace: string): (thread: ThreadRef) => ThreadRef {
  return (thread) => (typeof thread === 'string' ? { threadId: thread, namespace } : thread);
}

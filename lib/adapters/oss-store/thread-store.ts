/**
 * OSS driver of the thread store (docs/architecture.md §3.5): compare-and-swap built from create-only
 * writes, because OSS PutObject honours no If-Match / If-None-Match — its one atomic write
 * condition is `x-oss-forbid-overwrite: true`. The algorithm, its crash windows and why each is
 * safe are in docs/state-store.md; in brief:
 *
 * - one immutable object per revision (keys.ts), listed newest-first;
 * - load = list the newest revision name (max-keys=1) + GET it — no GET when this instance
 *   remembers that revision's bytes; no overwritable pointer exists;
 * - save(expected) = create revision expected+1 with forbid-overwrite (409 = conflict), then prove
 *   it a commit: by time (hold.ts) when the base was known newest shortly before the create was
 *   answered, else by VERIFY: when a newer revision already exists, the create may have filled a
 *   gap left by pruning (a stalled writer), so it counts only if revision expected+2 names our
 *   writeId as its previousWriteId; otherwise it is a conflict and the orphan is deleted;
 * - a create whose answer was lost is settled by reading the object back: our writeId → ours;
 * - every KEEP-th revision prunes the revisions at or below revision − KEEP (never the newest),
 *   under the hold only those below a revision older than the hold, in the background.
 *
 * The class's defaults (no hold, no remembered documents) are the driver as it was before issue 13:
 * every save verifies with a listing — what the driver tests of the verify path exercise.
 * OssStoreProvider, the one production path, turns both on (docs/state-store.md "The hold").
 *
 * Every failure leaves as a StoreError (docs/architecture.md §3): conflict, corrupt or unavailable.
 */
import { randomUUID } from 'node:crypto';
import { StoreConflictError, StoreCorruptError, type StoredDocument, StoreError, StoreUnavailableError, type ThreadRef, type ThreadStore } from '../../core/ports.js';
import { decodeEnvelope, type Envelope, encodeEnvelope } from './envelope.js';
import { OssRequestError } from './errors.js';
import { hasEtag } from './etag.js';
import { type Hold, provenByTime, prunable } from './hold.js';
import { revisionKey, revisionsPrefix } from './keys.js';
import { type ListingContext, listRevisions, newestRevision, revisionKeysAtOrBelow } from './listing.js';
import type { OssObjects } from './objects.js';
import { OssEventJournal } from './oss-journal.js';
import { backOff, type RetryPolicy, withRetries } from './retry.js';
import { RevisionCache } from './revision-cache.js';

export interface OssStoreOptions {
  /** Object name prefix, without slashes at either end (IAC_CODE_AGUI_OSS_PREFIX, default "agui"). */
  prefix: string;
  /** Revisions kept per thread besides the ones written since the last prune; default 8. */
  keepRevisions?: number;
  /** Tries per request (and per create, each settled before the next); default 3. */
  attempts?: number;
  /** First retry back-off in ms; default 50. */
  backoffMs?: number;
  /** Largest listing page; default 1000 (OSS's maximum). */
  pageSize?: number;
  /** Shared between the stores of one provider: the last revision and writeId seen per thread. */
  cache?: RevisionCache;
  /**
   * The prune hold (hold.ts, docs/state-store.md "The hold"); default none: every save verifies
   * with a listing and prunes at once. Every writer of one bucket prefix must use the same hold.
   */
  hold?: Hold;
  /** Remember the bytes of the newest revision seen per thread (load without a GET, cached()); default off. */
  rememberDocuments?: boolean;
}

/** A committed create and what it proved. */
interface Committed {
  /** A server time at which our revision was the newest (the next save's base), if known. */
  newestAt: number | undefined;
}

/** How often load re-lists when the newest revision was pruned between its listing and its GET. */
const MAX_LOAD_ROUNDS = 4;
const DELETE_BATCH = 1000;

export class OssThreadStore implements ThreadStore {
  readonly kind = 'oss' as const;
  private readonly prefix: string;
  private readonly keep: number;
  private readonly retry: RetryPolicy;
  private readonly listing: ListingContext;
  private readonly cache: RevisionCache;
  private readonly hold: Hold;
  private readonly rememberDocuments: boolean;
  /** Prunes running in the background (under the hold), one per thread at most. */
  private readonly pruning = new Map<string, Promise<void>>();
  /** The event journal on the same bucket and credentials (oss-journal.ts). */
  readonly journal: OssEventJournal;

  constructor(
    private readonly objects: OssObjects,
    options: OssStoreOptions,
  ) {
    this.prefix = options.prefix;
    this.keep = options.keepRevisions ?? 8;
    if (!Number.isInteger(this.keep) || this.keep < 1) throw new RangeError('keepRevisions must be a positive integer');
    this.retry = { attempts: Math.max(1, options.attempts ?? 3), backoffMs: options.backoffMs ?? 50 };
    this.listing = { objects, retry: this.retry, pageSize: Math.min(1000, Math.max(1, options.pageSize ?? 1000)) };
    this.cache = options.cache ?? new RevisionCache();
    this.hold = options.hold ?? { holdMs: 0, marginMs: 0, proveByTime: false };
    if (this.hold.holdMs > 0 && !(this.hold.marginMs >= 0 && this.hold.marginMs < this.hold.holdMs)) throw new RangeError('the hold margin must be below the hold');
    this.rememberDocuments = options.rememberDocuments ?? false;
    this.journal = new OssEventJournal(objects, this.prefix, this.retry);
  }

  async load(thread: ThreadRef): Promise<StoredDocument | undefined> {
    const prefix = revisionsPrefix(this.prefix, thread);
    try {
      let mismatch: string | undefined;
      for (let round = 0; round < MAX_LOAD_ROUNDS; round += 1) {
        const { revision: newest, listedAt, etag } = await newestRevision(this.listing, prefix);
        if (newest === undefined) {
          if (this.hold.holdMs > 0) this.cache.remember(prefix, { revision: 0, writeId: null, newestAt: listedAt });
          return undefined;
        }
        const newestAt = this.hold.holdMs > 0 ? listedAt : undefined;
        // The newest revision is the committed one (I3), whose bytes the driver never changes: remembered
        // bytes of it are its bytes — as long as the listed ETag says OSS still holds exactly them.
        const remembered = this.rememberDocuments ? this.cache.bodyMatching(prefix, newest, etag) : undefined;
        if (remembered) {
          const envelope = decodeEnvelope(remembered, newest);
          this.cache.remember(prefix, { revision: newest, writeId: envelope.writeId, newestAt });
          return { document: envelope.document, revision: newest };
        }
        const read = await this.readAsListed(prefix, newest, etag);
        if (read.body === undefined) {
          // Pruned, or its name refilled by an orphan, since the listing: newer revisions exist, so list
          // again. The same listed object read twice with other bytes is not one the driver wrote.
          const seen = `${newest} ${etag}`;
          if (read.found && mismatch === seen) throw new StoreCorruptError('The newest thread state object does not hold the bytes its listed ETag names.');
          if (read.found) mismatch = seen;
          continue;
        }
        const envelope = decodeEnvelope(read.body, newest);
        this.cache.remember(prefix, { revision: newest, writeId: envelope.writeId, newestAt }, this.rememberDocuments ? read.body : undefined);
        return { document: envelope.document, revision: newest };
      }
      throw new StoreUnavailableError('The thread state kept moving while it was read.');
    } catch (error) {
      throw storeError(error, 'read');
    }
  }

  /** The newest revision this instance saw committed, from memory (ThreadStore.cached): possibly stale. */
  cached(thread: ThreadRef): StoredDocument | undefined {
    if (!this.rememberDocuments) return undefined;
    const prefix = revisionsPrefix(this.prefix, thread);
    const remembered = this.cache.body(prefix);
    if (!remembered) return undefined;
    try {
      return { document: decodeEnvelope(remembered.body, remembered.revision).document, revision: remembered.revision };
    } catch {
      return undefined;
    }
  }

  async save(thread: ThreadRef, document: unknown, expected: number): Promise<number> {
    if (!Number.isInteger(expected) || expected < 0) throw new StoreConflictError();
    const prefix = revisionsPrefix(this.prefix, thread);
    try {
      const base = await this.baseOf(prefix, expected);
      const envelope: Envelope = { revision: expected + 1, writeId: randomUUID(), previousWriteId: base.writeId, document };
      const key = revisionKey(prefix, envelope.revision);
      const body = encodeEnvelope(envelope);
      const created = await this.create(key, envelope, body);
      // The base was the newest at base.newestAt and no name above it can have been freed since (hold.ts).
      const committed: Committed = provenByTime(this.hold, base.newestAt, created) ? { newestAt: created } : await this.verify(prefix, key, envelope, body);
      this.cache.remember(prefix, { revision: envelope.revision, writeId: envelope.writeId, newestAt: committed.newestAt }, this.rememberDocuments ? body : undefined);
      if (envelope.revision % this.keep === 0) await this.pruneAfter(prefix, envelope.revision);
      return envelope.revision;
    } catch (error) {
      throw storeError(error, 'write');
    }
  }

  /** Resolves once no background prune of this store is running (tests, the bench). */
  async idle(): Promise<void> {
    while (this.pruning.size > 0) await Promise.all(this.pruning.values());
  }

  /**
   * Revision `expected` as a proven-current base: its writeId, which the new revision names as its
   * predecessor, and a server time at which it was the newest (for the proof by time). From memory
   * when this instance remembers it (a load or its own commit); otherwise it is looked up as a load
   * does — the listing must name `expected` as the newest, and the object read must be the one listed
   * — never by reading `r/expected` blind, which may by then hold an orphan (docs/state-store.md "Save").
   */
  private async baseOf(prefix: string, expected: number): Promise<{ writeId: string | null; newestAt: number | undefined }> {
    // Revisions are committed one after another: having seen a later one proves `expected` stale.
    if ((this.cache.newest(prefix) ?? 0) > expected) throw new StoreConflictError();
    const remembered = this.cache.writeIdOf(prefix, expected);
    if (remembered !== undefined) return { writeId: remembered, newestAt: this.cache.newestAt(prefix, expected) };
    // A new thread's first create has nothing to name; Verify proves it.
    if (expected === 0) return { writeId: null, newestAt: undefined };
    const { revision: newest, listedAt, etag } = await newestRevision(this.listing, prefix);
    if (newest !== expected) throw new StoreConflictError();
    const read = await this.readAsListed(prefix, expected, etag);
    // Gone or refilled since the listing: newer revisions exist.
    if (read.body === undefined) throw new StoreConflictError();
    const { writeId } = decodeEnvelope(read.body, expected);
    const newestAt = this.hold.holdMs > 0 ? listedAt : undefined;
    this.cache.remember(prefix, { revision: expected, writeId, newestAt }, this.rememberDocuments ? read.body : undefined);
    return { writeId, newestAt };
  }

  /**
   * Reads a revision a listing named as the newest, and returns its bytes only when they are the
   * listed object (etag.ts): `found` without a body means the name now holds another object.
   */
  private async readAsListed(prefix: string, revision: number, etag: string | undefined): Promise<{ body: Buffer | undefined; found: boolean }> {
    if (etag === undefined) throw new StoreUnavailableError('OSS listed the newest revision without its ETag; the driver cannot tell which object a read returns.');
    const body = await withRetries(this.retry, () => this.objects.read(revisionKey(prefix, revision)));
    if (body === undefined) return { body: undefined, found: false };
    return { body: hasEtag(body, etag) ? body : undefined, found: true };
  }

  /**
   * Creates the revision object exactly once; resolves with the server time of the create's answer
   * when one was seen (an upper bound of when it was applied). A failure without a clear answer (timeout, dropped
   * connection, 5xx) may or may not have landed, so before trying again the object is read back:
   * our writeId → it landed; another writeId → a conflict; absent → try again (forbid-overwrite
   * keeps the retries single-creation). After `attempts` tries the outcome is unknown → unavailable.
   */
  private async create(key: string, envelope: Envelope, body: Buffer): Promise<number | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const answeredAt = await this.objects.create(key, body);
        return typeof answeredAt === 'number' ? answeredAt : undefined;
      } catch (error) {
        if (!(error instanceof OssRequestError) || error.kind === 'rejected' || error.kind === 'notFound') throw error;
        // A 409 on the first try cannot be ours: nothing of ours was sent before.
        if (error.kind === 'exists' && attempt === 1) throw new StoreConflictError();
        const owner = await this.ownerOf(key, envelope);
        // Settled by reading it back: when it landed is not known, so nothing proves it by time.
        if (owner === 'ours') return undefined;
        if (owner === 'theirs') throw new StoreConflictError();
        if (attempt >= this.retry.attempts) {
          throw new StoreUnavailableError(`The outcome of writing thread state is unknown: ${error.message}`, { cause: error });
        }
      }
      await backOff(this.retry, attempt);
    }
  }

  private async ownerOf(key: string, envelope: Envelope): Promise<'ours' | 'theirs' | 'absent' | 'unknown'> {
    let body: Buffer | undefined;
    try {
      body = await this.objects.read(key);
    } catch (error) {
      if (error instanceof OssRequestError && error.kind === 'transient') return 'unknown';
      throw error;
    }
    if (body === undefined) return 'absent';
    return decodeEnvelope(body, envelope.revision).writeId === envelope.writeId ? 'ours' : 'theirs';
  }

  /**
   * After a successful create: nothing newer → committed (a gap can only exist below the newest
   * revision, and the newest revision is never deleted). Something newer → committed only if the
   * next revision was built on ours; otherwise ours filled a gap left by pruning (the base was
   * stale): a conflict, and the orphan is deleted (best effort — it is never the newest anyway).
   */
  private async verify(prefix: string, key: string, envelope: Envelope, body: Buffer): Promise<Committed> {
    const { revision: newest, listedAt, etag } = await newestRevision(this.listing, prefix);
    // Ours is the newest, and the listing names our very object (the driver never replaces one).
    if (newest === envelope.revision && etag !== undefined && hasEtag(body, etag)) return { newestAt: this.hold.holdMs > 0 ? listedAt : undefined };
    if (newest === undefined || newest <= envelope.revision) {
      throw new StoreUnavailableError('A revision vanished or was replaced right after it was written; is something else writing thread state?');
    }
    const nextBody = await withRetries(this.retry, () => this.objects.read(revisionKey(prefix, envelope.revision + 1)));
    // Committed, and already built on: not the newest, so the next save meets a 409 and reads.
    if (nextBody !== undefined && decodeEnvelope(nextBody, envelope.revision + 1).previousWriteId === envelope.writeId) return { newestAt: undefined };
    await this.objects.remove(key).catch(() => undefined);
    throw new StoreConflictError();
  }

  /** Every KEEP-th revision: without a hold, prune now; under the hold, in the background (it never changes an answer). */
  private async pruneAfter(prefix: string, committed: number): Promise<void> {
    const floor = committed - this.keep;
    if (floor < 1) return;
    if (this.hold.holdMs <= 0) {
      await this.prune(prefix, floor);
      return;
    }
    if (this.pruning.has(prefix)) return;
    const running = this.prune(prefix, floor).finally(() => this.pruning.delete(prefix));
    this.pruning.set(prefix, running);
  }

  /** Best effort: a failed prune leaves old revisions for the next one, never a wrong state. */
  private async prune(prefix: string, floor: number): Promise<void> {
    try {
      let keys: string[];
      if (this.hold.holdMs > 0) {
        const { revisions, listedAt } = await listRevisions(this.listing, prefix);
        keys = prunable(this.hold, revisions, floor, listedAt);
      } else keys = await revisionKeysAtOrBelow(this.listing, prefix, floor);
      for (let start = 0; start < keys.length; start += DELETE_BATCH) {
        const batch = keys.slice(start, start + DELETE_BATCH);
        await withRetries(this.retry, () => this.objects.removeMany(batch));
      }
    } catch {
      // Nothing to undo: the revision is committed; old objects wait for the next prune.
    }
  }
}

/** Every failure leaves the driver as a StoreError, with no vendor detail beyond the sanitized OssRequestError as its cause. */
function storeError(error: unknown, action: 'read' | 'write'): Error {
  if (error instanceof StoreError) return error;
  if (error instanceof OssRequestError) return new StoreUnavailableError(`Cannot ${action} thread state: ${error.message}`, { cause: error });
  return new StoreUnavailableError(`Cannot ${action} thread state: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/**
 * OSS driver of the thread store (docs/architecture.md §3.5): compare-and-swap built from create-only
 * writes, because OSS PutObject honours no If-Match / If-None-Match — its one atomic write
 * condition is `x-oss-forbid-overwrite: true`. The algorithm, its crash windows and why each is
 * safe are in docs/state-store.md; in brief:
 *
 * - one immutable object per revision (lib/adapters/oss-keys.ts), listed newest-first;
 * - load = list the newest revision name (max-keys=1) + GET it; no overwritable pointer exists;
 * - save(expected) = create revision expected+1 with forbid-overwrite (409 = conflict), then
 *   VERIFY: when a newer revision already exists, the create may have filled a gap left by pruning
 *   (a stalled writer), so it counts only if revision expected+2 names our writeId as its
 *   previousWriteId; otherwise it is a conflict and the orphan is deleted;
 * - a create whose answer was lost is settled by reading the object back: our writeId → ours;
 * - every KEEP-th revision prunes the revisions at or below revision − KEEP (never the newest).
 *
 * Every failure leaves as a StoreError (docs/architecture.md §3): conflict, corrupt or unavailable.
 */
import { randomUUID } from 'node:crypto';
import { StoreConflictError, type StoredDocument, StoreError, StoreUnavailableError, type ThreadStore } from '../../core/ports.js';
import { decodeEnvelope, type Envelope, encodeEnvelope } from './envelope.js';
import { OssRequestError } from './errors.js';
import { revisionKey, revisionsPrefix } from './keys.js';
import { type ListingContext, newestRevision, revisionKeysAtOrBelow } from './listing.js';
import { RevisionCache } from './lru.js';
import type { OssObjects } from './objects.js';
import { backOff, type RetryPolicy, withRetries } from './retry.js';

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
  }

  async load(threadId: string): Promise<StoredDocument | undefined> {
    const prefix = revisionsPrefix(this.prefix, threadId);
    try {
      for (let round = 0; round < MAX_LOAD_ROUNDS; round += 1) {
        const newest = await newestRevision(this.listing, prefix);
        if (newest === undefined) return undefined;
        const body = await withRetries(this.retry, () => this.objects.read(revisionKey(prefix, newest)));
        // Pruned between the listing and the GET: newer revisions exist, so list again.
        if (body === undefined) continue;
        const envelope = decodeEnvelope(body, newest);
        this.cache.remember(prefix, { revision: newest, writeId: envelope.writeId });
        return { document: envelope.document, revision: newest };
      }
      throw new StoreUnavailableError('The thread state kept moving while it was read.');
    } catch (error) {
      throw storeError(error, 'read');
    }
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    if (!Number.isInteger(expected) || expected < 0) throw new StoreConflictError();
    const prefix = revisionsPrefix(this.prefix, threadId);
    try {
      const envelope: Envelope = { revision: expected + 1, writeId: randomUUID(), previousWriteId: await this.writeIdOf(prefix, expected), document };
      const key = revisionKey(prefix, envelope.revision);
      await this.create(key, envelope);
      await this.verify(prefix, key, envelope);
      this.cache.remember(prefix, { revision: envelope.revision, writeId: envelope.writeId });
      if (envelope.revision % this.keep === 0) await this.prune(prefix, envelope.revision - this.keep);
      return envelope.revision;
    } catch (error) {
      throw storeError(error, 'write');
    }
  }

  /** The writeId of revision `expected`, which the new revision names as its predecessor. */
  private async writeIdOf(prefix: string, expected: number): Promise<string | null> {
    // Revisions are committed one after another: having seen a later one proves `expected` stale.
    if ((this.cache.newest(prefix) ?? 0) > expected) throw new StoreConflictError();
    if (expected === 0) return null;
    const remembered = this.cache.writeIdOf(prefix, expected);
    if (remembered !== undefined) return remembered;
    const body = await withRetries(this.retry, () => this.objects.read(revisionKey(prefix, expected)));
    // Never written, or pruned because newer revisions exist: either way not the current revision.
    if (body === undefined) throw new StoreConflictError();
    return decodeEnvelope(body, expected).writeId;
  }

  /**
   * Creates the revision object exactly once. A failure without a clear answer (timeout, dropped
   * connection, 5xx) may or may not have landed, so before trying again the object is read back:
   * our writeId → it landed; another writeId → a conflict; absent → try again (forbid-overwrite
   * keeps the retries single-creation). After `attempts` tries the outcome is unknown → unavailable.
   */
  private async create(key: string, envelope: Envelope): Promise<void> {
    const body = encodeEnvelope(envelope);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.objects.create(key, body);
        return;
      } catch (error) {
        if (!(error instanceof OssRequestError) || error.kind === 'rejected' || error.kind === 'notFound') throw error;
        // A 409 on the first try cannot be ours: nothing of ours was sent before.
        if (error.kind === 'exists' && attempt === 1) throw new StoreConflictError();
        const owner = await this.ownerOf(key, envelope);
        if (owner === 'ours') return;
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
  private async verify(prefix: string, key: string, envelope: Envelope): Promise<void> {
    const newest = await newestRevision(this.listing, prefix);
    if (newest === envelope.revision) return;
    if (newest === undefined || newest < envelope.revision) {
      throw new StoreUnavailableError('A revision vanished right after it was written; is something else deleting thread state?');
    }
    const nextBody = await withRetries(this.retry, () => this.objects.read(revisionKey(prefix, envelope.revision + 1)));
    if (nextBody !== undefined && decodeEnvelope(nextBody, envelope.revision + 1).previousWriteId === envelope.writeId) return;
    await this.objects.remove(key).catch(() => undefined);
    throw new StoreConflictError();
  }

  /** Best effort: a failed prune leaves old revisions for the next one, never a wrong state. */
  private async prune(prefix: string, floor: number): Promise<void> {
    if (floor < 1) return;
    try {
      const keys = await revisionKeysAtOrBelow(this.listing, prefix, floor);
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

/**
 * Reading a thread's revisions from ListObjectsV2 (docs/state-store.md "Objects", "Pruning").
 * Revision names count down (lib/adapters/oss-keys.ts), so a listing is newest-first: the newest
 * revision is the first revision name, found with max-keys=1 however many old objects remain.
 * Names under the prefix that are not revision names are skipped, never trusted.
 */
import type { ListedRevision } from './hold.js';
import { revisionKey, revisionOfKey } from './keys.js';
import type { OssObjects } from './objects.js';
import { type RetryPolicy, withRetries } from './retry.js';

export interface ListingContext {
  objects: OssObjects;
  retry: RetryPolicy;
  /** Largest page asked for (OSS allows 1..1000). */
  pageSize: number;
}

export interface Newest {
  /** The newest revision under the prefix; undefined when the thread has none. */
  revision: number | undefined;
  /** The OSS server's time of the (first) listing answer: the revision was the newest then. */
  listedAt: number | undefined;
  /** The newest object's ETag as listed (what it holds now). */
  etag: string | undefined;
}

/** The newest revision under `prefix`, and when OSS said so. */
export async function newestRevision(context: ListingContext, prefix: string): Promise<Newest> {
  let continuationToken: string | undefined;
  let maxKeys = 1;
  let listedAt: number | undefined;
  for (let first = true; ; first = false) {
    const token = continuationToken;
    const page = await withRetries(context.retry, () => context.objects.list(prefix, token === undefined ? { maxKeys } : { maxKeys, continuationToken: token }));
    // The earliest answer: a later page can only have seen more, never less.
    if (first) listedAt = page.serverTime;
    for (const [index, key] of page.keys.entries()) {
      const revision = revisionOfKey(prefix, key);
      if (revision !== undefined) return { revision, listedAt, etag: page.etags?.[index] };
    }
    if (page.nextContinuationToken === undefined) return { revision: undefined, listedAt, etag: undefined };
    continuationToken = page.nextContinuationToken;
    // Only foreign names so far: read on in bigger pages.
    maxKeys = context.pageSize;
  }
}

/** Every revision at or below `floor` (floor ≥ 1), as object keys, oldest ones last. */
export async function revisionKeysAtOrBelow(context: ListingContext, prefix: string, floor: number): Promise<string[]> {
  const keys: string[] = [];
  // Newest-first order: everything after the name of floor + 1 is floor or older.
  const startAfter = revisionKey(prefix, floor + 1);
  let continuationToken: string | undefined;
  for (;;) {
    const token = continuationToken;
    const page = await withRetries(context.retry, () =>
      context.objects.list(prefix, token === undefined ? { maxKeys: context.pageSize, startAfter } : { maxKeys: context.pageSize, continuationToken: token }),
    );
    for (const key of page.keys) {
      const revision = revisionOfKey(prefix, key);
      if (revision !== undefined && revision <= floor) keys.push(key);
    }
    if (page.nextContinuationToken === undefined) return keys;
    continuationToken = page.nextContinuationToken;
  }
}

/**
 * Every revision under `prefix`, newest first, with its Last-Modified, and the server time of the
 * first page's answer — what a prune under the hold decides from (hold.ts `prunable`).
 */
export async function listRevisions(context: ListingContext, prefix: string): Promise<{ revisions: ListedRevision[]; listedAt: number | undefined }> {
  const revisions: ListedRevision[] = [];
  let listedAt: number | undefined;
  let continuationToken: string | undefined;
  for (let first = true; ; first = false) {
    const token = continuationToken;
    const page = await withRetries(context.retry, () =>
      context.objects.list(prefix, token === undefined ? { maxKeys: context.pageSize } : { maxKeys: context.pageSize, continuationToken: token }),
    );
    if (first) listedAt = page.serverTime;
    page.keys.forEach((key, index) => {
      const revision = revisionOfKey(prefix, key);
      if (revision !== undefined) revisions.push({ revision, key, modified: page.lastModified?.[index] });
    });
    if (page.nextContinuationToken === undefined) return { revisions, listedAt };
    continuationToken = page.nextContinuationToken;
  }
}

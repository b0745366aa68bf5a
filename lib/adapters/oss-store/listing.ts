/**
 * Reading a thread's revisions from ListObjectsV2 (docs/state-store.md "Objects", "Pruning").
 * Revision names count down (lib/adapters/oss-keys.ts), so a listing is newest-first: the newest
 * revision is the first revision name, found with max-keys=1 however many old objects remain.
 * Names under the prefix that are not revision names are skipped, never trusted.
 */
import { revisionKey, revisionOfKey } from './keys.js';
import type { OssObjects } from './objects.js';
import { type RetryPolicy, withRetries } from './retry.js';

export interface ListingContext {
  objects: OssObjects;
  retry: RetryPolicy;
  /** Largest page asked for (OSS allows 1..1000). */
  pageSize: number;
}

/** The newest revision under `prefix`, or undefined when the thread has none. */
export async function newestRevision(context: ListingContext, prefix: string): Promise<number | undefined> {
  let continuationToken: string | undefined;
  let maxKeys = 1;
  for (;;) {
    const token = continuationToken;
    const page = await withRetries(context.retry, () => context.objects.list(prefix, token === undefined ? { maxKeys } : { maxKeys, continuationToken: token }));
    for (const key of page.keys) {
      const revision = revisionOfKey(prefix, key);
      if (revision !== undefined) return revision;
    }
    if (page.nextContinuationToken === undefined) return undefined;
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

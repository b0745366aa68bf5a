/**
 * Object names of the OSS driver (docs/architecture.md §3.5; docs/state-store.md "Objects"):
 *
 *   <prefix>/threads/<thread-key>/r/<999999999999 − revision, 12 digits>-<revision>.json
 *
 * One immutable object per revision. The trailing slash after the thread key keeps one thread's
 * names from being a prefix of another's. The 12-digit part counts *down*, so OSS's lexicographic
 * listing order is newest-first: one ListObjectsV2 with max-keys=1 finds the newest revision no
 * matter how many older objects are still waiting to be pruned. The trailing revision number is
 * only for people browsing the bucket; the counting-down part alone decides the order.
 */
import type { ThreadRef } from '../../core/ports.js';
import { storageKey } from '../../core/thread/thread-address.js';

export const MAX_REVISION = 999_999_999_999;
const NAME = /^(\d{12})-(\d{1,12})\.json$/;

/** `<prefix>/threads/<thread-key>/r/` — everything of one thread lives under it. */
export function revisionsPrefix(prefix: string, thread: ThreadRef): string {
  return `${prefix}/threads/${storageKey(thread)}/r/`;
}

export function revisionName(revision: number): string {
  if (!Number.isInteger(revision) || revision < 1 || revision > MAX_REVISION) throw new RangeError(`revision out of range: ${revision}`);
  return `${String(MAX_REVISION - revision).padStart(12, '0')}-${revision}.json`;
}

export function revisionKey(revisionsPrefixValue: string, revision: number): string {
  return revisionsPrefixValue + revisionName(revision);
}

/** The revision an object name under the revisions prefix stands for; undefined for any other name. */
export function revisionOfKey(revisionsPrefixValue: string, key: string): number | undefined {
  if (!key.startsWith(revisionsPrefixValue)) return undefined;
  const match = NAME.exec(key.slice(revisionsPrefixValue.length));
  if (!match) return undefined;
  const revision = Number(match[2]);
  return revision >= 1 && MAX_REVISION - revision === Number(match[1]) ? revision : undefined;
}

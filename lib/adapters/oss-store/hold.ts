/**
 * The prune hold and the proof by time (docs/state-store.md "The hold"). All times are OSS's own
 * (its Date headers and Last-Modified), never this machine's clock.
 *
 * The rule every pruner keeps: a revision X is deleted only when some revision Y > X was created at
 * least HOLD before — by the listing the pruner deletes from. Then a name freed by pruning was freed
 * at least HOLD after any moment at which the revision below it was the newest; so a writer that
 * knows its base M was the newest at V and sees its create of M+1 answered at C ≤ V + HOLD cannot
 * have filled a gap: its create is a commit, with no verifying listing. A margin absorbs the
 * second-resolution of HTTP dates and the skew between OSS's servers.
 */

export interface Hold {
  /** How long a revision stays after a newer one exists (0: no hold — and no proof by time). */
  holdMs: number;
  /** Taken off the window a create may be proven in. */
  marginMs: number;
  /**
   * Whether saves are proven by time. Sound only when every pruner of the bucket prefix holds: off
   * (IAC_CODE_AGUI_OSS_VERIFY_EVERY_SAVE=1) while instances of a version without the hold may still
   * write it — this one then holds its prunes but verifies every save (docs/state-store.md "Upgrading").
   */
  proveByTime: boolean;
}

export const DEFAULT_HOLD: Hold = { holdMs: 10 * 60_000, marginMs: 30_000, proveByTime: true };

/**
 * Whether a create answered at server time `createdBy` (an upper bound of when it was applied) is
 * a commit because its base was the newest at `baseNewestAt`: nothing older than the hold can have
 * been pruned in between.
 */
export function provenByTime(hold: Hold, baseNewestAt: number | undefined, createdBy: number | undefined): boolean {
  if (!hold.proveByTime || hold.holdMs <= 0 || baseNewestAt === undefined || createdBy === undefined) return false;
  return createdBy - baseNewestAt <= hold.holdMs - hold.marginMs;
}

export interface ListedRevision {
  revision: number;
  key: string;
  /** Its Last-Modified, epoch ms; undefined when the listing did not say. */
  modified: number | undefined;
}

/**
 * The revisions a prune may delete: those at or below `floor` (committed − KEEP) that lie below a
 * listed revision created at least the hold before `listedAt` (the listing's server time).
 * Without a hold, everything at or below `floor`.
 */
export function prunable(hold: Hold, listed: readonly ListedRevision[], floor: number, listedAt: number | undefined): string[] {
  if (hold.holdMs <= 0) return listed.filter((entry) => entry.revision <= floor).map((entry) => entry.key);
  if (listedAt === undefined) return [];
  let below = Number.NEGATIVE_INFINITY;
  for (const entry of listed) {
    if (entry.modified !== undefined && entry.modified <= listedAt - hold.holdMs) below = Math.max(below, entry.revision);
  }
  return listed.filter((entry) => entry.revision <= floor && entry.revision < below).map((entry) => entry.key);
}

/**
 * The prune hold and the proof by time (docs/state-store.md "The hold"). All times are OSS's own
 * (its Date headers and Last-Modified), never this machine's clock.
 *
 * The rule every pruner keeps: a revision X is deleted only when some revision Y > X was created at
 * least HOLD before — by the listing the pruner deletes from. Then a name freed by pruning was freed
 * at least HOLD after any moment at which the revision below it was the newest; so a writer that
 * knows its base M was the newest at V and sees its create of M+1 answered at C ≤ V + HOLD cannot
 * have filled a gap: its create is a commit, with no verifying listing.
 *
 * The margin is derived from a stated bound on each stamp's error, not guessed: the proof compares
 * four stamps made by possibly different OSS servers — the base time V (a listing's Date, or the
 * Date of our own earlier create), our create's Date C, the pruner's listing Date L and the
 * successor's Last-Modified Y — and stays sound exactly while (s_V − s_C) + (s_L − s_Y) < margin,
 * where s is a stamp's error (stamp − true time). With every stamp within ±STAMP_ERROR_MS of the
 * moment it records, plus its one-second resolution, that sum is below 4 × (15 s + 1 s) = 64 s in
 * the worst arrangement (docs/state-store.md "The margin").
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

/** How far any one OSS stamp (a `Date` header, a Last-Modified) may be from the true moment it records, either way. */
export const STAMP_ERROR_MS = 15_000;
/** HTTP dates and Last-Modified are whole seconds. */
export const STAMP_RESOLUTION_MS = 1_000;

/** The margin that keeps the proof sound when each of its four stamps is off by up to `stampErrorMs`, in the worst arrangement. */
export function marginFor(stampErrorMs: number): number {
  return 4 * (stampErrorMs + STAMP_RESOLUTION_MS);
}

/** Ten minutes of hold; a create is proven by time when answered less than 10 min − 64 s after its base was known newest. */
export const DEFAULT_HOLD: Hold = { holdMs: 10 * 60_000, marginMs: marginFor(STAMP_ERROR_MS), proveByTime: true };

/**
 * Whether a create answered at server time `createdBy` (an upper bound of when it was applied) is
 * a commit because its base was the newest at `baseNewestAt`: nothing older than the hold can have
 * been pruned in between. Strictly inside the window: at its very end the worst arrangement of the
 * stamps' errors would reach the margin.
 */
export function provenByTime(hold: Hold, baseNewestAt: number | undefined, createdBy: number | undefined): boolean {
  if (!hold.proveByTime || hold.holdMs <= 0 || baseNewestAt === undefined || createdBy === undefined) return false;
  return createdBy - baseNewestAt < hold.holdMs - hold.marginMs;
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

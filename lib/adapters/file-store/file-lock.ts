/**
 * A short exclusive lock file around the file driver's compare-and-rename (docs/architecture.md
 * §3.5). The lock is held for one read-compare-rename, about a millisecond.
 *
 * Taking it is a true cross-process compare-and-swap: the caller hands in a claim — a file it has
 * already written in full, whose JSON carries the holder's record ({host, pid, nonce}) at its top
 * level — and the claim is hard-linked to the lock's name, which fails when the name exists. So a
 * lock file is complete from its first instant, and no holder of this code ever leaves an empty or
 * half-written one. The file driver's claim is the staged revision itself (file-store.ts): one file
 * created per save, not two.
 *
 * A lock whose holder is gone is recovered, and that never depends on reading it:
 * - any lock older than `staleMs` (its file's modification time) is stale, whatever it contains —
 *   and so is one dated as far in the future: no live save writes one, but a clock stepped back
 *   after a crash leaves one, which by its negative age would otherwise never be recovered;
 * - sooner, a lock whose record names a process on this host that no longer exists;
 * - sooner, a lock that holds no record at all (empty, truncated, foreign bytes: a crash of an
 *   older writer, or not ours) once it is older than UNREADABLE_GRACE_MS.
 * Recovery moves the lock aside and deletes it only if it is still the very file judged stale
 * (same inode and write time); a newer lock moved aside by a racing recovery is put back.
 */

import { randomUUID } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { constants, statSync } from 'node:fs';
import { link, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LockOptions {
  staleMs: number;
  waitMs: number;
}

/** The record a lock file carries at its top level: who holds it. */
export interface LockOwner {
  host: string;
  pid: number;
  nonce: string;
}

/**
 * How old a lock (or a crashed writer's leftover) counts as, from its modification time: its
 * distance from now either way. A file dated in the future was written under a clock that has
 * since been stepped back; counting that distance as age lets it go stale like any other.
 */
export function lockAgeMs(mtimeMs: number, now = Date.now()): number {
  return Math.abs(now - mtimeMs);
}

/** A fresh holder's record for this process. */
export function newLockOwner(): LockOwner {
  return { host: hostname(), pid: process.pid, nonce: randomUUID() };
}

/** How old a lock without a readable record must be before it is broken (claims are linked complete, so only a crash or a stranger leaves one). */
export const UNREADABLE_GRACE_MS = 1_000;

/**
 * Runs `body` while holding the lock taken by linking `claim` (complete, carrying its holder's
 * record) to `lockPath`; the caller owns the claim file and removes or renames it. `stillHeld`
 * tells whether the lock file under the name is still this holder's: the one residual race of
 * recovery (a newer lock moved aside by a recovery that judged an older one, and the name taken by
 * a third writer before it is put back) leaves a holder without its name, and a holder checks this
 * right before it commits. `release` gives the name back early — e.g. at once after the commit,
 * alongside other work — and is what happens anyway when `body` settles.
 */
export async function withFileLock<T>(
  lockPath: string,
  claim: string,
  options: LockOptions,
  body: (lock: { stillHeld: () => boolean; release: () => Promise<void> }) => Promise<T>,
): Promise<T> {
  const held = await acquire(lockPath, claim, options);
  let released: Promise<void> | undefined;
  const release = (): Promise<void> => {
    released ??= giveBack(lockPath, held);
    return released;
  };
  try {
    return await body({ stillHeld: () => sameFile(statOf(lockPath), held), release });
  } finally {
    await release();
  }
}

/**
 * The file's stats, or undefined when it is gone. Read synchronously, as every read of the driver
 * is: a local read takes microseconds, less than a round trip through the thread pool, and never
 * waits for the journal as a change to a directory can (docs/architecture.md §3.5).
 */
function statOf(path: string): BigIntStats | undefined {
  return statSync(path, { bigint: true, throwIfNoEntry: false });
}

/**
 * The same lock file: same inode and the same nanosecond modification time. The inode alone is not
 * enough — a file system reuses a freed inode number at once, so a lock deleted and taken again can
 * carry its predecessor's number; the claim's write time tells them apart, and neither linking nor
 * renaming changes it.
 */
function sameFile(a: BigIntStats | undefined, b: BigIntStats | undefined): boolean {
  return a !== undefined && b !== undefined && a.ino === b.ino && a.dev === b.dev && a.mtimeNs === b.mtimeNs;
}

/** Returns the stats of the lock file this caller now holds: its claim's, which linking does not change. */
async function acquire(lockPath: string, claim: string, options: LockOptions): Promise<BigIntStats> {
  const claimed = statSync(claim, { bigint: true });
  const deadline = Date.now() + options.waitMs;
  for (let delay = 1; ; delay = Math.min(delay * 2, 25)) {
    if (await linked(claim, lockPath)) return claimed;
    await breakIfStale(lockPath, options.staleMs);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath}`);
    await sleep(delay);
  }
}

/** Links the claim to the lock's name: false when the name is taken. */
async function linked(claim: string, lockPath: string): Promise<boolean> {
  try {
    await link(claim, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Removes the lock only while it is still this holder's (a recovery may have taken it meanwhile). */
async function giveBack(lockPath: string, held: BigIntStats): Promise<void> {
  if (sameFile(statOf(lockPath), held)) await unlink(lockPath).catch(() => undefined);
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  const judged = await stat(lockPath, { bigint: true }).catch(() => undefined);
  // Gone already: the next attempt takes it.
  if (!judged) return;
  const ageMs = lockAgeMs(Number(judged.mtimeMs));
  if (ageMs < staleMs && !(await holderGone(lockPath, judged, ageMs))) return;
  const aside = `${lockPath}.${randomUUID()}.stale`;
  try {
    await rename(lockPath, aside);
  } catch {
    // Someone else recovered it first.
    return;
  }
  const moved = await stat(aside, { bigint: true }).catch(() => undefined);
  // A newer lock than the one judged (another recovery got in between): put it back, unless the
  // name has been taken again meanwhile, in which case that newer holder keeps it.
  if (!sameFile(moved, judged)) await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/**
 * A holder known to be gone before the lock's stale age: a dead process on this host, or no record
 * at all. Only a regular file is read: anything else under the lock's name (a FIFO would hold a
 * thread of libuv's pool until a writer came) has no record.
 */
async function holderGone(lockPath: string, judged: BigIntStats, ageMs: number): Promise<boolean> {
  const holder = judged.isFile()
    ? await readFile(lockPath, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK })
        .then((text) => ownerOf(JSON.parse(text)))
        .catch(() => undefined)
    : undefined;
  if (!holder) return ageMs >= UNREADABLE_GRACE_MS;
  return holder.host === hostname() && !processExists(holder.pid);
}

function ownerOf(value: unknown): LockOwner | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record['host'] !== 'string' || typeof record['pid'] !== 'number' || typeof record['nonce'] !== 'string') return undefined;
  return { host: record['host'], pid: record['pid'], nonce: record['nonce'] };
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

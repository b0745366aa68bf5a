/**
 * A short exclusive lock file around the file driver's compare-and-rename (docs/architecture.md
 * §3.5). The lock is held for one read-compare-write, milliseconds long.
 *
 * Taking it is a true cross-process compare-and-swap: the holder's record is written to a claim
 * file of its own first, and the claim is then hard-linked to the lock's name, which fails when
 * the name exists. So a lock file is complete from its first instant — no holder of this code
 * ever leaves an empty or half-written one.
 *
 * A lock whose holder is gone is recovered, and that never depends on reading it:
 * - any lock older than `staleMs` (its file's modification time) is stale, whatever it contains;
 * - sooner, a lock whose record names a process on this host that no longer exists;
 * - sooner, a lock that holds no record at all (empty, truncated, foreign bytes: a crash of an
 *   older writer, or not ours) once it is older than UNREADABLE_GRACE_MS.
 * Recovery moves the lock aside and deletes it only if it is still the very file judged stale
 * (same inode and write time); a newer lock moved aside by a racing recovery is put back.
 */

import { randomUUID } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { statSync } from 'node:fs';
import { link, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LockOptions {
  staleMs: number;
  waitMs: number;
}

interface LockOwner {
  host: string;
  pid: number;
  nonce: string;
}

/** How old a lock without a readable record must be before it is broken (claims are linked complete, so only a crash or a stranger leaves one). */
export const UNREADABLE_GRACE_MS = 1_000;

/**
 * Runs `body` while holding the lock. `stillHeld` tells whether the lock file under the name is
 * still this holder's: the one residual race of recovery (a newer lock moved aside by a recovery
 * that judged an older one, and the name taken by a third writer before it is put back) leaves a
 * holder without its name, and a holder checks this right before it commits.
 */
export async function withFileLock<T>(lockPath: string, options: LockOptions, body: (stillHeld: () => Promise<boolean>) => Promise<T>): Promise<T> {
  const owner: LockOwner = { host: hostname(), pid: process.pid, nonce: randomUUID() };
  const { held, claimRemoved } = await acquire(lockPath, owner, options);
  const stillHeld = async () => sameFile(statOf(lockPath), held);
  try {
    return await body(stillHeld);
  } finally {
    await Promise.all([release(lockPath, held), claimRemoved]);
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

/**
 * Returns the stats of the lock file this caller now holds, and the removal of its claim file —
 * started once the claim is under the lock's name, so that the holder's work need not wait for it.
 */
async function acquire(lockPath: string, owner: LockOwner, options: LockOptions): Promise<{ held: BigIntStats; claimRemoved: Promise<void> }> {
  const claim = `${lockPath}.${owner.nonce}.claim`;
  await writeFile(claim, JSON.stringify(owner), { mode: 0o600, flag: 'wx' });
  const removeClaim = (): Promise<void> => unlink(claim).catch(() => undefined);
  try {
    // Linking changes neither the inode nor the write time: these are the lock's stats once linked.
    const claimed = statSync(claim, { bigint: true });
    const deadline = Date.now() + options.waitMs;
    for (let delay = 1; ; delay = Math.min(delay * 2, 25)) {
      if (await linked(claim, lockPath)) return { held: claimed, claimRemoved: removeClaim() };
      await breakIfStale(lockPath, options.staleMs);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath}`);
      await sleep(delay);
    }
  } catch (error) {
    await removeClaim();
    throw error;
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
async function release(lockPath: string, held: BigIntStats): Promise<void> {
  if (sameFile(statOf(lockPath), held)) await unlink(lockPath).catch(() => undefined);
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  const judged = await stat(lockPath, { bigint: true }).catch(() => undefined);
  // Gone already: the next attempt takes it.
  if (!judged) return;
  const ageMs = Date.now() - Number(judged.mtimeMs);
  if (ageMs < staleMs && !(await holderGone(lockPath, ageMs))) return;
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

/** A holder known to be gone before the lock's stale age: a dead process on this host, or no record at all. */
async function holderGone(lockPath: string, ageMs: number): Promise<boolean> {
  const holder = await readFile(lockPath, 'utf8')
    .then((text) => ownerOf(JSON.parse(text)))
    .catch(() => undefined);
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

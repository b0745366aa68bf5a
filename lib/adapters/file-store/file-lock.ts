/**
 * A short exclusive lock file (O_EXCL create) around the file driver's compare-and-rename
 * (SPEC §5 "File driver"). The lock is held for one read-compare-write, milliseconds long. A lock
 * whose holder is gone is recovered: on this host when its process no longer exists, otherwise
 * once it is older than `staleMs`.
 */

import { randomUUID } from 'node:crypto';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
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

export async function withFileLock<T>(lockPath: string, options: LockOptions, body: () => Promise<T>): Promise<T> {
  const owner: LockOwner = { host: hostname(), pid: process.pid, nonce: randomUUID() };
  await acquire(lockPath, owner, options);
  try {
    return await body();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

async function acquire(lockPath: string, owner: LockOwner, options: LockOptions): Promise<void> {
  const deadline = Date.now() + options.waitMs;
  for (let delay = 1; ; delay = Math.min(delay * 2, 25)) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(JSON.stringify(owner));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await breakIfStale(lockPath, options.staleMs);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath}`);
    await sleep(delay);
  }
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  let holder: LockOwner | undefined;
  let ageMs: number;
  try {
    ageMs = Date.now() - (await stat(lockPath)).mtimeMs;
    holder = JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner;
  } catch {
    // Gone already, or being written this instant: not stale.
    return;
  }
  const holderDied = holder.host === hostname() && !processExists(holder.pid);
  if (!holderDied && ageMs < staleMs) return;
  // Move the lock aside atomically and delete it only if it is still the stale holder's.
  const aside = `${lockPath}.${randomUUID()}.stale`;
  try {
    await rename(lockPath, aside);
    const moved = JSON.parse(await readFile(aside, 'utf8')) as LockOwner;
    if (moved.nonce !== holder.nonce) await rename(aside, lockPath);
    else await unlink(aside);
  } catch {
    // Someone else recovered it first.
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

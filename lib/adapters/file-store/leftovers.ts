/**
 * What crashed writers leave in the threads folder, removed (docs/architecture.md §3.5): a save's
 * staged revision (`<thread>.json.<uuid>.tmp`) when its process died before the rename or the
 * clean-up (kill -9), and a lock moved aside by a recovery that died before deleting it
 * (`<thread>.json.lock.<uuid>.stale`). Neither is ever read as a thread, but nothing else would
 * ever delete them.
 *
 * Only regular files older than the stale age go: a live save's staged file exists for
 * milliseconds, so one that old belongs to no live writer — and a staged file that is still some
 * crashed holder's lock (it is hard-linked under the lock's name) keeps that name, which lock
 * recovery handles by itself.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { lockAgeMs } from './file-lock.js';

const LEFTOVER = /\.json\.[0-9a-f-]{36}\.tmp$|\.json\.lock\.[0-9a-f-]{36}\.stale$/;

/** Removes leftovers older than `staleMs` from `folder`; returns how many went. Never throws. */
export async function removeLeftovers(folder: string, staleMs: number): Promise<number> {
  const names = await readdir(folder).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!LEFTOVER.test(name)) continue;
    const path = join(folder, name);
    const stats = await lstat(path).catch(() => undefined);
    if (!stats?.isFile() || lockAgeMs(stats.mtimeMs) < staleMs) continue;
    const gone = await unlink(path).then(
      () => true,
      () => false,
    );
    if (gone) removed += 1;
  }
  return removed;
}

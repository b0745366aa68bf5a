/**
 * The lock's last check before a commit (lib/adapters/file-store/file-lock.ts, docs/architecture.md
 * §3.5): a holder whose lock file was replaced under its name — the one residual race of stale-lock
 * recovery — is told so, and the file store then refuses to commit with a conflict instead of
 * overwriting the other holder's write.
 */
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newLockOwner, withFileLock } from '../../lib/adapters/file-store/file-lock.js';

const options = { staleMs: 10_000, waitMs: 1_000 };
const dirs: string[] = [];

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agui-lock-unit-'));
  dirs.push(dir);
  return dir;
}

/** A complete claim beside the lock, carrying a fresh holder's record (what the file driver's staged revision is). */
async function claimBeside(lockPath: string): Promise<string> {
  const claim = `${lockPath}.claim`;
  await writeFile(claim, JSON.stringify(newLockOwner()));
  return claim;
}

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('a lock holder checking it still holds the lock', () => {
  it('holds it while its own file is under the name', async () => {
    const lockPath = join(await scratch(), 'thread.json.lock');
    const answer = await withFileLock(lockPath, await claimBeside(lockPath), options, async (lock) => lock.stillHeld());
    expect(answer).toBe(true);
  });

  it('does not hold it once another file took the name, and leaves that file alone on release', async () => {
    const lockPath = join(await scratch(), 'thread.json.lock');
    const answer = await withFileLock(lockPath, await claimBeside(lockPath), options, async (lock) => {
      // What a recovery that judged an older lock, racing a third writer, can leave behind.
      await unlink(lockPath);
      await writeFile(lockPath, JSON.stringify({ host: 'elsewhere', pid: 1, nonce: 'the-other-holder' }));
      return lock.stillHeld();
    });
    expect(answer).toBe(false);
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ nonce: 'the-other-holder' });
  });
});

/**
 * File driver (docs/architecture.md §3.5): `<state-dir>/threads/<thread-key>.json`, replaced atomically (temp file +
 * rename) inside a short exclusive lock (file-lock.ts), so compare-and-swap holds even when several adapter
 * processes share the directory. Folders 0700, files 0600. Each file holds
 * `{revision, writeId, document}`: the revision is the CAS token, the writeId the writer's nonce.
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { onceUntilFailure } from '../../core/once-until-failure.js';
import { StoreConflictError, StoreCorruptError, type StoredDocument, StoreError, StoreUnavailableError, type ThreadStore } from '../../core/ports.js';
import { threadKey } from '../../core/thread/thread-key.js';
import { withFileLock } from './file-lock.js';

interface Envelope {
  revision: number;
  writeId: string;
  document: unknown;
}

export interface FileStoreOptions {
  /** Age after which any lock is stale, whatever it contains (file-lock.ts); default 10 s, far beyond one locked write. */
  staleLockMs?: number;
  /** How long a save waits for the lock before the store counts as unavailable; default 5 s. */
  lockWaitMs?: number;
}

export class FileThreadStore implements ThreadStore {
  readonly kind = 'file' as const;
  private readonly threadsDir: string;

  constructor(
    readonly stateDir: string,
    private readonly options: FileStoreOptions = {},
  ) {
    this.threadsDir = join(stateDir, 'threads');
  }

  pathFor(threadId: string): string {
    return join(this.threadsDir, `${threadKey(threadId)}.json`);
  }

  async load(threadId: string): Promise<StoredDocument | undefined> {
    const envelope = readEnvelopeNow(this.pathFor(threadId));
    return envelope ? { document: envelope.document, revision: envelope.revision } : undefined;
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    const path = this.pathFor(threadId);
    const envelope: Envelope = { revision: expected + 1, writeId: randomUUID(), document };
    let staged: Promise<string> | undefined;
    let committed = false;
    try {
      await this.prepare();
      // The new file is written and fsynced while the lock is being taken: nothing in it depends on
      // what the lock guards (it carries `expected + 1`, and becomes the thread only by the rename
      // under the lock, after the compare). So the fsync overlaps the lock instead of lengthening
      // the critical section (docs/architecture.md §3.5).
      const temp = stageFile(path, JSON.stringify(envelope));
      temp.catch(() => undefined);
      staged = temp;
      return await withFileLock(`${path}.lock`, { staleMs: this.options.staleLockMs ?? 10_000, waitMs: this.options.lockWaitMs ?? 5_000 }, async (stillHeld) => {
        const current = readEnvelopeNow(path)?.revision ?? 0;
        if (current !== expected) throw new StoreConflictError();
        await commit(await temp, path, stillHeld);
        committed = true;
        return envelope.revision;
      });
    } catch (error) {
      // A conflict or a corrupt file says more than "cannot write"; an unreadable one gets the write's context.
      if (error instanceof StoreError && error.kind !== 'unavailable') throw error;
      throw new StoreUnavailableError(`cannot write thread state: ${(error as Error).message}`, { cause: error });
    } finally {
      // A staged file that never became the thread (conflict, lost lock, failure) is removed.
      if (staged && !committed) await staged.then(removeQuietly, () => undefined);
    }
  }

  /** The state folders, made (0700) once, before the first save. */
  private readonly prepare = onceUntilFailure(async () => {
    await mkdir(this.threadsDir, { recursive: true, mode: 0o700 });
    await chmod(this.stateDir, 0o700);
    await chmod(this.threadsDir, 0o700);
  });
}

/**
 * The stored envelope, read synchronously: a local read of a few kilobytes takes microseconds, less
 * than a round trip through the thread pool, and never waits for the journal as a change to a
 * directory can; under the lock it keeps the lock short (docs/architecture.md §3.5).
 */
function readEnvelopeNow(path: string): Envelope | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return unreadable(error);
  }
  return parseEnvelope(text);
}

function unreadable(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw new StoreUnavailableError(`cannot read thread state: ${(error as Error).message}`, { cause: error });
}

function parseEnvelope(text: string): Envelope {
  try {
    const envelope = JSON.parse(text) as Envelope;
    if (!Number.isInteger(envelope.revision) || envelope.revision < 1 || typeof envelope.writeId !== 'string') throw new Error('bad envelope');
    return envelope;
  } catch (error) {
    throw new StoreCorruptError('The thread state file is corrupt.', { cause: error });
  }
}

/** Writes `text` to a new temporary file beside `path` and fsyncs it; returns the temporary file's name. */
async function stageFile(path: string, text: string): Promise<string> {
  const temp = `${path}.${randomUUID()}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await removeQuietly(temp);
    throw error;
  }
  await handle.close();
  return temp;
}

function removeQuietly(path: string): Promise<void> {
  return unlink(path).catch(() => undefined);
}

/**
 * The rename of the staged file over the thread is the commit. `mayCommit` runs right before it:
 * the lock is checked once more (file-lock.ts: a recovery racing a fresh holder can, in a window
 * of microseconds, leave two writers believing they hold the lock; the second check makes the one
 * that lost the name give up with a conflict instead of overwriting). The caller removes the
 * staged file when this throws.
 */
async function commit(temp: string, path: string, mayCommit: () => Promise<boolean>): Promise<void> {
  if (!(await mayCommit())) throw new StoreConflictError('The thread lock was lost before the write; re-read and retry.');
  await rename(temp, path);
}

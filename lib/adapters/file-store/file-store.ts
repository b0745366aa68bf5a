/**
 * File driver (docs/architecture.md §3.5): `<state-dir>/threads/<thread-key>.json`, replaced atomically (temp file +
 * rename) inside a short exclusive lock (file-lock.ts), so compare-and-swap holds even when several adapter
 * processes share the directory. Folders 0700, files 0600. Each file holds
 * `{revision, writeId, document}`: the revision is the CAS token, the writeId the writer's nonce.
 */

import { randomUUID } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
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
  private prepared: Promise<void> | undefined;

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
    const envelope = await this.readEnvelope(this.pathFor(threadId));
    return envelope ? { document: envelope.document, revision: envelope.revision } : undefined;
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    const path = this.pathFor(threadId);
    try {
      await this.prepare();
      return await withFileLock(`${path}.lock`, { staleMs: this.options.staleLockMs ?? 10_000, waitMs: this.options.lockWaitMs ?? 5_000 }, async (stillHeld) => {
        const current = (await this.readEnvelope(path))?.revision ?? 0;
        if (current !== expected) throw new StoreConflictError();
        const envelope: Envelope = { revision: expected + 1, writeId: randomUUID(), document };
        await writeAtomically(path, JSON.stringify(envelope), stillHeld);
        return envelope.revision;
      });
    } catch (error) {
      // A conflict or a corrupt file says more than "cannot write"; an unreadable one gets the write's context.
      if (error instanceof StoreError && error.kind !== 'unavailable') throw error;
      throw new StoreUnavailableError(`cannot write thread state: ${(error as Error).message}`, { cause: error });
    }
  }

  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await mkdir(this.threadsDir, { recursive: true, mode: 0o700 });
      await chmod(this.stateDir, 0o700);
      await chmod(this.threadsDir, 0o700);
    })();
    this.prepared.catch(() => {
      this.prepared = undefined;
    });
    return this.prepared;
  }

  private async readEnvelope(path: string): Promise<Envelope | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StoreUnavailableError(`cannot read thread state: ${(error as Error).message}`, { cause: error });
    }
    try {
      const envelope = JSON.parse(text) as Envelope;
      if (!Number.isInteger(envelope.revision) || envelope.revision < 1 || typeof envelope.writeId !== 'string') throw new Error('bad envelope');
      return envelope;
    } catch (error) {
      throw new StoreCorruptError('The thread state file is corrupt.', { cause: error });
    }
  }
}

/**
 * Temp file + rename. `mayCommit` runs between the two: the rename is the commit, so the lock is
 * checked once more right before it (file-lock.ts: a recovery racing a fresh holder can, in a
 * window of microseconds, leave two writers believing they hold the lock; the second check makes
 * the one that lost the name give up with a conflict instead of overwriting).
 */
async function writeAtomically(path: string, text: string, mayCommit: () => Promise<boolean>): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (!(await mayCommit())) throw new StoreConflictError('The thread lock was lost before the write; re-read and retry.');
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

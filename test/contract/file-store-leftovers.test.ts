/**
 * What a crash can leave in the file store's directory, and what must happen next
 * (docs/architecture.md §3.5, docs/protocol.md §6.10): a lock file that is empty, truncated, of
 * another host or of a dead process is recovered — stale-lock recovery does not depend on reading
 * the lock — and so is one dated in the future by a clock stepped back, while a live holder's lock
 * is respected; a half-written temporary file is never mistaken for the thread, and the next
 * process removes it once it is stale; a document from a newer schema is a clear 503 for that
 * thread only, and nothing overwrites it; something that is not a regular file at a thread's path
 * (a FIFO, a link to a device) is never read, so it cannot stop the adapter.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { link, mkdir, mkdtemp, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { StoreCorruptError, StoreUnavailableError } from '../../lib/core/ports.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { lastEvent } from '../support/interrupts.js';
import { type Stack, startStack } from '../support/stack.js';

const run = promisify(execFile);

async function storeWithThread(options: { lockWaitMs?: number; staleLockMs?: number } = {}): Promise<{ store: FileThreadStore; lock: string }> {
  const store = new FileThreadStore(await mkdtemp(join(tmpdir(), 'agui-leftovers-')), options);
  await store.save('t', { n: 1 }, 0);
  return { store, lock: `${store.pathFor('t')}.lock` };
}

/** Sets a file's modification time `ageMs` into the past. */
async function age(path: string, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  await utimes(path, then, then);
}

describe('lock files left behind', () => {
  it('an empty lock (a crash between creating and writing it) is recovered', async () => {
    const { store, lock } = await storeWithThread();
    await writeFile(lock, '');
    expect(await store.save('t', { n: 2 }, 1)).toBe(2);
    expect(await store.load('t')).toEqual({ document: { n: 2 }, revision: 2 });
  });

  it('a truncated lock, and one of foreign bytes, are recovered', async () => {
    const { store, lock } = await storeWithThread();
    await writeFile(lock, `{"host":"${hostname()}","pi`);
    expect(await store.save('t', { n: 2 }, 1)).toBe(2);
    await writeFile(lock, '\u0000\u0001 not a lock');
    expect(await store.save('t', { n: 3 }, 2)).toBe(3);
  });

  it("another host's lock is respected while fresh and recovered once older than the stale age, whatever it contains", async () => {
    const { store, lock } = await storeWithThread({ lockWaitMs: 300, staleLockMs: 10_000 });
    await writeFile(lock, JSON.stringify({ host: 'another-host', pid: 1, nonce: 'theirs' }));
    await expect(store.save('t', { n: 2 }, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await age(lock, 11_000);
    expect(await store.save('t', { n: 2 }, 1)).toBe(2);
    // An old lock is stale by its age alone: its bytes are never needed.
    await writeFile(lock, JSON.stringify({ host: hostname(), pid: process.pid, nonce: 'mine-but-old' }));
    await age(lock, 11_000);
    expect(await store.save('t', { n: 3 }, 2)).toBe(3);
  });

  it('a live holder on this host is respected', async () => {
    const { store, lock } = await storeWithThread({ lockWaitMs: 1_500 });
    await writeFile(lock, JSON.stringify({ host: hostname(), pid: process.pid, nonce: 'alive' }));
    await expect(store.save('t', { n: 2 }, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await readFile(lock, 'utf8')).toContain('alive');
    expect(await store.load('t')).toEqual({ document: { n: 1 }, revision: 1 });
  });

  it("a save's lock is its staged revision: it names its live holder, so it is respected past the grace for record-less locks", async () => {
    const { store, lock } = await storeWithThread({ lockWaitMs: 1_500 });
    // The thread file is a staged revision this process wrote; linked to the lock's name it is
    // exactly what a save holding the lock leaves there.
    await link(store.pathFor('t'), lock);
    await age(lock, 1_500);
    await expect(store.save('t', { n: 2 }, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(JSON.parse(await readFile(lock, 'utf8'))).toMatchObject({ host: hostname(), pid: process.pid });
    expect(await store.load('t')).toEqual({ document: { n: 1 }, revision: 1 });
  });

  it('a lock dated in the future (the clock stepped back after a crash) is recovered once as far off as the stale age', async () => {
    const { store, lock } = await storeWithThread({ lockWaitMs: 300, staleLockMs: 10_000 });
    // Another host's record: nothing but its date can tell that it is stale.
    await writeFile(lock, JSON.stringify({ host: 'another-host', pid: 1, nonce: 'before-the-step' }));
    await age(lock, -60 * 60 * 1000);
    expect(await store.save('t', { n: 2 }, 1)).toBe(2);
    expect(await store.load('t')).toEqual({ document: { n: 2 }, revision: 2 });
  });

  it('leaves no claim or stale files behind once a lock was recovered', async () => {
    const { store, lock } = await storeWithThread();
    await writeFile(lock, '');
    await store.save('t', { n: 2 }, 1);
    const left = (await readdir(dirname(lock))).filter((name) => !name.endsWith('.json'));
    expect(left).toEqual([]);
  });
});

describe('recovery under a race', () => {
  it('four processes meeting the same stale lock at once recover it and lose no increment', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-stale-race-'));
    const store = new FileThreadStore(stateDir);
    await store.save('shared-thread', { count: 0 }, 0);
    const lock = `${store.pathFor('shared-thread')}.lock`;
    await writeFile(lock, '');
    await age(lock, 60_000);
    const racer = join(import.meta.dirname, '../support/cas-racer.ts');
    const startAt = String(Date.now() + 2_500);
    await Promise.all(
      Array.from({ length: 4 }, () => run(process.execPath, ['--import', 'tsx', racer, stateDir, 'shared-thread', '10', startAt], { cwd: join(import.meta.dirname, '../..') })),
    );
    expect(await store.load('shared-thread')).toEqual({ document: { count: 40 }, revision: 41 });
  }, 60_000);
});

describe('a half-written temporary file', () => {
  it('is never read as the thread, and the next save succeeds', async () => {
    const { store } = await storeWithThread();
    await writeFile(`${store.pathFor('t')}.${randomUUID()}.tmp`, '{"revision":2,"writeId":"dead","docu');
    expect(await store.load('t')).toEqual({ document: { n: 1 }, revision: 1 });
    expect(await store.save('t', { n: 2 }, 1)).toBe(2);
    expect(await store.load('t')).toEqual({ document: { n: 2 }, revision: 2 });
  });
});

describe('files crashed writers left behind', () => {
  it('staged revisions and moved-aside locks older than the stale age are removed by the next process’s first save; fresh ones stay', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-sweep-'));
    const first = new FileThreadStore(stateDir);
    await first.save('t', { n: 1 }, 0);
    const path = first.pathFor('t');
    const oldStaged = `${path}.${randomUUID()}.tmp`;
    const oldAside = `${path}.lock.${randomUUID()}.stale`;
    const futureStaged = `${path}.${randomUUID()}.tmp`;
    const freshStaged = `${path}.${randomUUID()}.tmp`;
    for (const file of [oldStaged, oldAside, futureStaged, freshStaged]) await writeFile(file, '{"revision":2,"writeId":"dead","docu');
    await age(oldStaged, 11_000);
    await age(oldAside, 60_000);
    await age(futureStaged, -60_000);
    const notOurs = join(dirname(path), 'notes.txt.tmp');
    await writeFile(notOurs, 'kept');
    await age(notOurs, 60_000);

    // A new process: its first save sweeps.
    const next = new FileThreadStore(stateDir);
    expect(await next.save('t', { n: 2 }, 1)).toBe(2);
    expect(await next.leftoversSwept()).toBe(3);
    const left = (await readdir(dirname(path))).sort();
    expect(left).toEqual([freshStaged, notOurs, path].map((file) => file.slice(dirname(path).length + 1)).sort());
  });
});

describe('a thread path that is not a regular file', () => {
  const loadHere = join(import.meta.dirname, '../support/load-thread.ts');
  /** Loads in a process of its own: a driver that blocked on the path would hang this test's process, not fail it. */
  async function loadElsewhere(stateDir: string, threadId: string): Promise<unknown> {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', loadHere, stateDir, threadId], { cwd: join(import.meta.dirname, '../..'), timeout: 15_000 });
    return JSON.parse(stdout);
  }

  it('a FIFO or a link to /dev/zero is that thread’s corrupt state, read without waiting or growing; the thread is not overwritten', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-odd-paths-'));
    const store = new FileThreadStore(stateDir, { lockWaitMs: 300 });
    await store.save('other', { n: 1 }, 0);
    await run('mkfifo', [store.pathFor('fifo-thread')]);
    await symlink('/dev/zero', store.pathFor('zero-thread'));

    expect(await loadElsewhere(stateDir, 'fifo-thread')).toEqual({ error: 'corrupt' });
    expect(await loadElsewhere(stateDir, 'zero-thread')).toEqual({ error: 'corrupt' });
    await expect(store.load('fifo-thread')).rejects.toBeInstanceOf(StoreCorruptError);
    await expect(store.save('zero-thread', { n: 1 }, 0)).rejects.toBeInstanceOf(StoreCorruptError);
    expect(await store.load('other')).toEqual({ document: { n: 1 }, revision: 1 });
  }, 40_000);

  it('through the adapter: 503 for that thread only, /health and other threads answer', async () => {
    const stack = await startStack({ store: 'file' });
    try {
      const threadId = uniqueId('fifo-thread');
      const store = stack.store as FileThreadStore;
      await mkdir(dirname(store.pathFor(threadId)), { recursive: true });
      await run('mkfifo', [store.pathFor(threadId)]);
      // In another process first: were the read to block, it must not block the adapter under test.
      expect(await loadElsewhere(stack.stateDir as string, threadId)).toEqual({ error: 'corrupt' });
      const refused = await stack.run(runBody({ threadId }));
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({ error: { code: 'STATE_UNAVAILABLE' } });
      expect((await fetch(`${stack.url}/health`)).status).toBe(200);
      expect(lastEvent((await stack.run(runBody({ threadId: uniqueId('other-thread') }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
    } finally {
      await stack.close();
    }
  }, 40_000);
});

describe('a thread document from a newer schema version', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ store: 'file' });
  });
  afterAll(async () => stack.close());

  it('is 503 STATE_UNAVAILABLE for that thread only, on a run and on a cancel; nothing overwrites it', async () => {
    const threadId = uniqueId('future-thread');
    const store = stack.store as FileThreadStore;
    const path = store.pathFor(threadId);
    const future = JSON.stringify({ revision: 7, writeId: 'future', document: { schemaVersion: 2, threadId, somethingNew: { kept: true } } });
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, future);

    const refused = await stack.run(runBody({ threadId }));
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ error: { code: 'STATE_UNAVAILABLE' } });
    const cancel = await stack.post('/extensions/iac-code/v1/executions/some-execution/cancel', { threadId, rosInvocationId: 'invocation-1' });
    expect(cancel.status).toBe(503);
    expect(await cancel.json()).toMatchObject({ error: { code: 'STATE_UNAVAILABLE' } });
    expect(await readFile(path, 'utf8')).toBe(future);
    expect(stack.emulator.callsOf('SendStreamingMessage').some((call) => JSON.stringify(call.params).includes(threadId))).toBe(false);

    expect(lastEvent((await stack.run(runBody({ threadId: uniqueId('other-thread') }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});

import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { describeThreadStoreContract } from './thread-store-contract.js';

const run = promisify(execFile);

describeThreadStoreContract('file', async () => new FileThreadStore(await mkdtemp(join(tmpdir(), 'agui-contract-'))), {
  reopen: async (store) => new FileThreadStore((store as FileThreadStore).stateDir),
  corrupt: async (store, threadId) => writeFile((store as FileThreadStore).pathFor(threadId), '{"revision":1,"writeId":'),
  // A writer that died holding the lock, after writing half of its temporary file.
  crashMidSave: async (store, threadId, document, expected) => {
    const path = (store as FileThreadStore).pathFor(threadId);
    await writeFile(`${path}.lock`, JSON.stringify({ host: hostname(), pid: 2 ** 22 + 11, nonce: 'dead-writer' }));
    await writeFile(`${path}.dead-writer.tmp`, JSON.stringify({ revision: expected + 1, writeId: 'dead', document }).slice(0, 20));
  },
});

describe('file driver across processes', () => {
  it('is a true compare-and-swap: four processes racing 25 increments each lose none', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-race-'));
    const racer = join(import.meta.dirname, '../support/cas-racer.ts');
    const startAt = String(Date.now() + 2_500);
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () => run(process.execPath, ['--import', 'tsx', racer, stateDir, 'shared-thread', '25', startAt], { cwd: join(import.meta.dirname, '../..') })),
    );
    const stored = await new FileThreadStore(stateDir).load('shared-thread');
    expect(stored).toEqual({ document: { count: 100 }, revision: 100 });
    const conflicts = outputs.reduce((sum, output) => sum + (JSON.parse(output.stdout) as { conflicts: number }).conflicts, 0);
    // The racers really did collide (otherwise the test proves nothing).
    expect(conflicts).toBeGreaterThan(0);
  }, 60_000);

  it('recovers a lock left behind by a dead process', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-lock-'));
    const store = new FileThreadStore(stateDir, { lockWaitMs: 2_000 });
    await store.save('t', { n: 1 }, 0);
    const { writeFile } = await import('node:fs/promises');
    const { hostname } = await import('node:os');
    // A pid that cannot exist on this host.
    await writeFile(`${store.pathFor('t')}.lock`, JSON.stringify({ host: hostname(), pid: 2 ** 22 + 7, nonce: 'dead' }));
    expect(await store.save('t', { n: 2 }, 1)).toBe(2);
  });
});

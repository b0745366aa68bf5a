/**
 * `npm run bench:oss` reports the OSS requests per admission, turn, interrupt and resume
 * (docs/state-store.md "Request counts"); this keeps the script working and the table true.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

it('reports the request counts documented in docs/state-store.md', async () => {
  const root = join(import.meta.dirname, '../..');
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/bench-oss.ts'], { cwd: root, timeout: 60_000 });
  const requests = (JSON.parse(stdout) as { ossRequests: Record<string, { total: number; journal: number }> }).ossRequests;
  const totals = Object.fromEntries(Object.entries(requests).map(([name, counts]) => [name, counts.total]));
  const journal = Object.fromEntries(Object.entries(requests).map(([name, counts]) => [name, counts.journal]));
  expect(totals).toMatchObject({
    'admission, new thread': 2,
    'admission, existing thread': 1,
    'admission, existing thread, last written by another instance': 3,
    'normal turn, new thread (hello)': 4,
    'normal turn, existing thread (hello)': 3,
    'normal turn, existing thread, previous turn on another instance': 5,
    'rejected admission (DUPLICATE_RUN_ID)': 2,
    'rejected admission (THREAD_BUSY)': 1,
    'cancel of a live run (route + the run ending on its instance)': 2,
    'interrupt (permission run, new thread)': 4,
    'resume (answering the interrupt)': 3,
    'resume on another instance': 5,
    'one save with a known base (e.g. a lease renewal)': 1,
    'one load': 1,
    'one load by another instance': 2,
  });
  // The event journal's own requests beside them (docs/state-store.md "The event journal"): a short
  // run's batches — its start with the session event and its first text, its end with the spans it
  // closes (docs/design/reattach.md "Cost") — and its expiry on the due list.
  expect(journal).toMatchObject({
    'admission, new thread': 0,
    'normal turn, new thread (hello)': 3,
    'normal turn, existing thread (hello)': 3,
    'rejected admission (THREAD_BUSY)': 0,
    'cancel of a live run (route + the run ending on its instance)': 2,
    'interrupt (permission run, new thread)': 4,
    'resume (answering the interrupt)': 6,
    'one save with a known base (e.g. a lease renewal)': 0,
  });
}, 60_000);

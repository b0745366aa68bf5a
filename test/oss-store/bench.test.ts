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
  const totals = Object.fromEntries(
    Object.entries((JSON.parse(stdout) as { ossRequests: Record<string, { total: number }> }).ossRequests).map(([name, counts]) => [name, counts.total]),
  );
  expect(totals).toMatchObject({
    'admission, new thread': 3,
    'admission, existing thread': 4,
    'normal turn, new thread (hello)': 7,
    'normal turn, existing thread (hello)': 8,
    'rejected admission (DUPLICATE_RUN_ID)': 2,
    'rejected admission (THREAD_BUSY)': 2,
    'interrupt (permission run, new thread)': 7,
    'resume (answering the interrupt)': 8,
    'one save with a known base (e.g. a lease renewal)': 2,
    'one load': 2,
  });
}, 60_000);

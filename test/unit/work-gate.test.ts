/**
 * The gate image work passes through (lib/adapters/image/work-gate.ts, docs/architecture.md §4.6):
 * never more than its limit at once, the rest in the order they came, and a failure frees its
 * place like a success.
 */
import { describe, expect, it } from 'vitest';
import { WorkGate } from '../../lib/adapters/image/work-gate.js';

/** Work that ends when the test says so. */
function held(log: string[], name: string) {
  let finish!: (ok: boolean) => void;
  const done = new Promise<boolean>((resolve) => (finish = resolve));
  const work = async () => {
    log.push(`start ${name}`);
    if (!(await done)) throw new Error(`${name} failed`);
    log.push(`end ${name}`);
    return name;
  };
  return { work, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a work gate', () => {
  it('runs at most its limit at once, lets the others in as places free up, in order, and frees a failed one’s place', async () => {
    const gate = new WorkGate(2);
    const log: string[] = [];
    const jobs = ['a', 'b', 'c', 'd'].map((name) => held(log, name));
    const results = jobs.map((job) => gate.run(job.work).catch((error: Error) => error.message));
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    jobs[1]?.finish(false);
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    jobs[0]?.finish(true);
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c', 'end a', 'start d']);
    jobs[2]?.finish(true);
    jobs[3]?.finish(true);
    expect(await Promise.all(results)).toEqual(['a', 'b failed', 'c', 'd']);
    // Every place was given back: two at once again.
    const again = ['e', 'f', 'g'].map((name) => held(log, name));
    const more = again.map((job) => gate.run(job.work));
    await settle();
    expect(log.slice(-2)).toEqual(['start e', 'start f']);
    for (const job of again) job.finish(true);
    expect(await Promise.all(more)).toEqual(['e', 'f', 'g']);
  });
});

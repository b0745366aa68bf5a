/**
 * ReadAhead (lib/core/run/read-ahead.ts; docs/architecture.md §2.4): items come out once each, in
 * order, whether read ahead or not; an error met ahead surfaces at the consumer's next read, not
 * before; closing ends the source, after the read in flight when there is one.
 */
import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../../lib/core/run/read-ahead.js';

/** A source that records how far it was read and whether it was closed. */
function source(items: number[], failAt?: number) {
  const log = { read: 0, closed: false };
  async function* generate(): AsyncGenerator<number> {
    try {
      for (const [index, item] of items.entries()) {
        if (index === failAt) throw new Error(`broken at ${index}`);
        log.read += 1;
        yield item;
      }
    } finally {
      log.closed = true;
    }
  }
  return { log, stream: generate() };
}

describe('ReadAhead', () => {
  it('hands out every item once, in order, whether it was read ahead or not', async () => {
    const { log, stream } = source([1, 2, 3, 4]);
    const items = new ReadAhead(stream);
    const seen: number[] = [];
    for (let turn = 0; ; turn += 1) {
      const next = await items.next();
      if (next.done) break;
      if (turn % 2 === 0) items.readNext();
      seen.push(next.value);
    }
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(log.read).toBe(4);
  });

  it('reads one item ahead, no more', async () => {
    const { log, stream } = source([1, 2, 3]);
    const items = new ReadAhead(stream);
    await items.next();
    items.readNext();
    items.readNext();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.read).toBe(2);
  });

  it('keeps an error met ahead for the next read', async () => {
    const { stream } = source([1, 2], 1);
    const items = new ReadAhead(stream);
    expect(await items.next()).toEqual({ done: false, value: 1 });
    items.readNext();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(items.next()).rejects.toThrow('broken at 1');
  });

  it('closes the source, at once or once the read in flight settled', async () => {
    const idle = source([1, 2, 3]);
    const first = new ReadAhead(idle.stream);
    await first.next();
    await first.close();
    expect(idle.log.closed).toBe(true);

    const busy = source([1, 2, 3]);
    const second = new ReadAhead(busy.stream);
    await second.next();
    second.readNext();
    await second.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(busy.log.closed).toBe(true);
    // The item read ahead was never handed out, and nothing after it was read.
    expect(busy.log.read).toBe(2);
  });
});

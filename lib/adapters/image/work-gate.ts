/**
 * At most `limit` pieces of work at once; the others wait, in the order they came, and each one
 * that ends hands its place to the next (sharp-codec.ts: image work's share of libuv's pool,
 * docs/architecture.md §4.6).
 *
 * Written here rather than taken from p-limit: this is all of it that is needed, and p-limit with
 * its queue package cost 0.8 KB of the function bundle's 200 KB gzipped budget (issue 13,
 * test/fc/bundle.test.ts) for options nothing here uses.
 */
export class WorkGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active += 1;
    else await new Promise<void>((enter) => this.waiting.push(enter));
    try {
      return await work();
    } finally {
      // The place passes to the next in line, or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}

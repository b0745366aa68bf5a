/**
 * A ThreadStore wrapper that fails chosen calls. A mock only in the brief's sense: a real store
 * cannot be made to fail its Nth write on demand; everything else goes to the real driver.
 */
import { type StoredDocument, StoreUnavailableError, type ThreadStore } from '../../lib/core/ports.js';

export class FaultyStore implements ThreadStore {
  readonly kind: ThreadStore['kind'];
  saves = 0;
  loads = 0;
  private failingSaves = new Set<number>();
  private failingWhen: Array<(threadId: string, document: unknown) => boolean> = [];
  private failingLoads = false;

  constructor(readonly inner: ThreadStore) {
    this.kind = inner.kind;
  }

  /** Fails the save that is the `n`-th from now (1 = the next one). */
  failSaveAfter(n: number): void {
    this.failingSaves.add(this.saves + n);
  }

  /**
   * Fails the next save that `matches` (then stops matching): a write picked by what it writes,
   * not by its position — so a lease renewal that happens to come first cannot take its place.
   */
  failSaveWhen(matches: (threadId: string, document: unknown) => boolean): void {
    this.failingWhen.push(matches);
  }

  failLoads(on: boolean): void {
    this.failingLoads = on;
  }

  async load(threadId: string): Promise<StoredDocument | undefined> {
    this.loads += 1;
    if (this.failingLoads) throw new StoreUnavailableError('injected load failure');
    return this.inner.load(threadId);
  }

  async save(threadId: string, document: unknown, expected: number): Promise<number> {
    this.saves += 1;
    if (this.failingSaves.delete(this.saves)) throw new StoreUnavailableError('injected save failure');
    const matching = this.failingWhen.findIndex((matches) => matches(threadId, document));
    if (matching >= 0) {
      this.failingWhen.splice(matching, 1);
      throw new StoreUnavailableError('injected save failure');
    }
    return this.inner.save(threadId, document, expected);
  }
}

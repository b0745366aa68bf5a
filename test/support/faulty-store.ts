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
  private failingLoads = false;
  private failingWhere: ((document: Record<string, unknown>) => boolean) | undefined;

  constructor(readonly inner: ThreadStore) {
    this.kind = inner.kind;
  }

  /** Fails the save that is the `n`-th from now (1 = the next one). */
  failSaveAfter(n: number): void {
    this.failingSaves.add(this.saves + n);
  }

  /**
   * Fails the next save whose document matches — a write picked by what it writes, not by its
   * rank, for runs whose lease renewals may land in between under load.
   */
  failSaveWhere(matches: (document: Record<string, unknown>) => boolean): void {
    this.failingWhere = matches;
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
    if (this.failingWhere?.(document as Record<string, unknown>)) {
      this.failingWhere = undefined;
      throw new StoreUnavailableError('injected save failure');
    }
    return this.inner.save(threadId, document, expected);
  }
}

/**
 * What an adversarial run of the OSS store must never show (issue 23; docs/state-store.md
 * "Invariants"), judged from the history its writers recorded and the thread's final document.
 * Each save appends one entry to the document it was based on, so the final document's entries are
 * the committed history: revision r is the state with the first r entries.
 */

export interface SaveRecord {
  entry: string;
  /** The revision the save was based on (`expected`). */
  expected: number;
  /** The entries of the document it was based on. */
  baseEntries: readonly string[];
  outcome: 'acknowledged' | 'conflict' | 'unavailable' | 'corrupt';
  /** Set when acknowledged. */
  revision?: number;
  /** History sequence numbers: when the call started and when it answered. */
  startedAt: number;
  finishedAt: number;
}

export interface LoadRecord {
  revision: number;
  entries: readonly string[];
  startedAt: number;
}

export interface History {
  saves: SaveRecord[];
  loads: LoadRecord[];
  /** Loads that failed with StoreCorruptError: never legitimate on a thread only the driver writes. */
  corruptLoads: number;
}

/** Every violation found, in words; empty when the run kept every invariant. */
export function violations(history: History, finalEntries: readonly string[]): string[] {
  const found: string[] = [];
  const acknowledged = history.saves.filter((save) => save.outcome === 'acknowledged');
  const byBase = new Map<number, SaveRecord>();
  for (const save of acknowledged) {
    const other = byBase.get(save.expected);
    if (other) found.push(`two saves acknowledged on base ${save.expected}: ${other.entry} and ${save.entry}`);
    byBase.set(save.expected, save);
    if (save.revision !== save.expected + 1) found.push(`${save.entry} on base ${save.expected} was acknowledged as revision ${save.revision}`);
    if (finalEntries[save.expected] !== save.entry)
      found.push(`acknowledged ${save.entry} (revision ${save.revision}) is not at its place in the final document (found ${finalEntries[save.expected] ?? 'nothing'})`);
    else if (!samePrefix(save.baseEntries, finalEntries)) found.push(`acknowledged ${save.entry} was based on a state that is not the committed revision ${save.expected}`);
  }
  for (const save of history.saves) if (save.outcome === 'corrupt') found.push(`${save.entry}: a save met StoreCorruptError`);
  if (history.corruptLoads > 0) found.push(`${history.corruptLoads} loads met StoreCorruptError`);
  for (const load of history.loads) {
    if (load.entries.length !== load.revision || !samePrefix(load.entries, finalEntries)) {
      found.push(`a load returned revision ${load.revision} with a state that was never committed (${load.entries.slice(-3).join(', ')})`);
    }
    const newestBefore = Math.max(0, ...acknowledged.filter((save) => save.finishedAt < load.startedAt).map((save) => save.revision ?? 0));
    if (load.revision < newestBefore) found.push(`a load returned revision ${load.revision} after revision ${newestBefore} had been acknowledged`);
  }
  return found;
}

/** Whether `entries` are the first entries of `history`. */
function samePrefix(entries: readonly string[], history: readonly string[]): boolean {
  return entries.length <= history.length && entries.every((entry, index) => history[index] === entry);
}

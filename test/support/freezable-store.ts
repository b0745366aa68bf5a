/**
 * A thread store (with its journal) one instance sees through, that can be frozen: every call made
 * while frozen waits until it is thawed, then goes on — what a SIGSTOPped instance's I/O does
 * (docs/design/reattach.md "Races"). Other instances use the real store directly.
 */

import type { JournalBatch } from '../../lib/core/journal/batch.js';
import type { BatchKey, DueEntry, EventJournal, ThreadStore } from '../../lib/core/ports.js';

export interface Freezable {
  store: ThreadStore;
  freeze(): void;
  thaw(): void;
}

export function freezable(real: ThreadStore): Freezable {
  let gate: Promise<void> | undefined;
  let open: () => void = () => undefined;
  const held = async <T>(call: () => Promise<T>): Promise<T> => {
    while (gate) await gate;
    return call();
  };
  const journal = real.journal;
  const frozenJournal: EventJournal | undefined = journal && {
    append: (threadId: string, batch: JournalBatch) => held(() => journal.append(threadId, batch)),
    read: (threadId: string, executionId: string, after?: BatchKey) => held(() => journal.read(threadId, executionId, after)),
    remove: (threadId: string, executionId: string, throughEpoch?: number) => held(() => journal.remove(threadId, executionId, throughEpoch)),
    schedule: (entry: DueEntry, replacing?: DueEntry) => held(() => journal.schedule(entry, replacing)),
    unschedule: (entry: DueEntry) => held(() => journal.unschedule(entry)),
    due: (now: number, limit: number) => held(() => journal.due(now, limit)),
  };
  const store: ThreadStore = {
    kind: real.kind,
    load: (threadId) => held(() => real.load(threadId)),
    save: (threadId, document, expected) => held(() => real.save(threadId, document, expected)),
    ...(frozenJournal ? { journal: frozenJournal } : {}),
  };
  return {
    store,
    freeze: () => {
      gate ??= new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    thaw: () => {
      gate = undefined;
      open();
    },
  };
}

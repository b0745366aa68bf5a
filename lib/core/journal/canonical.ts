/**
 * An execution's event order as its journal tells it (docs/protocol.md §6.15): the batches of every
 * epoch in order, each epoch cut where a takeover forked from it, and what a reader at a given
 * position receives next. Pure.
 */
import type { EpochStart, JournalBatch } from './batch.js';
import { isRegenerableText, MAX_UNJOURNALED } from './durability.js';
import { batchKeyOf } from './journal-names.js';
import { comparePositions, type Position } from './position.js';

export interface CanonicalEntry extends Position {
  event: JournalBatch['entries'][number]['event'];
}

export interface EpochInfo {
  start: EpochStart | undefined;
  /** The last seq of this epoch in the order (after cuts); 0 when none. */
  lastSeq: number;
  /** Entries of this epoch were left out: a takeover forked before them, or a batch is missing. */
  cut: boolean;
  /** Its producer's journal reached the cap after `lastSeq`: what it sent next is in no journal (event-log.ts). */
  full?: boolean;
}

export interface Canonical {
  entries: CanonicalEntry[];
  epochs: Map<number, EpochInfo>;
}

/** Orders the batches of one execution (any order, duplicates allowed). */
export function canonicalOrder(batches: readonly JournalBatch[]): Canonical {
  const byEpoch = new Map<number, JournalBatch[]>();
  for (const batch of batches) {
    const own = byEpoch.get(batch.epoch);
    if (own) own.push(batch);
    else byEpoch.set(batch.epoch, [batch]);
  }
  const entries: CanonicalEntry[] = [];
  const epochs = new Map<number, EpochInfo>();
  for (const epoch of [...byEpoch.keys()].sort((a, b) => a - b)) {
    const own = (byEpoch.get(epoch) ?? []).sort((a, b) => batchKeyOf(a).firstSeq - batchKeyOf(b).firstSeq);
    const start = own.find((batch) => batch.start !== undefined)?.start;
    if (start?.kind === 'takeover') cutAt(entries, epochs, start.fromEpoch, start.fromSeq);
    let next = 1;
    let cut = start === undefined;
    let full = false;
    if (!cut) {
      for (const batch of own) {
        const first = batch.entries[0];
        if (first === undefined && batch.full && batch.fenceSeq === next) full = true;
        if (first === undefined || first.seq < next) continue;
        // A batch that never landed: nothing of this epoch after it can be placed.
        if (first.seq !== next) {
          cut = true;
          break;
        }
        for (const entry of batch.entries) entries.push({ epoch, seq: entry.seq, k: entry.k, event: entry.event });
        next = first.seq + batch.entries.length;
      }
    }
    epochs.set(epoch, full ? { start, lastSeq: next - 1, cut, full } : { start, lastSeq: next - 1, cut });
  }
  return { entries, epochs };
}

/**
 * The reader has all the journal holds of a full epoch (the cap), and no later epoch continues it:
 * what its producer sent next is in no journal.
 */
export function atFullEnd(canonical: Canonical, position: Position | undefined): boolean {
  if (position === undefined) return false;
  const info = canonical.epochs.get(position.epoch);
  return info?.full === true && position.seq >= info.lastSeq && ![...canonical.epochs.keys()].some((epoch) => epoch > position.epoch);
}

/** A takeover continued from (fromEpoch, fromSeq): what came after it in the order is a dead branch. */
function cutAt(entries: CanonicalEntry[], epochs: Map<number, EpochInfo>, fromEpoch: number, fromSeq: number): void {
  const keep = entries.findIndex((entry) => comparePositions(entry, { epoch: fromEpoch, seq: fromSeq }) > 0);
  if (keep >= 0) entries.length = keep;
  for (const [epoch, info] of epochs) {
    if (epoch > fromEpoch || (epoch === fromEpoch && info.lastSeq > fromSeq)) {
      info.cut = true;
      info.lastSeq = epoch === fromEpoch ? fromSeq : 0;
    }
  }
}

/**
 * Where a reader on a dead branch stands: the epoch it was on, the agent text it holds (`k`), and —
 * changed as the reader is sent more — whether the run it holds open is still open to it.
 */
export interface Branch {
  epoch: number;
  k: number;
  runOpen?: boolean;
  /**
   * The run the reader holds open (the takeover that forked it continues that run): a later
   * `RUN_STARTED` of another run is a new run, not the takeover starting the reader's run again.
   */
  runId?: string;
}

export type Continuation =
  /**
   * What follows the reader's position in the order (possibly nothing yet). `branch` is set when the
   * position lay on a dead branch: from then on the reader already holds the agent text up to
   * `branch.k` of every epoch after `branch.epoch` (skipText).
   */
  | { kind: 'entries'; entries: CanonicalEntry[]; branch?: Branch }
  /** The reader holds events the journal does not have (yet): its producer has not journaled them, or died first. */
  | { kind: 'ahead' }
  /** The position is older than what the journal keeps. */
  | { kind: 'expired' };

/**
 * What a reader at `position` receives next. Without a position: the current run from its first
 * event. A reader whose position lies on a dead branch — events its producer sent but never
 * journaled before a takeover forked (docs/protocol.md §6.15) — continues from the fork, less the
 * agent text it already holds (text up to its cursor `k`, which the takeover regenerated).
 */
export function continuationAfter(canonical: Canonical, position: Position | undefined): Continuation {
  const { entries, epochs } = canonical;
  if (position === undefined) {
    // The current run starts at the order's last RUN_STARTED — journaled by the run's own epoch, or
    // by a takeover that started it again because the run's epoch journaled nothing (takeover.ts) —
    // unless a newer run's epoch exists that has journaled no start yet: its events are still to come.
    const runEpoch = Math.max(0, ...[...epochs].filter(([, info]) => info.start?.kind === 'run').map(([epoch]) => epoch));
    const first = entries.findLastIndex((entry) => entry.event.type === 'RUN_STARTED');
    const start = entries[first];
    return { kind: 'entries', entries: start === undefined || start.epoch < runEpoch ? [] : entries.slice(first) };
  }
  const info = epochs.get(position.epoch);
  if (info === undefined) {
    const later = [...epochs.keys()].filter((epoch) => epoch > position.epoch).sort((a, b) => a - b)[0];
    if (later === undefined) return { kind: 'ahead' };
    // The position's producer journaled nothing before a takeover forked from before it: a dead branch.
    const start = epochs.get(later)?.start;
    if (start?.kind !== 'takeover' || start.fromEpoch >= position.epoch) return { kind: 'expired' };
    return deadBranch(canonical, position);
  }
  if (position.seq <= info.lastSeq) {
    const index = entries.findIndex((entry) => comparePositions(entry, position) > 0);
    return { kind: 'entries', entries: index < 0 ? [] : entries.slice(index) };
  }
  // Past the cap: what the reader holds was never journaled, so nothing can follow it exactly.
  if (info.full) return { kind: 'expired' };
  // Beyond what this epoch has in the order: a dead branch when a later epoch continues it.
  if (![...epochs.keys()].some((epoch) => epoch > position.epoch)) return { kind: 'ahead' };
  return deadBranch(canonical, position);
}

/** What a reader on a dead branch gets: the order after the fork, less what it holds (lessHeldText). */
function deadBranch({ entries, epochs }: Canonical, position: Position): Continuation {
  // The text cursor only grows within an epoch: a position behind the cursor of what its epoch
  // journaled before it was never handed out (a forged or garbled id), and is honoured by nothing.
  const journaled = entries.findLast((entry) => entry.epoch === position.epoch);
  if (position.k < (journaled?.k ?? 0)) return { kind: 'expired' };
  // Nor one further past its epoch's journal than a producer releases unjournaled (durability.ts).
  if (position.seq > (journaled?.seq ?? 0) + MAX_UNJOURNALED) return { kind: 'expired' };
  // The takeover that forked from the reader's epoch (or before it) continues the reader's run.
  const fork = [...epochs].sort(([a], [b]) => a - b).find(([epoch, info]) => epoch > position.epoch && info.start?.kind === 'takeover' && info.start.fromEpoch <= position.epoch);
  const runId = fork?.[1].start?.runId;
  const branch: Branch = runId === undefined ? { epoch: position.epoch, k: position.k } : { epoch: position.epoch, k: position.k, runId };
  const later = entries.findIndex((entry) => entry.epoch > position.epoch);
  return { kind: 'entries', entries: later < 0 ? [] : lessHeldText(branch, entries.slice(later)), branch };
}

/**
 * `entries` less the agent text a reader from a dead branch already holds (continuationAfter): a
 * regenerated delta wholly before its cursor is left out, one across it keeps only its part after
 * it (`k` is the cursor after a delta, so the delta began `delta.length` characters before).
 */
export function lessHeldText(branch: Branch | undefined, entries: readonly CanonicalEntry[]): CanonicalEntry[] {
  if (branch === undefined) return [...entries];
  const kept: CanonicalEntry[] = [];
  for (const entry of entries) {
    const { event } = entry;
    // A reader on a dead branch holds its run open (the run's end is journaled before it is sent):
    // a takeover that started that run again — its start was never journaled — is not news to it.
    if (branch.runOpen !== false && entry.epoch > branch.epoch) {
      if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') branch.runOpen = false;
      else if (event.type === 'RUN_STARTED') {
        branch.runOpen = false;
        // Another run's start is news: the reader's run never ended in the journal (follow-execution.ts
        // answers that with the clear error).
        if (branch.runId === undefined || event.runId === branch.runId) continue;
      }
    }
    if (entry.epoch <= branch.epoch || !isRegenerableText(event)) {
      kept.push(entry);
      continue;
    }
    if (entry.k <= branch.k) continue;
    const before = entry.k - event.delta.length;
    kept.push(before >= branch.k ? entry : { ...entry, event: { ...event, delta: event.delta.slice(branch.k - before) } });
  }
  return kept;
}

/**
 * The order with one epoch's entries taken from its live producer on this instance (every record
 * it keeps, journaled or not): a reader there sees what the producer's own caller sees. The log
 * keeps a bounded tail (fan-out.ts): the epoch's entries before its first kept one come from the
 * journal.
 */
export function withLiveEpoch(canonical: Canonical, epoch: number, live: readonly CanonicalEntry[], start: EpochStart): Canonical {
  const entries = canonical.entries.filter((entry) => entry.epoch < epoch);
  const epochs = new Map([...canonical.epochs].filter(([known]) => known < epoch).map(([known, info]) => [known, { ...info }]));
  // The journal may have been read before the takeover wrote its fork point: cut here as well.
  if (start.kind === 'takeover') cutAt(entries, epochs, start.fromEpoch, start.fromSeq);
  const firstLive = live[0]?.seq ?? Number.POSITIVE_INFINITY;
  entries.push(...canonical.entries.filter((entry) => entry.epoch === epoch && entry.seq < firstLive), ...live);
  epochs.set(epoch, { start, lastSeq: live.at(-1)?.seq ?? 0, cut: false });
  return { entries, epochs };
}

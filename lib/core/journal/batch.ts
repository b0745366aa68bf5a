/**
 * What a journal holds (docs/protocol.md §6.15, docs/state-store.md "The event journal"): per
 * execution, batches of the events its producers emitted, each with its position. A batch is
 * written once and never changed; an epoch's first batch says where the epoch continues the
 * execution — after everything before it (a new run), or from a fork point of the epoch before it
 * (a takeover, whose dead predecessor may have written more that no reader must see).
 */
import type { AguiEvent } from '../translate/events.js';

export interface JournalEntry {
  seq: number;
  /** The kernel text cursor after the event (position.ts). */
  k: number;
  event: AguiEvent;
}

export type EpochStart = { kind: 'run'; runId: string } | { kind: 'takeover'; runId: string; fromEpoch: number; fromSeq: number };

export interface JournalBatch {
  executionId: string;
  epoch: number;
  /** On an epoch's first batch only. */
  start?: EpochStart;
  /** Consecutive seqs; empty only on an epoch's first batch (a takeover's fork point) or a fence. */
  entries: JournalEntry[];
  /**
   * A fence (docs/design/reattach.md "Fence"): written by the producer of a later epoch under the
   * name this epoch's next batch would have, so the producer it replaced can journal nothing past
   * the fork. Holds no entries; readers pass over it.
   */
  fenceSeq?: number;
  /** With `fenceSeq`: written by the epoch's own producer — its journal is full from that seq on (the cap). */
  full?: boolean;
  /** When the batch was written (the writer's clock, epoch ms): the journal's expiry counts from its newest batch. */
  writtenAt?: number;
}

function isInteger(value: unknown, minimum: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= minimum;
}

function startOf(value: unknown): EpochStart | undefined | false {
  if (value === undefined) return undefined;
  const start = value as Record<string, unknown> | null;
  if (typeof start !== 'object' || start === null || typeof start['runId'] !== 'string') return false;
  if (start['kind'] === 'run') return { kind: 'run', runId: start['runId'] };
  if (start['kind'] === 'takeover' && isInteger(start['fromEpoch'], 1) && isInteger(start['fromSeq'], 0)) {
    return { kind: 'takeover', runId: start['runId'], fromEpoch: start['fromEpoch'], fromSeq: start['fromSeq'] };
  }
  return false;
}

/** A stored batch as read back; undefined when it is not one (the reader treats it as missing). */
export function parseBatch(text: string, executionId: string): JournalBatch | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const batch = value as Record<string, unknown> | null;
  if (typeof batch !== 'object' || batch === null || batch['executionId'] !== executionId || !isInteger(batch['epoch'], 1)) return undefined;
  const start = startOf(batch['start']);
  if (start === false || !Array.isArray(batch['entries'])) return undefined;
  const entries: JournalEntry[] = [];
  for (const raw of batch['entries'] as unknown[]) {
    const entry = raw as Record<string, unknown> | null;
    if (typeof entry !== 'object' || entry === null || !isInteger(entry['seq'], 1) || !isInteger(entry['k'], 0)) return undefined;
    const event = entry['event'] as Record<string, unknown> | null;
    if (typeof event !== 'object' || event === null || typeof event['type'] !== 'string') return undefined;
    const previous = entries.at(-1);
    if (previous !== undefined && entry['seq'] !== previous.seq + 1) return undefined;
    entries.push({ seq: entry['seq'], k: entry['k'], event: event as unknown as AguiEvent });
  }
  const parsed: JournalBatch = { executionId, epoch: batch['epoch'], entries };
  if (start) parsed.start = start;
  if (isInteger(batch['fenceSeq'], 1) && entries.length === 0) {
    parsed.fenceSeq = batch['fenceSeq'];
    if (batch['full'] === true) parsed.full = true;
  }
  if (typeof batch['writtenAt'] === 'number' && Number.isFinite(batch['writtenAt'])) parsed.writtenAt = batch['writtenAt'];
  return parsed;
}

export function serializeBatch(batch: JournalBatch): string {
  return JSON.stringify(batch);
}

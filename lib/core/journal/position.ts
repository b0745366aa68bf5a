/**
 * Where an event stands in its execution's event order (docs/protocol.md §4.12), and the SSE `id`
 * that carries it. Opaque to clients; the same event has the same id whoever reads it.
 *
 * - `epoch`: the producer generation. Every run of an execution, and every takeover of a run whose
 *   producer is gone (§6.15), produces a new epoch; the order is epoch first, then seq.
 * - `seq`: the event's place within its epoch, from 1.
 * - `k`: the kernel text cursor after the event — how many agent-text status messages of the
 *   task the producer had consumed. Text is what the kernel's task history keeps one message per
 *   delta, so a reader that holds events a dead producer never journaled is positioned in the
 *   kernel's history by `k` (§6.15 "Takeover").
 *
 * The id is `<tag>.<epoch>.<seq>.<k>`, with `tag` naming the execution (a short digest of its id),
 * so an id presented for another execution is told apart from one that is merely old.
 */
import { sha256Hex } from '../hash.js';

export interface Position {
  epoch: number;
  seq: number;
  k: number;
}

/** The digest part of an execution's ids: 10 hex digits of SHA-256 of its executionId. */
export function executionTag(executionId: string): string {
  return sha256Hex(executionId).slice(0, 10);
}

export function eventId(tag: string, position: Position): string {
  return `${tag}.${position.epoch}.${position.seq}.${position.k}`;
}

export type ParsedEventId = { kind: 'position'; position: Position } | { kind: 'otherExecution' } | { kind: 'malformed' };

const ID = /^([0-9a-f]{10})\.(\d{1,9})\.(\d{1,9})\.(\d{1,12})$/;

/** Reads an id given back by a client (Last-Event-ID, afterSequence) for the execution `tag` names. */
export function parseEventId(value: string, tag: string): ParsedEventId {
  const match = ID.exec(value.trim());
  if (!match) return { kind: 'malformed' };
  if (match[1] !== tag) return { kind: 'otherExecution' };
  return { kind: 'position', position: { epoch: Number(match[2]), seq: Number(match[3]), k: Number(match[4]) } };
}

/** Negative when `a` comes first in the execution's order (epoch, then seq). */
export function comparePositions(a: Pick<Position, 'epoch' | 'seq'>, b: Pick<Position, 'epoch' | 'seq'>): number {
  return a.epoch - b.epoch || a.seq - b.seq;
}

/**
 * Switchable fault injection (docs/architecture.md §9.3), so tests can drive
 * the OSS driver through what real networks and real OSS do: 5xx answers, slow answers, a
 * connection that dies before the answer, and — the important one for a compare-and-swap built on
 * create-only writes — a write that *was applied* but whose answer was lost (`dropAfterApply`),
 * which the driver must recognise on retry as its own (docs/architecture.md §3.2).
 *
 * Faults are matched in the order they were added; each match uses up one of its `times`
 * (default 1; Infinity allowed) and a used-up fault is discarded.
 */
import type { OssOperation } from './operations.js';
import type { OssFault } from './server.js';

export interface FaultSubject {
  method: string;
  operation: OssOperation;
  /**
   * The names the request touches: the object key for object operations, the `prefix` parameter
   * for listings, every key of a DeleteMultipleObjects body.
   */
  names: readonly string[];
}

interface ArmedFault {
  fault: OssFault;
  remaining: number;
}

function applies(fault: OssFault, subject: FaultSubject): boolean {
  if (fault.method !== undefined && fault.method.toUpperCase() !== subject.method) return false;
  if (fault.operation !== undefined && fault.operation !== subject.operation) return false;
  if (fault.keyPrefix !== undefined && !subject.names.some((name) => name.startsWith(fault.keyPrefix ?? ''))) return false;
  return true;
}

export class FaultBook {
  private armed: ArmedFault[] = [];

  add(fault: OssFault): void {
    const times = fault.times ?? 1;
    if (!(times > 0)) throw new Error('OssFault.times must be positive');
    if (fault.status !== undefined && (fault.status < 400 || fault.status > 599)) throw new Error('OssFault.status must be an HTTP error status');
    this.armed.push({ fault: { ...fault }, remaining: times });
  }

  clear(): void {
    this.armed = [];
  }

  /** The first fault that applies, with one use consumed; undefined when none does. */
  take(subject: FaultSubject): OssFault | undefined {
    const index = this.armed.findIndex((armed) => applies(armed.fault, subject));
    const found = this.armed[index];
    if (found === undefined) return undefined;
    found.remaining -= 1;
    if (found.remaining <= 0) this.armed.splice(index, 1);
    return found.fault;
  }
}

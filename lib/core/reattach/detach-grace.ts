/**
 * The detach grace is the client's to ask for (docs/protocol.md §6.15 "Whose grace"): a request
 * names the grace it wants in a header, IAC_CODE_AGUI_DETACH_GRACE_MS bounds it, and a request that
 * asks for none keeps the seed's rule — its disconnect cancels the run (§6.8). The grace is the
 * run's: written into its lease at admission, so every instance that follows, takes over or sweeps
 * the run keeps the promise its caller was given.
 */
import { AdapterError } from '../errors.js';
import type { Lease } from '../thread/document.js';

/** The header, as fetch's Headers reads it (lower case). */
export const DETACH_GRACE_HEADER = 'x-iac-code-detach-grace-ms';

/** The grace a request asked for, at most `maxMs`; 0 when it asked for none. A malformed value is 400 INVALID_INPUT. */
export function askedGraceMs(header: string | null, maxMs: number): number {
  if (header === null || header.trim() === '') return 0;
  const value = header.trim();
  if (!/^\d{1,15}$/.test(value)) {
    throw new AdapterError('INVALID_INPUT', 'invalidDetachGrace', [{ path: 'X-Iac-Code-Detach-Grace-Ms', message: 'Expected a whole number of milliseconds, 0 or more.' }]);
  }
  return Math.min(Number(value), maxMs);
}

/**
 * The grace of the run a lease holds, at most `maxMs`: what its caller asked for. A lease written
 * before the grace was the client's has none recorded and keeps the server's, as it was admitted.
 */
export function runGraceMs(lease: Pick<Lease, 'graceMs'> | null | undefined, maxMs: number): number {
  if (!lease) return 0;
  return lease.graceMs === undefined ? maxMs : Math.min(lease.graceMs, maxMs);
}

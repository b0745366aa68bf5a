/**
 * The detach grace is the client's to ask for, the server's setting its maximum
 * (lib/core/reattach/detach-grace.ts, docs/protocol.md §6.15 "Whose grace").
 */
import { describe, expect, it } from 'vitest';
import { AdapterError } from '../../lib/core/errors.js';
import { askedGraceMs, runGraceMs } from '../../lib/core/reattach/detach-grace.js';
import { takeOverRun } from '../../lib/core/thread/detach-transitions.js';
import { threadDocument } from '../support/thread-document.js';

describe('the grace a request asks for', () => {
  it('is none without the header, and at most the server’s maximum with it', () => {
    expect(askedGraceMs(null, 60_000)).toBe(0);
    expect(askedGraceMs('  ', 60_000)).toBe(0);
    expect(askedGraceMs('0', 60_000)).toBe(0);
    expect(askedGraceMs('30000', 60_000)).toBe(30_000);
    expect(askedGraceMs(' 3600000 ', 60_000)).toBe(60_000);
    expect(askedGraceMs('60000', 0)).toBe(0);
  });

  it.each(['-1', '1.5', '1e3', 'sixty', '0x10', '9999999999999999'])('refuses %j with 400 INVALID_INPUT naming the header', (value) => {
    let caught: unknown;
    try {
      askedGraceMs(value, 60_000);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AdapterError);
    expect(caught).toMatchObject({ code: 'INVALID_INPUT', messageKey: 'invalidDetachGrace', details: [{ path: 'X-Iac-Code-Detach-Grace-Ms' }] });
  });
});

describe('a run’s grace', () => {
  it('is what its lease recorded, at most the maximum; a lease from before keeps the maximum; no lease has none', () => {
    expect(runGraceMs({ graceMs: 5_000 }, 60_000)).toBe(5_000);
    expect(runGraceMs({ graceMs: 0 }, 60_000)).toBe(0);
    expect(runGraceMs({ graceMs: 90_000 }, 60_000)).toBe(60_000);
    expect(runGraceMs({}, 60_000)).toBe(60_000);
    expect(runGraceMs(null, 60_000)).toBe(0);
  });

  it('stays the run’s through a takeover', () => {
    const held = threadDocument({ activeRun: { runId: 'run-1', leaseId: 'lease-1', expiresAt: 1, detachedUntil: 5, graceMs: 0 } });
    expect(takeOverRun(held, { leaseId: 'lease-2', expiresAt: 10 }).activeRun).toEqual({ runId: 'run-1', leaseId: 'lease-2', expiresAt: 10, graceMs: 0 });
  });
});

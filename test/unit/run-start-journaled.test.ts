/**
 * Whether a takeover continues a run whose start its readers have (lib/core/journal/open-spans.ts
 * runStartJournaled): a resume may reuse the interrupted run's runId (docs/protocol.md §6.2), so
 * the earlier run's start under the same id must not count as the resume's.
 */
import { describe, expect, it } from 'vitest';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import { canonicalOrder } from '../../lib/core/journal/canonical.js';
import { runStartJournaled } from '../../lib/core/journal/open-spans.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';

const event = (type: string, fields: Record<string, unknown> = {}) => ({ type, timestamp: 1, ...fields }) as unknown as AguiEvent;

function epochOf(epoch: number, runId: string, events: AguiEvent[]): JournalBatch {
  return { executionId: 'x', epoch, start: { kind: 'run', runId }, entries: events.map((item, index) => ({ seq: index + 1, k: 0, event: item })) };
}

const interrupted = epochOf(1, 'run-1', [
  event('RUN_STARTED', { threadId: 't', runId: 'run-1' }),
  event('RUN_FINISHED', { threadId: 't', runId: 'run-1', outcome: { type: 'interrupt', interrupts: [] } }),
]);

describe('a run’s start in the journal', () => {
  it('counts for the run it names while no run end follows it', () => {
    const open = epochOf(2, 'run-2', [event('RUN_STARTED', { threadId: 't', runId: 'run-2' }), event('TEXT_MESSAGE_START', { messageId: 'm' })]);
    expect(runStartJournaled(canonicalOrder([interrupted, open]), 'run-2')).toBe(true);
  });

  it('does not count for a resume that reused the interrupted run’s runId and journaled nothing yet', () => {
    expect(runStartJournaled(canonicalOrder([interrupted]), 'run-1')).toBe(false);
    const resumedStart = epochOf(2, 'run-1', [event('RUN_STARTED', { threadId: 't', runId: 'run-1' })]);
    expect(runStartJournaled(canonicalOrder([interrupted, resumedStart]), 'run-1')).toBe(true);
  });

  it('does not count for another run, or in an empty journal', () => {
    expect(runStartJournaled(canonicalOrder([interrupted]), 'run-2')).toBe(false);
    expect(runStartJournaled(canonicalOrder([]), 'run-1')).toBe(false);
  });
});

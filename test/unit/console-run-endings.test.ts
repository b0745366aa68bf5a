/**
 * What the end of a run's stream means for the console (lib/console/app/run/run-endings.ts,
 * docs/protocol.md §4.11, §5.5, §6.14): pending interrupts from RUN_FINISHED, a refused answer
 * shown where it was given (and the forms checked again when they are stale), the subscribe
 * route's 404 and 409 said plainly, and the live-run record kept exactly when a reload could still
 * reattach.
 */
import { describe, expect, it } from 'vitest';
import { type Failure, httpFailure } from '../../lib/client/failures.js';
import { planEnding } from '../../lib/console/app/run/run-endings.js';

const OWNER = { observing: false, cancelled: false };
const interrupt = { id: 'input-1', reason: 'tool_call', message: 'Allow once?' };
const failure = (code: string): Failure => ({ kind: 'http', code, message: `the adapter's ${code}`, details: [] });

describe('the end of a run in the console', () => {
  it('takes the pending interrupts from RUN_FINISHED, and forgets the live run', () => {
    const finished = { type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts: [interrupt] } };
    expect(planEnding({ kind: 'terminal', terminal: finished }, 'turn', OWNER)).toEqual({ forget: true, pending: [interrupt] });
    expect(planEnding({ kind: 'terminal', terminal: { type: 'RUN_FINISHED', outcome: { type: 'success' } } }, 'reload', OWNER)).toEqual({ forget: true, pending: [] });
  });

  it('shows an observed run the person cancelled as cancelled, though the observation ends RUN_FINISHED', () => {
    const finished = { type: 'RUN_FINISHED', outcome: { type: 'success' } };
    expect(planEnding({ kind: 'terminal', terminal: finished }, 'reload', { observing: true, cancelled: true })).toMatchObject({
      footer: { text: 'Cancelled', state: 'cancelled' },
    });
    expect(planEnding({ kind: 'aborted' }, 'turn', { observing: true, cancelled: true })).toEqual({ forget: true, pending: [], footer: { text: 'Cancelled', state: 'cancelled' } });
  });

  it('says a reattached run was cancelled while the page was away when the page did not cancel it', () => {
    const cancelled = { type: 'RUN_ERROR', code: 'CANCELLED', message: 'The execution was cancelled.' };
    expect(planEnding({ kind: 'terminal', terminal: cancelled }, 'reload', { observing: true, cancelled: false }).say).toMatch(/^The run was cancelled while this page was away/);
    expect(planEnding({ kind: 'terminal', terminal: cancelled }, 'reload', { observing: true, cancelled: true }).say).toBeUndefined();
    expect(planEnding({ kind: 'terminal', terminal: cancelled }, 'turn', OWNER).say).toBeUndefined();
  });

  it('keeps the forms after a refused answer, and checks them again only when the code says they are stale', () => {
    const refused = (code: string) => planEnding({ kind: 'terminal', terminal: { type: 'RUN_ERROR', code, message: code } }, 'resume', OWNER);
    expect(refused('RESUME_PAYLOAD_INVALID')).toEqual({
      forget: true,
      panel: { kind: 'run', code: 'RESUME_PAYLOAD_INVALID', message: 'RESUME_PAYLOAD_INVALID', details: [] },
      recheck: false,
    });
    expect(refused('RESUME_ALREADY_APPLIED')).toMatchObject({ recheck: true });
    expect(refused('INCOMPLETE_RESUME')).toMatchObject({ recheck: true });
    expect(refused('A2A_EXECUTION_FAILED')).toEqual({ forget: true, pending: [] });
    // The same code on a new turn is no answer of the person's: nothing stays pending.
    expect(planEnding({ kind: 'terminal', terminal: { type: 'RUN_ERROR', code: 'RESUME_ALREADY_APPLIED' } }, 'turn', OWNER)).toEqual({ forget: true, pending: [] });
  });

  it('says plainly that nothing is left to watch, or that another execution started, and clears what was pending', () => {
    expect(planEnding({ kind: 'gone', failure: failure('EXECUTION_NOT_FOUND') }, 'reload', OWNER)).toMatchObject({
      forget: true,
      pending: [],
      footer: { text: 'Nothing left to watch', failure: { code: 'EXECUTION_NOT_FOUND', message: "the adapter's EXECUTION_NOT_FOUND" } },
    });
    expect(planEnding({ kind: 'gone', failure: failure('EXECUTION_NOT_FOUND') }, 'check', OWNER).footer?.failure?.message).toBe(
      'The request no longer waits: its execution has ended or was cancelled (from another tab or client, perhaps).',
    );
    expect(planEnding({ kind: 'replaced', failure: failure('OBSERVATION_IDENTITY_CHANGED') }, 'check', OWNER)).toMatchObject({
      forget: true,
      pending: [],
      footer: { text: 'Replaced by another execution' },
      say: 'Another execution has started on this thread.',
    });
  });

  it('keeps the live record when a reload could still reattach: after the attempts ran out, or a 401', () => {
    const exhausted = planEnding({ kind: 'exhausted', failure: failure('CONNECTION_LOST') }, 'turn', OWNER);
    expect(exhausted).toMatchObject({ forget: false, footer: { text: 'Connection lost' } });
    expect(exhausted.footer?.failure?.message).toContain('reload the page to try again');
    expect(planEnding({ kind: 'lost', failure: failure('STREAM_ENDED') }, 'turn', OWNER)).toMatchObject({ forget: true });
    expect(planEnding({ kind: 'unauthorized', failure: failure('UNAUTHORIZED') }, 'reload', OWNER)).toMatchObject({
      forget: false,
      watchAgain: true,
      footer: { text: 'Not reattached' },
    });
  });

  it('leaves the forms usable when a check could not be made, and shows a failed answer where it was given', () => {
    expect(planEnding({ kind: 'exhausted', failure: failure('UNREACHABLE') }, 'check', OWNER)).toMatchObject({ forget: false, panelUsable: true, footer: { text: 'Not checked' } });
    expect(planEnding({ kind: 'not-run', failure: failure('THREAD_BUSY') }, 'resume', OWNER)).toMatchObject({ forget: true, panel: { code: 'THREAD_BUSY' } });
  });
});

describe('a THREAD_BUSY answer in the console', () => {
  it('names the run holding the thread from the error details (docs/protocol.md §2.2), and nothing from details of another shape', () => {
    const detached = { executionId: 'execution-1', runId: 'run-7', state: 'detached', detachedUntil: 1_767_225_600_000 };
    expect(httpFailure(409, { error: { code: 'THREAD_BUSY', message: 'busy', details: detached } })).toEqual({
      kind: 'http',
      code: 'THREAD_BUSY',
      message: 'busy',
      details: [],
      holder: detached,
    });
    expect(httpFailure(409, { error: { code: 'THREAD_BUSY', message: 'busy', details: { executionId: 'execution-1', runId: 'run-7', state: 'live' } } }).holder).toEqual({
      executionId: 'execution-1',
      runId: 'run-7',
      state: 'live',
    });
    // An adapter before issue 29 says nothing more; a malformed answer is not trusted.
    expect(httpFailure(409, { error: { code: 'THREAD_BUSY', message: 'busy' } }).holder).toBeUndefined();
    expect(httpFailure(409, { error: { code: 'THREAD_BUSY', message: 'busy', details: { runId: 'run-7', state: 'gone' } } }).holder).toBeUndefined();
    expect(httpFailure(400, { error: { code: 'INVALID_INPUT', message: 'bad', details: [{ path: 'threadId', message: 'x' }] } }).holder).toBeUndefined();
  });
});

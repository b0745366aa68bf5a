/**
 * When the console reattaches to a lost run and when it stops (lib/client/reattach-policy.ts,
 * docs/protocol.md §6.14): the backoff, and what each way an observation can end means — the
 * subscribe route's 404 and 409, a 401, a server error, a broken connection, an observation the
 * adapter ended with "subscribe again", a terminal event.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionBroken } from '../../lib/client/ending-fetch.js';
import { BASE_DELAY_MS, backoffMs, eventIdRefused, judgeAttempt, MAX_DELAY_MS } from '../../lib/client/reattach-policy.js';

/** An HTTP failure as @ag-ui/client's HttpAgent throws it: the status and the parsed body. */
function httpError(status: number, code: string): Error {
  return Object.assign(new Error(`HTTP ${status}`), { status, payload: { error: { code, message: `the adapter's ${code}` } } });
}

describe('reattaching to a lost run', () => {
  it('backs off from half a second, doubling, to at most eight seconds', () => {
    expect([1, 2, 3, 4, 5, 6, 9].map(backoffMs)).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(backoffMs(1)).toBe(BASE_DELAY_MS);
    expect(backoffMs(30)).toBe(MAX_DELAY_MS);
  });

  it('stops at a terminal event, except an observation the adapter ended with A2A_UNAVAILABLE ("subscribe again")', () => {
    const finished = { type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: { type: 'success' } };
    expect(judgeAttempt(finished, undefined, false)).toEqual({ retry: false, end: { kind: 'terminal', terminal: finished } });
    const failed = { type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED', message: 'failed' };
    expect(judgeAttempt(failed, undefined, false)).toEqual({ retry: false, end: { kind: 'terminal', terminal: failed } });
    const unavailable = { type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE', message: 'Subscribe again.' };
    expect(judgeAttempt(unavailable, undefined, false)).toMatchObject({ retry: true, heldBack: unavailable, failure: { code: 'A2A_UNAVAILABLE', message: 'Subscribe again.' } });
  });

  it('says plainly that nothing is left to watch (404) or that another execution started (409), keeping the code', () => {
    const gone = judgeAttempt(undefined, httpError(404, 'EXECUTION_NOT_FOUND'), false);
    expect(gone).toMatchObject({ retry: false, end: { kind: 'gone', failure: { code: 'EXECUTION_NOT_FOUND' } } });
    expect(!gone.retry && 'failure' in gone.end && gone.end.failure.message).toContain('cancelled when its connection closed');
    const replaced = judgeAttempt(undefined, httpError(409, 'OBSERVATION_IDENTITY_CHANGED'), false);
    expect(replaced).toMatchObject({ retry: false, end: { kind: 'replaced', failure: { code: 'OBSERVATION_IDENTITY_CHANGED' } } });
    expect(!replaced.retry && 'failure' in replaced.end && replaced.end.failure.message).toContain('Another execution has started on this thread');
  });

  it('asks for the token on 401, gives up on a refused request, and tries again on a server error or a broken connection', () => {
    expect(judgeAttempt(undefined, httpError(401, 'UNAUTHORIZED'), false)).toMatchObject({ retry: false, end: { kind: 'unauthorized', failure: { kind: 'unauthorized' } } });
    expect(judgeAttempt(undefined, httpError(400, 'INVALID_INPUT'), false)).toMatchObject({ retry: false, end: { kind: 'failed', failure: { code: 'INVALID_INPUT' } } });
    expect(judgeAttempt(undefined, httpError(503, 'STATE_UNAVAILABLE'), false)).toMatchObject({ retry: true, failure: { code: 'STATE_UNAVAILABLE' } });
    expect(judgeAttempt(undefined, new ConnectionBroken('reset'), false)).toMatchObject({ retry: true, failure: { code: 'CONNECTION_LOST' } });
    // fetch rejects with a TypeError when nothing answers (offline, connection refused).
    expect(judgeAttempt(undefined, new TypeError('Failed to fetch'), false)).toMatchObject({ retry: true, failure: { code: 'UNREACHABLE' } });
    // A stream that simply ended without its terminal event.
    expect(judgeAttempt(undefined, undefined, false)).toMatchObject({ retry: true, failure: { code: 'STREAM_ENDED' } });
  });

  it('stops without a word when the page aborted the observation (a cancel)', () => {
    expect(judgeAttempt(undefined, new ConnectionBroken('aborted'), true)).toEqual({ retry: false, end: { kind: 'aborted' } });
  });

  it('follows again without the event id when the adapter refuses the id, and only then', () => {
    expect(eventIdRefused(httpError(409, 'EVENT_ID_EXPIRED'))).toBe(true);
    expect(eventIdRefused(httpError(409, 'EVENT_ID_MISMATCH'))).toBe(true);
    const badId = Object.assign(new Error('HTTP 400'), {
      status: 400,
      payload: { error: { code: 'INVALID_INPUT', message: 'bad id', details: [{ path: 'Last-Event-ID', message: 'Not an event id of this adapter.' }] } },
    });
    expect(eventIdRefused(badId)).toBe(true);
    expect(eventIdRefused(httpError(409, 'OBSERVATION_IDENTITY_CHANGED'))).toBe(false);
    expect(eventIdRefused(httpError(400, 'INVALID_INPUT'))).toBe(false);
    expect(eventIdRefused(httpError(404, 'EXECUTION_NOT_FOUND'))).toBe(false);
    expect(eventIdRefused(undefined)).toBe(false);
  });
});

/**
 * Whether an execution can be observed (lib/core/observe/observable.ts; docs/protocol.md §6.14):
 * the pure decision over the stored thread document — what counts as a live task, and which
 * identity mismatch is 404 or 409, in the peer's order.
 */
import { describe, expect, it } from 'vitest';
import { SERVICE } from '../../lib/core/caller.js';
import { AdapterError, type FieldIssue } from '../../lib/core/errors.js';
import { decideObservation, liveTaskOf } from '../../lib/core/observe/observable.js';
import { parseObservationRequest } from '../../lib/core/observe/observation-request.js';
import { newExecution, type ThreadDocument } from '../../lib/core/thread/document.js';

const LEASE = { runId: 'run-1', leaseId: 'lease-1', expiresAt: 1 };
const PENDING = { id: 'ask-1', input: { kind: 'ask_user_question', inputId: 'ask-1' }, sideband: false };

function document(overrides: { taskId?: string | null; lease?: boolean; pending?: boolean; terminal?: boolean } = {}): ThreadDocument {
  const execution = { ...newExecution('exec-1', 'ros-1'), taskId: overrides.taskId === undefined ? 'task-1' : overrides.taskId, pending: overrides.pending ? [PENDING] : [] };
  return {
    schemaVersion: 1,
    threadId: 'thread-1',
    contextId: 'agui-context',
    cwd: '/workspace',
    userId: null,
    iacCodeSessionId: 'session-1',
    execution,
    runDigests: { 'run-0': 'digest-0', 'run-1': 'digest-1' },
    appliedResumes: [],
    terminalExecutions: overrides.terminal ? { 'exec-0': 'ros-0', 'exec-1': 'ros-1' } : { 'exec-0': 'ros-0' },
    activeRun: overrides.lease === false ? null : LEASE,
  };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof AdapterError) return error.code;
    throw error;
  }
  return 'ok';
}

function request(overrides: { executionId?: string; runId?: string; rosInvocationId?: string } = {}) {
  const { executionId = 'exec-1', ...body } = overrides;
  return parseObservationRequest({ threadId: 'thread-1', runId: 'run-1', rosInvocationId: 'ros-1', ...body }, executionId, SERVICE);
}

describe('a live task', () => {
  it('is a known task of a non-terminal execution with a lease held or an interrupt pending', () => {
    expect(liveTaskOf(document())).toBe('task-1');
    expect(liveTaskOf(document({ lease: false, pending: true }))).toBe('task-1');
    expect(liveTaskOf(document({ lease: true, pending: true }))).toBe('task-1');
  });

  it('is not a finished normal turn, a task not known yet, or a terminal execution', () => {
    expect(liveTaskOf(document({ lease: false }))).toBeUndefined();
    expect(liveTaskOf(document({ taskId: null }))).toBeUndefined();
    expect(liveTaskOf(document({ terminal: true }))).toBeUndefined();
    expect(liveTaskOf(document({ terminal: true, pending: true }))).toBeUndefined();
  });
});

describe('deciding an observation', () => {
  it('admits the current execution with its rosInvocationId and any admitted runId', () => {
    expect(decideObservation(document(), request()).taskId).toBe('task-1');
    expect(decideObservation(document(), request({ runId: 'run-0' })).taskId).toBe('task-1');
  });

  it('answers 404 before 409: an unknown thread or no live task, whatever the identity', () => {
    expect(codeOf(() => decideObservation(undefined, request()))).toBe('EXECUTION_NOT_FOUND');
    expect(codeOf(() => decideObservation(document({ lease: false }), request({ executionId: 'exec-0' })))).toBe('EXECUTION_NOT_FOUND');
  });

  it('answers 409 for another (or rotated) executionId, another rosInvocationId, a runId never admitted', () => {
    expect(codeOf(() => decideObservation(document(), request({ executionId: 'exec-0' })))).toBe('OBSERVATION_IDENTITY_CHANGED');
    expect(codeOf(() => decideObservation(document(), request({ rosInvocationId: 'ros-2' })))).toBe('OBSERVATION_IDENTITY_CHANGED');
    expect(codeOf(() => decideObservation(document(), request({ runId: 'run-9' })))).toBe('OBSERVATION_IDENTITY_CHANGED');
  });

  it('refuses a body with missing, empty or unknown fields, naming each, and keeps afterSequence for the position it may name', () => {
    const error = (() => {
      try {
        parseObservationRequest({ threadId: '', afterSequence: 'anything', other: 1 }, 'exec-1', SERVICE);
      } catch (caught) {
        return caught as AdapterError;
      }
      throw new Error('accepted');
    })();
    expect(error.code).toBe('INVALID_INPUT');
    expect((error.details as FieldIssue[] | undefined)?.map((detail) => detail.path).sort()).toEqual(['other', 'rosInvocationId', 'runId', 'threadId']);
    expect(parseObservationRequest({ threadId: 't', runId: 'r', rosInvocationId: 'i', afterSequence: 7 }, 'e', SERVICE)).toEqual({
      executionId: 'e',
      afterSequence: 7,
      threadId: 't',
      runId: 'r',
      rosInvocationId: 'i',
      caller: SERVICE,
    });
  });
});

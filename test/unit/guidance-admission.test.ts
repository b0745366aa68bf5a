/**
 * Admission of a guidance run (lib/core/thread/guidance-admission.ts; docs/protocol.md §6.13): the
 * pure decision — which requests are refused with which code and in which order, that THREAD_BUSY
 * is skipped, and that an admitted guidance changes nothing but its run digest.
 */
import { describe, expect, it } from 'vitest';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { SERVICE } from '../../lib/core/caller.js';
import { AdapterError } from '../../lib/core/errors.js';
import { parseRunRequest, type RunRequest } from '../../lib/core/protocol/run-request.js';
import type { Lease, PendingInterrupt, ThreadDocument } from '../../lib/core/thread/document.js';
import { decideGuidance } from '../../lib/core/thread/guidance-admission.js';
import { TEST_THREAD, type ThreadDocumentOverrides, threadDocument } from '../support/thread-document.js';

const THREAD = TEST_THREAD;
const NOW = 1_700_000_000_000;

interface GuidanceOptions {
  runId?: string;
  runMode?: string | null;
  cwd?: string;
  userId?: string;
  rosInvocationId?: string;
  resume?: boolean;
}

function guidance(options: GuidanceOptions = {}): RunRequest {
  const iacCode: Record<string, unknown> = {
    schemaVersion: 1,
    rosInvocationId: options.rosInvocationId ?? 'ros-guide',
    cwd: options.cwd ?? '/workspace/a',
    activeGuidance: true,
    runMode: options.runMode === undefined ? 'pipeline' : options.runMode,
  };
  if (options.userId !== undefined) iacCode['userId'] = options.userId;
  const body: Record<string, unknown> = {
    threadId: THREAD,
    runId: options.runId ?? 'run-guide',
    state: {},
    messages: [{ id: 'message-1', role: 'user', content: 'use two zones' }],
    tools: [],
    context: [],
    forwardedProps: { iacCode },
  };
  if (options.resume) body['resume'] = [{ interruptId: 'input-1', status: 'resolved', payload: { decision: 'allow_once' } }];
  return parseRunRequest(body, { allowedRoots: [], caller: SERVICE });
}

const ownerLease = (fromNow: number): Lease => ({ runId: 'run-owner', leaseId: 'lease-owner', expiresAt: NOW + fromNow });
const permission: PendingInterrupt = { id: 'input-1', input: { kind: 'permission', toolUseId: 'tool-1' }, sideband: true };

/** A thread whose pipeline run `run-owner` streams on task-1 under ros-1, holding a live lease. */
function running(overrides: ThreadDocumentOverrides = {}): ThreadDocument {
  return threadDocument({
    runDigests: { 'run-owner': 'digest-owner', 'run-used': guidance({ runId: 'run-used' }).digest },
    activeRun: ownerLease(20_000),
    ...overrides,
    execution: { lastTaskId: 'task-1', ...overrides.execution },
  });
}

function refusalOf(stored: ThreadDocument | undefined, request: RunRequest): string | undefined {
  try {
    decideGuidance(stored, request);
    return undefined;
  } catch (error) {
    if (!(error instanceof AdapterError)) throw error;
    return `${error.code}:${error.messageKey}`;
  }
}

describe('decideGuidance refuses', () => {
  it.each<[string, ThreadDocument | undefined, RunRequest, string]>([
    ['a thread never seen', undefined, guidance(), 'EXECUTION_LOST:executionLostResume'],
    ['a used runId with the same body', running(), guidance({ runId: 'run-used' }), 'DUPLICATE_RUN_ID:runIdUsed'],
    ['the owning run’s runId', running(), guidance({ runId: 'run-owner' }), 'RUN_ID_CONFLICT:runIdUsed'],
    ['another cwd', running(), guidance({ cwd: '/workspace/b' }), 'THREAD_BINDING_CONFLICT:threadBindingConflict'],
    ['a userId the thread is not bound to', running(), guidance({ userId: 'user-1' }), 'THREAD_BINDING_CONFLICT:threadBindingConflict'],
    ['a resume', running(), guidance({ resume: true }), 'EXECUTION_LOST:executionLostResume'],
    ['a normal run mode', running(), guidance({ runMode: 'normal' }), 'EXECUTION_LOST:executionLostResume'],
    ['no run mode', running(), guidance({ runMode: null }), 'EXECUTION_LOST:executionLostResume'],
    ['an execution without a task', running({ execution: { taskId: null } }), guidance(), 'EXECUTION_LOST:executionLostResume'],
    ['a terminal execution', running({ terminalExecutions: { 'execution-1': 'ros-1' } }), guidance(), 'EXECUTION_LOST:executionLostResume'],
    ['a turn that ended (lease released, task parked)', running({ activeRun: null }), guidance(), 'EXECUTION_LOST:executionLostResume'],
    ['pending interrupts while the run streams', running({ execution: { pending: [permission] } }), guidance(), 'RESUME_REQUIRED:resumeRequired'],
    ['pending interrupts after the run ended with them', running({ activeRun: null, execution: { pending: [permission] } }), guidance(), 'RESUME_REQUIRED:resumeRequired'],
    [
      'a resume while interrupts are pending (the resume rule first)',
      running({ execution: { pending: [permission] } }),
      guidance({ resume: true }),
      'EXECUTION_LOST:executionLostResume',
    ],
    ['a used runId before the run-mode and task rules', running({ activeRun: null }), guidance({ runId: 'run-used', runMode: 'normal' }), 'RUN_ID_CONFLICT:runIdUsed'],
  ])('%s', (_case, stored, request, refusal) => {
    expect(refusalOf(stored, request)).toBe(refusal);
  });
});

describe('decideGuidance admits', () => {
  it('past a live lease (no THREAD_BUSY), recording only its run digest: no lease, no rotation, rosInvocationId not adopted', () => {
    const stored = running();
    const request = guidance({ rosInvocationId: 'ros-other' });
    const { document, target } = decideGuidance(stored, request);
    expect(target).toEqual({ contextId: contextIdFor(THREAD), taskId: 'task-1' });
    expect(document).toEqual({ ...stored, runDigests: { ...stored.runDigests, 'run-guide': request.digest } });
  });

  it('a pipeline whose owning instance died (an expired lease), as the peer does after a restart', () => {
    expect(decideGuidance(running({ activeRun: ownerLease(-60_000) }), guidance()).target.taskId).toBe('task-1');
  });
});

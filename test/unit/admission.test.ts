/**
 * Admission of a run into its thread (lib/core/thread/admission.ts; docs/protocol.md §6): the
 * pure decision over the stored thread document — who is refused with which code, in which order
 * the rules apply, and what the admitted document holds (lease, execution, idempotency digests).
 */
import { describe, expect, it } from 'vitest';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { SERVICE } from '../../lib/core/caller.js';
import { AdapterError } from '../../lib/core/errors.js';
import { parseRunRequest, type RunRequest } from '../../lib/core/protocol/run-request.js';
import type { ResumeEntry } from '../../lib/core/protocol/schemas.js';
import { type AdmissionContext, admitRun, MAX_RUN_DIGESTS, MAX_TERMINAL_EXECUTIONS } from '../../lib/core/thread/admission.js';
import type { Lease, PendingInterrupt, ThreadDocument } from '../../lib/core/thread/document.js';
import { TEST_THREAD, type ThreadDocumentOverrides, threadDocument } from '../support/thread-document.js';

const THREAD = TEST_THREAD;
const NOW = 1_700_000_000_000;
const TTL = 30_000;
const CONTEXT: AdmissionContext = { now: NOW, leaseTtlMs: TTL, newExecutionId: () => 'execution-new', leaseId: 'lease-new', graceMs: 0 };

interface RequestOptions {
  runId?: string;
  text?: string;
  cwd?: string;
  userId?: string;
  rosInvocationId?: string;
  resume?: ResumeEntry[];
}

/** A RunRequest as the HTTP layer hands it over: parsed from a RunAgentInput body, digest included. */
function request(options: RequestOptions = {}): RunRequest {
  const iacCode: Record<string, unknown> = { schemaVersion: 1, rosInvocationId: options.rosInvocationId ?? 'ros-1', cwd: options.cwd ?? '/workspace/a' };
  if (options.userId !== undefined) iacCode['userId'] = options.userId;
  const body: Record<string, unknown> = {
    threadId: THREAD,
    runId: options.runId ?? 'run-new',
    state: {},
    messages: [{ id: 'message-1', role: 'user', content: options.text ?? 'hello' }],
    tools: [],
    context: [],
    forwardedProps: { iacCode },
  };
  if (options.resume) body['resume'] = options.resume;
  return parseRunRequest(body, { allowedRoots: [], caller: SERVICE });
}

const resume = (options: RequestOptions = {}) => request({ ...options, resume: [{ interruptId: 'input-1', status: 'resolved', payload: { decision: 'allow_once' } }] });

const permission: PendingInterrupt = { id: 'input-1', input: { kind: 'permission', toolUseId: 'tool-1' }, sideband: false };

/** A lease held by an earlier run, expiring `fromNow` ms after NOW (negative: already expired). */
const leaseFor = (fromNow: number): Lease => ({ runId: 'run-old', leaseId: 'lease-old', expiresAt: NOW + fromNow });

/** A stored thread: bound to /workspace/a without a user, on execution-1 (task-1, ros-1), idle, run-old remembered. */
function storedThread(overrides: ThreadDocumentOverrides = {}): ThreadDocument {
  return threadDocument({ runDigests: { 'run-old': request({ runId: 'run-old' }).digest }, ...overrides });
}

function refusalOf(stored: ThreadDocument | undefined, incoming: RunRequest): { code: string; messageKey: string } | undefined {
  try {
    admitRun(stored, incoming, CONTEXT);
    return undefined;
  } catch (error) {
    if (!(error instanceof AdapterError)) throw error;
    return { code: error.code, messageKey: error.messageKey };
  }
}

describe('admitRun refuses', () => {
  it.each<[string, ThreadDocument | undefined, RunRequest, string, string]>([
    ['a resume of a thread never seen', undefined, resume(), 'EXECUTION_LOST', 'executionLostResume'],
    ['a used runId with the same body', storedThread(), request({ runId: 'run-old' }), 'DUPLICATE_RUN_ID', 'runIdUsed'],
    ['a used runId with another body', storedThread(), request({ runId: 'run-old', text: 'something else' }), 'RUN_ID_CONFLICT', 'runIdUsed'],
    [
      'a used runId even while the thread is busy (idempotency first)',
      storedThread({ activeRun: leaseFor(5_000) }),
      request({ runId: 'run-old' }),
      'DUPLICATE_RUN_ID',
      'runIdUsed',
    ],
    ['a run while another holds a live lease', storedThread({ activeRun: leaseFor(5_000) }), request(), 'THREAD_BUSY', 'threadBusy'],
    ['a run while the lease has 1 ms left', storedThread({ activeRun: leaseFor(1) }), request(), 'THREAD_BUSY', 'threadBusy'],
    ['a resume while another holds a live lease', storedThread({ activeRun: leaseFor(5_000), execution: { pending: [permission] } }), resume(), 'THREAD_BUSY', 'threadBusy'],
    ['another cwd while busy (busy before bindings)', storedThread({ activeRun: leaseFor(5_000) }), request({ cwd: '/workspace/b' }), 'THREAD_BUSY', 'threadBusy'],
    ['another cwd', storedThread(), request({ cwd: '/workspace/b' }), 'THREAD_BINDING_CONFLICT', 'threadBindingConflict'],
    ['a userId on a thread bound without one', storedThread(), request({ userId: 'user-1' }), 'THREAD_BINDING_CONFLICT', 'threadBindingConflict'],
    ['no userId on a thread bound to one', storedThread({ userId: 'user-1' }), request(), 'THREAD_BINDING_CONFLICT', 'threadBindingConflict'],
    ['another userId', storedThread({ userId: 'user-1' }), request({ userId: 'user-2' }), 'THREAD_BINDING_CONFLICT', 'threadBindingConflict'],
    [
      'a resume with another cwd (bindings before resume rules)',
      storedThread({ execution: { pending: [permission] } }),
      resume({ cwd: '/workspace/b' }),
      'THREAD_BINDING_CONFLICT',
      'threadBindingConflict',
    ],
    ['a normal turn while interrupts are pending', storedThread({ execution: { pending: [permission] } }), request(), 'RESUME_REQUIRED', 'resumeRequired'],
    [
      'a normal turn with a new rosInvocationId while interrupts are pending',
      storedThread({ execution: { pending: [permission] } }),
      request({ rosInvocationId: 'ros-2' }),
      'RESUME_REQUIRED',
      'resumeRequired',
    ],
    [
      'a resume under another rosInvocationId',
      storedThread({ execution: { pending: [permission] } }),
      resume({ rosInvocationId: 'ros-2' }),
      'EXECUTION_LOST',
      'executionLostRosInvocation',
    ],
  ])('%s', (_case, stored, incoming, code, messageKey) => {
    // Act
    const refusal = refusalOf(stored, incoming);

    // Assert
    expect(refusal).toEqual({ code, messageKey });
  });
});

describe('admitRun names the run holding a busy thread (THREAD_BUSY details, docs/protocol.md §2.2)', () => {
  function detailsOf(stored: ThreadDocument, incoming: RunRequest): { messageKey: string; details: unknown } {
    try {
      admitRun(stored, incoming, CONTEXT);
    } catch (error) {
      if (error instanceof AdapterError) return { messageKey: error.messageKey, details: error.details };
      throw error;
    }
    throw new Error('admitted');
  }

  it('a live run: its execution and run', () => {
    expect(detailsOf(storedThread({ activeRun: leaseFor(5_000) }), request())).toEqual({
      messageKey: 'threadBusy',
      details: { executionId: 'execution-1', runId: 'run-old', state: 'live' },
    });
  });

  it('a detached run: until when it is kept, also once its lease expired', () => {
    const detached = { ...leaseFor(-1_000), detachedUntil: NOW + 40_000 };
    expect(detailsOf(storedThread({ activeRun: detached }), request())).toEqual({
      messageKey: 'threadBusyDetached',
      details: { executionId: 'execution-1', runId: 'run-old', state: 'detached', detachedUntil: NOW + 40_000 },
    });
  });

  it('nothing to a caller of another workspace or user', () => {
    expect(detailsOf(storedThread({ activeRun: leaseFor(5_000) }), request({ cwd: '/workspace/b' })).details).toBeUndefined();
    expect(detailsOf(storedThread({ activeRun: leaseFor(5_000) }), request({ userId: 'user-2' })).details).toBeUndefined();
  });
});

interface Expected {
  rotated: boolean;
  orphanTaskId: string | undefined;
  executionId: string;
  rosInvocationId: string;
  taskId: string | null;
  lastTaskId: string | null;
  pending: PendingInterrupt[];
  terminalExecutions: Record<string, string>;
}

const rotatedFrom = (overrides: Partial<Expected> = {}): Expected => ({
  rotated: true,
  orphanTaskId: undefined,
  executionId: 'execution-new',
  rosInvocationId: 'ros-1',
  taskId: null,
  lastTaskId: 'task-1',
  pending: [],
  terminalExecutions: { 'execution-1': 'ros-1' },
  ...overrides,
});

const keptExecution = (overrides: Partial<Expected> = {}): Expected => ({
  rotated: false,
  orphanTaskId: undefined,
  executionId: 'execution-1',
  rosInvocationId: 'ros-1',
  taskId: 'task-1',
  lastTaskId: null,
  pending: [permission],
  terminalExecutions: {},
  ...overrides,
});

describe('admitRun admits', () => {
  it.each<[string, ThreadDocument | undefined, RunRequest, Expected]>([
    ['the first run of a new thread onto a new execution', undefined, request(), rotatedFrom({ rotated: false, lastTaskId: null, terminalExecutions: {} })],
    ['a normal turn on an idle thread onto a new execution, the old one remembered as terminal', storedThread(), request(), rotatedFrom()],
    ['a normal turn with a new rosInvocationId, rotating the execution', storedThread(), request({ rosInvocationId: 'ros-2' }), rotatedFrom({ rosInvocationId: 'ros-2' })],
    ['a normal turn with the same userId', storedThread({ userId: 'user-1' }), request({ userId: 'user-1' }), rotatedFrom()],
    ['a takeover of an expired lease, naming the orphaned task', storedThread({ activeRun: leaseFor(-1) }), request(), rotatedFrom({ orphanTaskId: 'task-1' })],
    ['a takeover of a lease expiring exactly now', storedThread({ activeRun: leaseFor(0) }), request(), rotatedFrom({ orphanTaskId: 'task-1' })],
    [
      'a takeover of an expired lease whose execution has no task: nothing orphaned',
      storedThread({ activeRun: leaseFor(-1), execution: { taskId: null } }),
      request(),
      rotatedFrom({ lastTaskId: null }),
    ],
    ['a resume under the same rosInvocationId, keeping the execution', storedThread({ execution: { pending: [permission] } }), resume(), keptExecution()],
    [
      'a resume taking over an expired lease parked on an interrupt: the task stays resumable',
      storedThread({ activeRun: leaseFor(-1), execution: { pending: [permission] } }),
      resume(),
      keptExecution(),
    ],
  ])('%s', (_case, stored, incoming, expected) => {
    // Act
    const { document, orphanTaskId, rotated } = admitRun(stored, incoming, CONTEXT);

    // Assert
    expect({
      rotated,
      orphanTaskId,
      executionId: document.execution.executionId,
      rosInvocationId: document.execution.rosInvocationId,
      taskId: document.execution.taskId,
      lastTaskId: document.execution.lastTaskId,
      pending: document.execution.pending,
      terminalExecutions: document.terminalExecutions,
    }).toEqual(expected);
    expect(document.activeRun).toEqual({ runId: 'run-new', leaseId: 'lease-new', expiresAt: NOW + TTL, graceMs: 0 });
    expect(document.runDigests['run-new']).toBe(incoming.digest);
    expect({ threadId: document.threadId, contextId: document.contextId, cwd: document.cwd }).toEqual({ threadId: THREAD, contextId: contextIdFor(THREAD), cwd: '/workspace/a' });
  });

  it('forgets applied answers when a normal turn rotates the execution, and keeps them for a resume', () => {
    // Arrange
    const applied = [{ executionId: 'execution-1', interruptId: 'input-0', digest: 'd' }];

    // Act
    const turn = admitRun(storedThread({ appliedResumes: applied }), request(), CONTEXT);
    const resumed = admitRun(storedThread({ appliedResumes: applied, execution: { pending: [permission] } }), resume(), CONTEXT);

    // Assert
    expect(turn.document.appliedResumes).toEqual([]);
    expect(resumed.document.appliedResumes).toEqual(applied);
  });

  it.each([
    [
      'run digests',
      MAX_RUN_DIGESTS,
      (thread: ThreadDocument, keys: Record<string, string>) => ({ ...thread, runDigests: keys }),
      (thread: ThreadDocument) => thread.runDigests,
      'run-new',
    ],
    [
      'terminal executions',
      MAX_TERMINAL_EXECUTIONS,
      (thread: ThreadDocument, keys: Record<string, string>) => ({ ...thread, terminalExecutions: keys }),
      (thread: ThreadDocument) => thread.terminalExecutions,
      'execution-1',
    ],
  ])('keeps only the newest %s (at most %i)', (_case, limit, withEntries, entriesOf, newestKey) => {
    // Arrange
    const full = Object.fromEntries(Array.from({ length: limit }, (_, index) => [`old-${index}`, `value-${index}`]));
    const stored = withEntries(storedThread(), full);

    // Act
    const { document } = admitRun(stored, request(), CONTEXT);

    // Assert
    const keys = Object.keys(entriesOf(document));
    expect(keys).toHaveLength(limit);
    expect(keys).not.toContain('old-0');
    expect(keys).toContain('old-1');
    expect(keys.at(-1)).toBe(newestKey);
  });
});

describe('admitRun under the interrupted run’s runId (docs/protocol.md §6.2)', () => {
  const interrupted = () => storedThread({ execution: { pending: [permission], interruptedRunId: 'run-old' } });

  it('admits a resume, keeping the digest the id was first admitted with', () => {
    const stored = interrupted();
    const { document } = admitRun(stored, resume({ runId: 'run-old' }), CONTEXT);
    expect(document.activeRun).toMatchObject({ runId: 'run-old', leaseId: 'lease-new' });
    expect(document.runDigests).toEqual(stored.runDigests);
  });

  it('refuses a new turn under it, and a resume under a remembered id that is not the interrupted run’s', () => {
    // The same body the id was admitted with: the §6.2 duplicate, as ever.
    expect(refusalOf(interrupted(), request({ runId: 'run-old' }))?.code).toBe('DUPLICATE_RUN_ID');
    expect(refusalOf(interrupted(), request({ runId: 'run-old', text: 'another turn' }))?.code).toBe('RUN_ID_CONFLICT');
    const other = storedThread({ runDigests: { 'run-old': 'digest', 'run-older': 'digest' }, execution: { pending: [permission], interruptedRunId: 'run-old' } });
    expect(refusalOf(other, resume({ runId: 'run-older' }))?.code).toBe('RUN_ID_CONFLICT');
  });
});

describe('admitRun records the detach grace the request asked for (docs/protocol.md §6.15 "Whose grace")', () => {
  it('in the lease, for a new turn and a resume alike', () => {
    expect(admitRun(storedThread(), request(), { ...CONTEXT, graceMs: 60_000 }).document.activeRun?.graceMs).toBe(60_000);
    const parked = storedThread({ execution: { pending: [permission] } });
    expect(admitRun(parked, resume(), { ...CONTEXT, graceMs: 0 }).document.activeRun?.graceMs).toBe(0);
  });
});

/**
 * A stored thread document for the unit tests of pure decisions (admission, guidance admission):
 * thread-1, bound to /workspace/a without a user, session-1, on execution-1 (task-1, under ros-1)
 * with nothing pending, no run remembered, idle. `overrides` replace any of it; `execution` is
 * merged field by field.
 */
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { type Execution, newExecution, THREAD_SCHEMA_VERSION, type ThreadDocument } from '../../lib/core/thread/document.js';

export const TEST_THREAD = 'thread-1';

export type ThreadDocumentOverrides = Partial<Omit<ThreadDocument, 'execution'>> & { execution?: Partial<Execution> };

export function threadDocument(overrides: ThreadDocumentOverrides = {}): ThreadDocument {
  const { execution, ...rest } = overrides;
  return {
    schemaVersion: THREAD_SCHEMA_VERSION,
    threadId: TEST_THREAD,
    contextId: contextIdFor(TEST_THREAD),
    cwd: '/workspace/a',
    userId: null,
    iacCodeSessionId: 'session-1',
    execution: { ...newExecution('execution-1', 'ros-1'), taskId: 'task-1', ...execution },
    runDigests: {},
    appliedResumes: [],
    terminalExecutions: {},
    activeRun: null,
    ...rest,
  };
}

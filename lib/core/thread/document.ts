/**
 * The thread document (docs/protocol.md §6.10): one small JSON object per thread holding bindings, identities,
 * pending interrupts, idempotency digests, terminal executions and the active-run lease — never
 * conversation text, artifacts, LLM keys or headers, AccessKey secrets or STS tokens.
 * It is validated on every load; anything else (including another schemaVersion) is corrupt and
 * affects only its own thread.
 */
import * as z from 'zod/mini';
import '../protocol/zod-messages.js';
import { keyedRecord } from './keyed-record.js';

export const THREAD_SCHEMA_VERSION = 1;

/**
 * A string → string map keyed by request data (keyed-record.ts). Read as a record without a
 * prototype that keeps every own key: z.record would drop a "__proto__" key, so a run id of that
 * name would be forgotten on every load. The stored JSON is the plain object it always was.
 */
const keyedStrings = z.pipe(
  z.custom<Record<string, string>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === 'string'),
    'Expected an object of strings.',
  ),
  z.transform((value: Record<string, string>) => keyedRecord(Object.entries(value))),
);

const pendingInterruptSchema = z.object({
  /** The interrupt id (= the A2A inputId). */
  id: z.string(),
  /** The allow-listed projection of the A2A input (docs/protocol.md §5.1). */
  input: z.record(z.string(), z.unknown()),
  /** Answered through SendMessage instead of a streaming message (docs/protocol.md §5.1, §5.6). */
  sideband: z.boolean(),
});

const executionSchema = z.object({
  executionId: z.string(),
  rosInvocationId: z.string(),
  taskId: z.nullable(z.string()),
  lastTaskId: z.nullable(z.string()),
  pipelineSequence: z.int().check(z.nonnegative()),
  pipelineOpenSteps: z.array(z.string()),
  textDigests: z.array(z.string()),
  pending: z.array(pendingInterruptSchema),
  /** Before issue 26: the text cursor in messages. Kept so older documents still parse; never read. */
  textCursor: z.optional(z.int().check(z.nonnegative())),
  /** The kernel text cursor the execution's runs reached, in characters (docs/design/reattach.md "Cursor"); absent before issue 26. */
  textChars: z.optional(z.int().check(z.nonnegative())),
  /** The newest producer epoch of the execution's event journal (docs/protocol.md §6.15); absent = 0. */
  journalEpoch: z.optional(z.int().check(z.nonnegative())),
  /**
   * The run whose RUN_FINISHED announced the pending interrupts: a resume may reuse its runId, as
   * CopilotKit's does (docs/protocol.md §6.2). Absent before issue 28 and on a new execution.
   */
  interruptedRunId: z.optional(z.string()),
});

const leaseSchema = z.object({
  runId: z.string(),
  leaseId: z.string(),
  /** Epoch milliseconds after which another instance may take the thread over (docs/protocol.md §6.6). */
  expiresAt: z.number(),
  /**
   * Set while the run's caller is gone and no reader has come back (docs/protocol.md §6.15): epoch
   * milliseconds after which any instance cancels the run as a disconnect would have.
   */
  detachedUntil: z.optional(z.number()),
  /**
   * The detach grace the run's caller asked for, bounded by the server's (docs/protocol.md §6.15
   * "Whose grace"); 0: its disconnect cancels it. Absent on a lease written before issue 28.
   */
  graceMs: z.optional(z.int().check(z.nonnegative())),
});

export const threadDocumentSchema = z.object({
  schemaVersion: z.literal(THREAD_SCHEMA_VERSION),
  threadId: z.string(),
  contextId: z.string(),
  cwd: z.string(),
  userId: z.nullable(z.string()),
  iacCodeSessionId: z.nullable(z.string()),
  execution: executionSchema,
  runDigests: keyedStrings,
  appliedResumes: z.array(z.object({ executionId: z.string(), interruptId: z.string(), digest: z.string() })),
  /** executionId → the rosInvocationId it ran under, so a cancel of a rotated execution still matches. */
  terminalExecutions: keyedStrings,
  activeRun: z.nullable(leaseSchema),
});

export type ThreadDocument = z.infer<typeof threadDocumentSchema>;
export type Execution = z.infer<typeof executionSchema>;
export type PendingInterrupt = z.infer<typeof pendingInterruptSchema>;
export type Lease = z.infer<typeof leaseSchema>;

export function newExecution(executionId: string, rosInvocationId: string): Execution {
  return {
    executionId,
    rosInvocationId,
    taskId: null,
    lastTaskId: null,
    pipelineSequence: 0,
    pipelineOpenSteps: [],
    textDigests: [],
    pending: [],
    textChars: 0,
    journalEpoch: 0,
  };
}

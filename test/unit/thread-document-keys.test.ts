/**
 * The thread document's maps keyed by request data (lib/core/thread/keyed-record.ts;
 * docs/protocol.md §6.2, §6.10): a runId or executionId named like an Object.prototype member is an
 * ordinary key — new until admitted, remembered after — and a "__proto__" key survives the store's
 * JSON round trip. Documents written before keep loading unchanged.
 */
import { describe, expect, it } from 'vitest';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { SERVICE } from '../../lib/core/caller.js';
import { AdapterError } from '../../lib/core/errors.js';
import { parseRunRequest, type RunRequest } from '../../lib/core/protocol/run-request.js';
import { admitRun } from '../../lib/core/thread/admission.js';
import { newExecution, THREAD_SCHEMA_VERSION, type ThreadDocument } from '../../lib/core/thread/document.js';
import { parseThreadDocument } from '../../lib/core/thread/parse-document.js';
import { endRun, isExecutionTerminal } from '../../lib/core/thread/run-transitions.js';

const THREAD = 'thread-1';
const PROTOTYPE_NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
const CONTEXT = { now: 1_000, leaseTtlMs: 30_000, newExecutionId: () => 'execution-2', leaseId: 'lease-1', graceMs: 0 };

function request(runId: string): RunRequest {
  return parseRunRequest(
    {
      threadId: THREAD,
      runId,
      state: {},
      messages: [{ id: 'm', role: 'user', content: 'hi' }],
      tools: [],
      context: [],
      forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'ros-1', cwd: '/w' } },
    },
    { allowedRoots: [], caller: SERVICE },
  );
}

/** A document exactly as the previous version of the adapter wrote it (plain JSON objects). */
const STORED_BEFORE = JSON.stringify({
  schemaVersion: 1,
  threadId: THREAD,
  contextId: contextIdFor(THREAD),
  cwd: '/w',
  userId: null,
  iacCodeSessionId: 'session-1',
  execution: { ...newExecution('execution-1', 'ros-1'), taskId: 'task-1', lastTaskId: 'task-1' },
  runDigests: { 'run-1': 'digest-1', '42': 'digest-42' },
  appliedResumes: [],
  terminalExecutions: { 'execution-0': 'ros-0' },
  activeRun: null,
});

/** Save and load as every driver does: JSON text in between. */
const roundTrip = (document: ThreadDocument): ThreadDocument => parseThreadDocument(JSON.parse(JSON.stringify(document)), THREAD);

function refusal(stored: ThreadDocument, incoming: RunRequest): string | undefined {
  try {
    admitRun(stored, incoming, CONTEXT);
    return undefined;
  } catch (error) {
    if (error instanceof AdapterError) return error.code;
    throw error;
  }
}

describe('maps keyed by request data', () => {
  it('loads a document written before unchanged', () => {
    const document = parseThreadDocument(JSON.parse(STORED_BEFORE), THREAD);
    expect({ ...document.runDigests }).toEqual({ 'run-1': 'digest-1', '42': 'digest-42' });
    expect({ ...document.terminalExecutions }).toEqual({ 'execution-0': 'ros-0' });
    expect(JSON.stringify(document)).toBe(STORED_BEFORE);
  });

  it('admits a runId named like an Object.prototype member on an existing thread, then refuses it as a duplicate', () => {
    let document = parseThreadDocument(JSON.parse(STORED_BEFORE), THREAD);
    for (const runId of PROTOTYPE_NAMES) {
      expect(refusal(document, request(runId))).toBeUndefined();
      document = roundTrip(
        endRun(admitRun(document, request(runId), CONTEXT).document, {
          durable: { textDigests: [], pipelineSequence: 0, pipelineOpenSteps: [], textChars: 0 },
          terminal: false,
          clearTask: false,
        }),
      );
    }
    expect(Object.keys(document.runDigests)).toEqual(expect.arrayContaining(PROTOTYPE_NAMES));
    for (const runId of PROTOTYPE_NAMES) expect(refusal(document, request(runId))).toBe('DUPLICATE_RUN_ID');
  });

  it('keeps a "__proto__" key through the JSON round trip without touching a prototype', () => {
    const raw = JSON.parse(STORED_BEFORE.replace('"run-1":"digest-1"', '"__proto__":"digest-p","run-1":"digest-1"'));
    const document = parseThreadDocument(raw, THREAD);
    expect(Object.getPrototypeOf(document.runDigests)).toBeNull();
    expect(Object.hasOwn(document.runDigests, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(document.runDigests, '__proto__')?.value).toBe('digest-p');
    expect(JSON.parse(JSON.stringify(document)).runDigests).toEqual(raw.runDigests);
  });

  it('finds no terminal execution named like an Object.prototype member', () => {
    const document = parseThreadDocument(JSON.parse(STORED_BEFORE), THREAD);
    for (const executionId of PROTOTYPE_NAMES) expect(isExecutionTerminal(document, executionId)).toBe(false);
    expect(isExecutionTerminal(document, 'execution-0')).toBe(true);
    const plain: ThreadDocument = { ...document, terminalExecutions: { 'execution-0': 'ros-0' } };
    expect(isExecutionTerminal(plain, 'constructor')).toBe(false);
  });

  it('still refuses a map whose values are not strings', () => {
    const raw = JSON.parse(STORED_BEFORE);
    raw.runDigests = { 'run-1': 1 };
    expect(() => parseThreadDocument(raw, THREAD)).toThrow(/invalid/);
    raw.runDigests = ['digest'];
    expect(() => parseThreadDocument(raw, THREAD)).toThrow(/invalid/);
    expect(THREAD_SCHEMA_VERSION).toBe(1);
  });
});

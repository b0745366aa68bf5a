/**
 * The sweeper (lib/core/reattach/sweeper.ts, docs/design/reattach.md "Sweeper", "Expiry") on the
 * memory store with a clock of its own, the A2A emulator answering CancelTask: a journal expires
 * from the execution's last run end, never with a newer epoch; the end of a detached run is
 * completed by the next sweep when a failure cut it short; a failing entry backs off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { silentLogger } from '../../lib/adapters/logger.js';
import type { JournalBatch } from '../../lib/core/journal/batch.js';
import { canonicalOrder } from '../../lib/core/journal/canonical.js';
import { StoreUnavailableError } from '../../lib/core/ports.js';
import { RETRY_DUE_MS, type SweepDeps, sweep } from '../../lib/core/reattach/sweeper.js';
import { secretFrom } from '../../lib/core/secret.js';
import { newExecution, THREAD_SCHEMA_VERSION, type ThreadDocument } from '../../lib/core/thread/document.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { uniqueId } from '../support/fixtures.js';
import { MemoryThreadStore } from '../support/memory-store.js';

const MINUTE = 60_000;
const RETENTION = 15 * MINUTE;
const T0 = 1_800_000_000_000;

let emulator: A2AEmulator;
beforeAll(async () => {
  emulator = await startA2AEmulator({ silenceMs: 1_500 });
});
afterAll(async () => emulator.close());

function documentOf(threadId: string, executionId: string, fields: { epoch: number; activeRun?: ThreadDocument['activeRun'] }): ThreadDocument {
  return {
    schemaVersion: THREAD_SCHEMA_VERSION,
    threadId,
    contextId: 'context-1',
    cwd: '/work',
    userId: null,
    iacCodeSessionId: null,
    execution: { ...newExecution(executionId, 'invocation-1'), taskId: 'task-gone', lastTaskId: 'task-gone', journalEpoch: fields.epoch },
    runDigests: {},
    appliedResumes: [],
    terminalExecutions: {},
    activeRun: fields.activeRun ?? null,
  };
}

const event = (type: string, fields: Record<string, unknown> = {}) => ({ type, timestamp: 1, ...fields }) as unknown as JournalBatch['entries'][number]['event'];

function runBatch(executionId: string, epoch: number, runId: string, writtenAt: number, ending: 'RUN_FINISHED' | undefined): JournalBatch {
  const events = [
    event('RUN_STARTED', { threadId: 't', runId }),
    event('TEXT_MESSAGE_START', { messageId: 'm', role: 'assistant' }),
    event('TEXT_MESSAGE_CONTENT', { messageId: 'm', delta: 'hi' }),
  ];
  if (ending) events.push(event('TEXT_MESSAGE_END', { messageId: 'm' }), event(ending, { threadId: 't', runId, outcome: { type: 'success' } }));
  return { executionId, epoch, start: { kind: 'run', runId }, entries: events.map((item, index) => ({ seq: index + 1, k: index < 2 ? 0 : 2, event: item })), writtenAt };
}

function world() {
  const store = new MemoryThreadStore();
  let now = T0;
  const deps: SweepDeps = {
    store,
    kernel: new SdkA2AKernel({ url: emulator.url, token: secretFrom(undefined) }),
    clock: () => now,
    logger: silentLogger,
    language: 'en',
    retentionMs: RETENTION,
  };
  return { store, journal: store.journal, deps, at: (time: number) => (now = time) };
}

describe('the sweeper', () => {
  it('keeps an execution’s journal 15 minutes after its last run ended — not its first — and never deletes a newer epoch', async () => {
    const { store, journal, deps, at } = world();
    const [threadId, executionId] = [uniqueId('thread'), uniqueId('execution')];
    await store.save(threadId, documentOf(threadId, executionId, { epoch: 2 }), 0);
    // Run 1 ended with an interrupt at T0; its resume (run 2) ended ten minutes later.
    await journal.append(threadId, runBatch(executionId, 1, 'run-1', T0, 'RUN_FINISHED'));
    await journal.append(threadId, runBatch(executionId, 2, 'run-2', T0 + 10 * MINUTE, 'RUN_FINISHED'));
    await journal.schedule({ kind: 'expire', threadId, executionId, dueAt: T0 + RETENTION });
    at(T0 + RETENTION + 1);
    await sweep(deps);
    expect((await journal.read(threadId, executionId)).map((batch) => batch.epoch)).toEqual([1, 2]);
    expect(await journal.due(T0 + 10 * MINUTE + RETENTION, 10)).toEqual([{ kind: 'expire', threadId, executionId, dueAt: T0 + 10 * MINUTE + RETENTION }]);
    // A third run admitted after the check writes epoch 3: the deletion stops at the epoch it saw.
    const reading = journal.read.bind(journal);
    journal.read = async (...args) => {
      const batches = await reading(...args);
      await journal.append(threadId, runBatch(executionId, 3, 'run-3', T0 + 30 * MINUTE, undefined));
      journal.read = reading;
      return batches;
    };
    at(T0 + 10 * MINUTE + RETENTION + 1);
    await sweep(deps);
    expect((await journal.read(threadId, executionId)).map((batch) => batch.epoch)).toEqual([3]);
  });

  it('completes a detached run’s end that an earlier sweep could not journal, once, and backs a failing entry off', async () => {
    const { store, journal, deps, at } = world();
    const [threadId, executionId] = [uniqueId('thread'), uniqueId('execution')];
    await store.save(threadId, documentOf(threadId, executionId, { epoch: 1, activeRun: { runId: 'run-1', leaseId: 'lease-1', expiresAt: T0 + 30_000, detachedUntil: T0 } }), 0);
    await journal.append(threadId, runBatch(executionId, 1, 'run-1', T0 - 1_000, undefined));
    const entry = { kind: 'detached' as const, threadId, executionId, dueAt: T0 };
    await journal.schedule(entry);
    // The first sweep's compare-and-swap lands; its journal write fails.
    const append = journal.append.bind(journal);
    journal.append = async (id, batch) => {
      if (batch.epoch === 2 && batch.entries.length > 0) throw new StoreUnavailableError('the journal is down');
      return append(id, batch);
    };
    at(T0 + 1);
    await sweep(deps);
    const ended = (await store.load(threadId))?.document as ThreadDocument;
    expect(ended.activeRun).toBeNull();
    expect(ended.execution.journalEpoch).toBe(2);
    // Not at the head of the list any more: tried again later.
    expect(await journal.due(T0 + 1, 10)).toEqual([]);
    expect(await journal.due(T0 + 1 + RETRY_DUE_MS, 10)).toEqual([{ ...entry, dueAt: T0 + 1 + RETRY_DUE_MS }]);
    journal.append = append;
    const cancels = emulator.callsOf('CancelTask').length;
    at(T0 + 1 + RETRY_DUE_MS);
    await sweep(deps);
    const order = canonicalOrder(await journal.read(threadId, executionId));
    expect(order.entries.map((item) => item.event.type)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_ERROR']);
    expect(order.entries.at(-1)?.event).toMatchObject({ code: 'CANCELLED' });
    expect(emulator.callsOf('CancelTask').length).toBe(cancels + 1);
    expect((await journal.due(T0 + RETRY_DUE_MS * 10, 10)).map((due) => due.kind)).toEqual([]);
    expect(await journal.due(T0 + 2 * RETENTION, 10)).toMatchObject([{ kind: 'expire', executionId }]);
    // A further sweep of the same (stale) entry changes nothing.
    await journal.schedule(entry);
    await sweep(deps);
    expect(canonicalOrder(await journal.read(threadId, executionId)).entries).toHaveLength(5);
  });

  it('moves a detached run’s entry to its new deadline when a reader elsewhere keeps it attached', async () => {
    const { store, journal, deps, at } = world();
    const [threadId, executionId] = [uniqueId('thread'), uniqueId('execution')];
    await store.save(
      threadId,
      documentOf(threadId, executionId, { epoch: 1, activeRun: { runId: 'run-1', leaseId: 'lease-1', expiresAt: T0 + 30_000, detachedUntil: T0 + MINUTE } }),
      0,
    );
    await journal.schedule({ kind: 'detached', threadId, executionId, dueAt: T0 });
    at(T0 + 1);
    await sweep(deps);
    expect(((await store.load(threadId))?.document as ThreadDocument).activeRun).not.toBeNull();
    expect(await journal.due(T0 + MINUTE, 10)).toEqual([{ kind: 'detached', threadId, executionId, dueAt: T0 + MINUTE }]);
  });
});

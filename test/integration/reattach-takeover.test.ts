/**
 * Takeovers (docs/protocol.md §6.15 "Takeover") against the A2A emulator, whose GetTask keeps every
 * text delta in the task's history as the real kernel does: an instance stops mid-run and hands its
 * run over; a reader on another instance (another app on the same state directory) reattaches with
 * the last id it got, takes the run over and reads it to its end — the text exact, character for
 * character, no event twice, the whole stream valid AG-UI, the task never cancelled. An id from the
 * reattached stream works like one from the original.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/adapters/logger.js';
import { shutDown } from '../../lib/adapters/node-server/graceful-shutdown.js';
import type { A2AEmulator } from '../../lib/emulators/a2a/server.js';
import { startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { overridingKernel } from '../support/kernel-override.js';
import { subscribe } from '../support/observe.js';
import { readRecords, textOfRecords } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';

let kernel: A2AEmulator;
beforeAll(async () => {
  kernel = await startA2AEmulator({ silenceMs: 1_500 });
});
afterAll(async () => kernel.close());

const STEPS = Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join('');
const identity = (threadId: string, runId: string) => ({ threadId, runId, rosInvocationId: 'invocation-1' });
async function instance(stateDir: string): Promise<Stack> {
  return startStack({ stateDir, emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
}

describe('taking a run over', () => {
  it('from an instance that stopped mid-run: the reader on another instance gets the rest, the text exact, nothing twice', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-takeover-'));
    const [a, b] = [await instance(stateDir), await instance(stateDir)];
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const response = await a.post('/', runBody({ threadId, runId, text: 'steps' }), ASK_GRACE);
      const controller = new AbortController();
      // The owner's connection is cut mid-run, then A stops: the run is detached and handed over.
      const { records } = await readRecords(response, { cutAfter: 12, controller });
      const executionId = ((records.find((record) => record.event.type === 'CUSTOM')?.event['value'] ?? {}) as { executionId: string }).executionId;
      await shutDown(a.server, { drainMs: 20, cleanupMs: 10_000 }, silentLogger);
      // B, with the last id the owner got: it finds the run with no producer and takes it over.
      const back = await subscribe(b.url, executionId, identity(threadId, runId), { 'last-event-id': records.at(-1)?.id ?? '' });
      expect(back.status).toBe(200);
      const half = new AbortController();
      const first = await readRecords(back, { cutAfter: 10, controller: half });
      // An id from the reattached stream works like one from the original.
      const rest = await readRecords(await subscribe(b.url, executionId, identity(threadId, runId), { 'last-event-id': first.records.at(-1)?.id ?? '' }));
      const whole = [...records, ...first.records, ...rest.records];
      expect(whole.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      await assertValidAgUiStream(whole.map((record) => record.event));
      expect(new Set(whole.map((record) => record.id)).size).toBe(whole.length);
      expect(textOfRecords(whole)).toBe(STEPS);
      expect(kernel.callsOf('CancelTask')).toHaveLength(0);
      // The run ended under B's lease, in a later producer epoch than A's.
      const document = (await b.store.load(threadId))?.document as { activeRun: unknown; execution: { journalEpoch: number } };
      expect(document.activeRun).toBeNull();
      expect(document.execution.journalEpoch).toBe(2);
      expect(rest.records.at(-1)?.id.split('.')[1]).toBe('2');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('without an id: the current run from its start, across the takeover, as one valid stream', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-takeover-'));
    const [a, b] = [await instance(stateDir), await instance(stateDir)];
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const response = await a.post('/', runBody({ threadId, runId, text: 'steps' }), ASK_GRACE);
      const { records } = await readRecords(response, { cutAfter: 8, controller: new AbortController() });
      const executionId = ((records.find((record) => record.event.type === 'CUSTOM')?.event['value'] ?? {}) as { executionId: string }).executionId;
      await shutDown(a.server, { drainMs: 20, cleanupMs: 10_000 }, silentLogger);
      const replay = (await readRecords(await subscribe(b.url, executionId, identity(threadId, runId)))).records;
      expect(replay[0]?.event).toMatchObject({ type: 'RUN_STARTED', runId });
      expect(replay.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      await assertValidAgUiStream(replay.map((record) => record.event));
      expect(textOfRecords(replay)).toBe(STEPS);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('catches up by reading only the newest history: each text sync after the first snapshot asks GetTask for a window, not the whole task', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-takeover-'));
    const [a, b] = [await instance(stateDir), await instance(stateDir)];
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const response = await a.post('/', runBody({ threadId, runId, text: 'steps slowly' }), ASK_GRACE);
      const { records } = await readRecords(response, { cutAfter: 8, controller: new AbortController() });
      const executionId = ((records.find((record) => record.event.type === 'CUSTOM')?.event['value'] ?? {}) as { executionId: string }).executionId;
      await shutDown(a.server, { drainMs: 20, cleanupMs: 10_000 }, silentLogger);
      const before = kernel.calls.length;
      const rest = await readRecords(await subscribe(b.url, executionId, identity(threadId, runId), { 'last-event-id': records.at(-1)?.id ?? '' }));
      const whole = [...records, ...rest.records];
      expect(whole.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(textOfRecords(whole)).toBe(STEPS);
      // The kernel's history then held 61 messages (the user's, one per delta): every sync asked for fewer.
      const asked = kernel.calls.slice(before).flatMap((call) => (call.method === 'GetTask' ? [(call.params as { historyLength?: number }).historyLength ?? 0] : []));
      expect(asked.length, `GetTask windows asked: ${asked.join(', ')}`).toBeGreaterThan(3);
      expect(
        asked.filter((length) => length >= 61),
        `GetTask windows asked: ${asked.join(', ')}`,
      ).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('reads the history once more at the end: text whose live updates it never saw (the subscription’s seam) is not lost (file seed 69)', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-takeover-'));
    const a = await instance(stateDir);
    let hidden = 0;
    // B's subscription shows no live update that carries text — the seam where a SubscribeToTask's first
    // snapshot and its updates miss one, made total (a race the emulator cannot be made to lose on cue).
    const b = await startStack({
      stateDir,
      emulatorInstance: kernel,
      config: { detachGraceMs: 60_000 },
      wrapKernel: (real) =>
        overridingKernel(real, {
          async *subscribeToTask(taskId, options) {
            for await (const item of real.subscribeToTask(taskId, options)) {
              const status = item.statusUpdate?.status;
              const carriesText = status?.message?.parts.some((part) => part.text !== undefined) === true;
              if (carriesText && /working/i.test(status?.state ?? '')) {
                hidden += 1;
                continue;
              }
              yield item;
            }
          },
        }),
    });
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const response = await a.post('/', runBody({ threadId, runId, text: 'steps' }), ASK_GRACE);
      const { records } = await readRecords(response, { cutAfter: 8, controller: new AbortController() });
      const executionId = ((records.find((record) => record.event.type === 'CUSTOM')?.event['value'] ?? {}) as { executionId: string }).executionId;
      await shutDown(a.server, { drainMs: 20, cleanupMs: 10_000 }, silentLogger);
      const rest = await readRecords(await subscribe(b.url, executionId, identity(threadId, runId), { 'last-event-id': records.at(-1)?.id ?? '' }));
      const whole = [...records, ...rest.records];
      expect(whole.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      await assertValidAgUiStream(whole.map((record) => record.event));
      expect(hidden, 'text updates the subscription did not show').toBeGreaterThan(0);
      expect(textOfRecords(whole)).toBe(STEPS);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

/**
 * Reattach, exactly once (docs/design/reattach.md): one deterministic test per defect issue 26
 * found, each failing on the code before it. Two adapter instances on one state directory, the A2A
 * emulator as the kernel — keeping its task history per delta, or grown in place.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { silentLogger } from '../../lib/adapters/logger.js';
import { shutDown } from '../../lib/adapters/node-server/graceful-shutdown.js';
import { executionTag } from '../../lib/core/journal/position.js';
import type { A2AEmulator } from '../../lib/emulators/a2a/server.js';
import { startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { freezable } from '../support/freezable-store.js';
import { subscribe } from '../support/observe.js';
import { parseRecords, readRecords, type SseRecordWithId, textOfRecords } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';
import { until } from '../support/until.js';

let kernel: A2AEmulator;
beforeAll(async () => {
  kernel = await startA2AEmulator({ silenceMs: 1_500 });
});
afterAll(async () => kernel.close());
afterEach(() => {
  kernel.controls.historyMode = 'perDelta';
});

const STEPS = Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join('');
const identity = (threadId: string, runId: string) => ({ threadId, runId, rosInvocationId: 'invocation-1' });
const executionOf = (records: readonly SseRecordWithId[]): string =>
  ((records.find((record) => record.event.type === 'CUSTOM')?.event['value'] ?? {}) as { executionId: string }).executionId;

async function journalText(stateDir: string): Promise<string> {
  const texts: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else texts.push(await readFile(path, 'utf8'));
    }
  };
  await walk(join(stateDir, 'journal'));
  return texts.join('\n');
}

async function expectOneExactRun(records: readonly SseRecordWithId[]): Promise<void> {
  expect(records.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  await assertValidAgUiStream(records.map((record) => record.event));
  expect(new Set(records.map((record) => record.id)).size).toBe(records.length);
  expect(textOfRecords(records)).toBe(STEPS);
}

describe('reattach, exactly once', () => {
  for (const [history, owner] of [
    ['perDelta', 'stopped'],
    ['growing', 'stopped'],
    ['perDelta', 'alive'],
  ] as const) {
    it(`a reader cut right after TEXT_MESSAGE_START gets every delta on the other instance (history ${history}, its first instance ${owner})`, async () => {
      kernel.controls.historyMode = history;
      const stateDir = await mkdtemp(join(tmpdir(), 'agui-once-'));
      const a = await startStack({ stateDir, emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
      const b = await startStack({ stateDir, emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
      try {
        const threadId = uniqueId('thread');
        const runId = uniqueId('run');
        const response = await a.post('/', runBody({ threadId, runId, text: 'steps slowly' }), ASK_GRACE);
        const { records } = await readRecords(response, { cutWhen: (record) => record.event.type === 'TEXT_MESSAGE_START', controller: new AbortController() });
        expect(records.at(-1)?.event.type).toBe('TEXT_MESSAGE_START');
        // Stopped: the run is handed over and taken over. Alive: a reload landing on the other instance at once.
        if (owner === 'stopped') await shutDown(a.server, { drainMs: 20, cleanupMs: 10_000 }, silentLogger);
        const back = await subscribe(b.url, executionOf(records), identity(threadId, runId), { 'last-event-id': records.at(-1)?.id ?? '' });
        expect(back.status).toBe(200);
        const rest = await readRecords(back);
        await expectOneExactRun([...records, ...rest.records]);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  }

  it('a reattach on another instance while the producer is alive follows it — no takeover — even when the kernel grows its history in place', async () => {
    kernel.controls.historyMode = 'growing';
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-once-'));
    const a = await startStack({ stateDir, emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
    const b = await startStack({ stateDir, emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const { records } = await readRecords(await a.post('/', runBody({ threadId, runId, text: 'steps slowly' }), ASK_GRACE), { cutAfter: 6, controller: new AbortController() });
      // The reader left: A's run is detached — and still producing.
      await until(async () => {
        const document = (await b.store.load(threadId))?.document as { activeRun?: { detachedUntil?: number } };
        return document.activeRun?.detachedUntil !== undefined;
      }, 5_000);
      const rest = await readRecords(await subscribe(b.url, executionOf(records), identity(threadId, runId), { 'last-event-id': records.at(-1)?.id ?? '' }));
      await expectOneExactRun([...records, ...rest.records]);
      // Every record B sent came from A's journal: one producer epoch, nothing cancelled.
      expect(new Set(rest.records.map((record) => record.id.split('.')[1]))).toEqual(new Set(['1']));
      const document = (await b.store.load(threadId))?.document as { execution: { journalEpoch: number } };
      expect(document.execution.journalEpoch).toBe(1);
      expect(kernel.callsOf('CancelTask')).toHaveLength(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a producer frozen past its lease, taken over, then thawed, says nothing more: no false end, and its own reader gets the run exactly once', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-once-'));
    const frozen = freezable(new FileThreadStore(stateDir));
    const lease = { leaseTtlMs: 1_000, leaseRenewMs: 300, detachGraceMs: 60_000 };
    const a = await startStack({ store: frozen.store, emulatorInstance: kernel, config: lease });
    const b = await startStack({ stateDir, emulatorInstance: kernel, config: lease });
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const response = await a.post('/', runBody({ threadId, runId, text: 'steps slowly' }), ASK_GRACE);
      const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
      // A's own caller reads it all, from one connection, while A is frozen and taken over.
      let callerText = '';
      const decoder = new TextDecoder();
      const callerDone = (async () => {
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) return;
          callerText += decoder.decode(chunk.value, { stream: true });
        }
      })();
      await until(() => callerText.includes('step 5. '), 10_000);
      frozen.freeze();
      await until(async () => {
        const document = (await b.store.load(threadId))?.document as { activeRun?: { expiresAt: number } };
        return (document.activeRun?.expiresAt ?? Number.POSITIVE_INFINITY) < Date.now();
      }, 10_000);
      const firstRecord = callerText.match(/^id: (\S+)$/m)?.[1] ?? '';
      const executionId = (JSON.parse(callerText.match(/"name":"iac-code\.session\.v1","value":(\{[^}]*\})/)?.[1] ?? '{}') as { executionId?: string }).executionId ?? '';
      expect(firstRecord).not.toBe('');
      // B takes the run over from the first id; once it streams, A wakes up.
      const back = await subscribe(b.url, executionId, identity(threadId, runId), { 'last-event-id': firstRecord });
      const taken = await readRecords(back, { cutAfter: 5, controller: new AbortController() });
      expect(taken.records.at(-1)?.id.split('.')[1]).toBe('2');
      frozen.thaw();
      await callerDone;
      const callerRecords = parseRecords(`${callerText}\n\n`).records;
      await expectOneExactRun(callerRecords);
      // The old producer journaled no end of its own, and nobody's stream ended falsely.
      const journal = await journalText(stateDir);
      expect(journal).not.toContain('EXECUTION_LOST');
      const late = await readRecords(await subscribe(b.url, executionId, identity(threadId, runId), { 'last-event-id': firstRecord }));
      await expectOneExactRun([callerRecords[0] as SseRecordWithId, ...late.records]);
    } finally {
      frozen.thaw();
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a takeover’s RUN_ERROR carries the kernel’s error id and no text of the kernel’s reason', async () => {
    const secret = 'sk-live-0123456789abcdef';
    kernel.controls.scenarios.set('steps-then-fail', async (script) => {
      script.task('SUBMITTED');
      for (let i = 1; i <= 30; i += 1) {
        script.text(`step ${i}. `);
        await script.pause(100);
      }
      script.reportError(`provider refused key ${secret} for account 42`, { retryable: false, errorId: '3e7c17ff7f29' });
    });
    const stateDir = await mkdtemp(join(tmpdir(), 'agui-once-'));
    const a = await startStack({ stateDir, emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
    const b = await startStack({ stateDir, emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
    try {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const { records } = await readRecords(await a.post('/', runBody({ threadId, runId, text: 'steps-then-fail', iacCode: { llmApiKey: secret } }), ASK_GRACE), {
        cutAfter: 5,
        controller: new AbortController(),
      });
      await shutDown(a.server, { drainMs: 20, cleanupMs: 10_000 }, silentLogger);
      const rest = await readRecords(await subscribe(b.url, executionOf(records), identity(threadId, runId), { 'last-event-id': records.at(-1)?.id ?? '' }));
      const end = rest.records.at(-1)?.event as { type: string; code: string; message: string };
      expect(end).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED' });
      expect(end.message).toContain('3e7c17ff7f29');
      expect(end.message).not.toContain('provider refused');
      expect(end.message).not.toContain(secret);
      expect(await journalText(stateDir)).not.toContain(secret);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('ids a live run cannot honour', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ store: 'file', emulatorInstance: kernel, config: { detachGraceMs: 60_000 } });
  });
  afterAll(async () => stack.close());

  it('are refused with 409 EVENT_ID_EXPIRED before the stream, as on an ended run: an observation’s epoch 0, a future epoch, a seq not yet placed', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const response = await stack.post('/', runBody({ threadId, runId, text: 'steps slowly' }), ASK_GRACE);
    const reader = readRecords(response);
    let executionId = '';
    await until(async () => {
      const document = (await stack.store.load(threadId))?.document as { execution: { executionId: string } } | undefined;
      executionId = document?.execution.executionId ?? '';
      return executionId !== '';
    }, 5_000);
    const tag = executionTag(executionId);
    for (const id of [`${tag}.0.1.0`, `${tag}.9.1.0`, `${tag}.1.999999.0`]) {
      const answer = await subscribe(stack.url, executionId, identity(threadId, runId), { 'last-event-id': id });
      expect(answer.status, id).toBe(409);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('EVENT_ID_EXPIRED');
    }
    await reader;
  });
});

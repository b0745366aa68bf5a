/**
 * Runs that outlive their connection, in front of the real iac-code kernel (docs/protocol.md §6.15,
 * docs/architecture.md §9.7) — the same reattach tests as test/integration/reattach.test.ts and
 * test/multi-instance/reattach-across-instances.test.ts, with the kernel as the judge of the text:
 *
 * - a slow answer's stream (40 deltas, 0.5 s apart) is cut twice and reattached each time with
 *   `Last-Event-ID`: the pieces add up to one valid stream, no id twice, with exactly the model's text;
 * - on two adapter instances sharing an OSS bucket, a client cut right after a TEXT_MESSAGE_START, or
 *   mid-answer, reattaches on the other instance while the owner lives: it is followed through the
 *   journal the owner writes (docs/design/reattach.md "Follow"), the text exact;
 * - on two adapter instances sharing an OSS bucket, the owner's instance is killed (SIGKILL) mid-run
 *   and its client reattaches on the other instance with the last id it got, which takes the run
 *   over from the kernel's task — the text exact to the character, the kernel's task not cancelled.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { ASK_GRACE, uniqueId } from '../support/fixtures.js';
import { subscribe } from '../support/observe.js';
import { ossStore } from '../support/oss.js';
import { StreamText } from '../support/read-until.js';
import { readRecords, recordsOfText, type SseRecordWithId, textOfRecords } from '../support/sse-records.js';
import { startTwoInstances, type TwoInstances } from '../support/two-instances.js';
import { until } from '../support/until.js';
import { describeWithKernel, iacCodeIn, kernelTaskReaches, useKernel } from './support/kernel-suite.js';

/** What the fake model answers to "slow" (../shared/real-kernel/fake-llm.py). */
const SLOW_TEXT = Array.from({ length: 40 }, (_, index) => `part ${index} `).join('');

function runRequest(threadId: string, runId: string, cwd: Record<string, unknown>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...ASK_GRACE },
    body: JSON.stringify({
      threadId,
      runId,
      messages: [{ id: uniqueId('msg'), role: 'user', content: 'a slow answer please' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: { iacCode: cwd },
    }),
  };
}

/** Checks the pieces of one run read across reattaches: one valid stream, no id twice, the model's text. */
async function expectWholeRun(whole: readonly SseRecordWithId[]): Promise<void> {
  expect(whole.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  await assertValidAgUiStream(whole.map((record) => record.event));
  expect(new Set(whole.map((record) => record.id)).size).toBe(whole.length);
  expect(textOfRecords(whole)).toBe(SLOW_TEXT);
}

function sessionOf(records: readonly SseRecordWithId[]): { executionId: string; taskId: string | null } {
  const session = records.find((record) => record.event.type === 'CUSTOM' && record.event['name'] === 'iac-code.session.v1');
  return session?.event['value'] as { executionId: string; taskId: string | null };
}

describeWithKernel('runs that outlive their connection, with the real kernel', () => {
  const kernel = useKernel('reattach', { stack: { config: { detachGraceMs: 60_000 } } });

  it('a slow answer cut twice and reattached each time with Last-Event-ID adds up to the model’s text exactly', { timeout: 90_000 }, async () => {
    const workspace = await kernel.workspace();
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const controller = new AbortController();
    const response = await fetch(`${kernel.stack.url}/`, { ...runRequest(threadId, runId, iacCodeIn(workspace)), signal: controller.signal });
    const first = await readRecords(response, { cutAfter: 10, controller });
    expect(first.cut).toBe(true);
    const { executionId } = sessionOf(first.records);
    const identity = { threadId, runId, rosInvocationId: 'kernel-suite' };

    const again = new AbortController();
    const middle = await readRecords(await subscribe(kernel.stack.url, executionId, identity, { 'last-event-id': first.records.at(-1)?.id ?? '' }, again.signal), {
      cutAfter: 12,
      controller: again,
    });
    expect(middle.cut).toBe(true);
    const rest = await readRecords(await subscribe(kernel.stack.url, executionId, identity, { 'last-event-id': middle.records.at(-1)?.id ?? '' }));
    await expectWholeRun([...first.records, ...middle.records, ...rest.records]);
  });

  describeWithKernel('on two instances', () => {
    let instances: TwoInstances;
    beforeAll(async () => {
      // A short lease, so that the killed owner's run is taken over within seconds (docs/protocol.md §6.6).
      instances = await startTwoInstances({
        IAC_CODE_AGUI_A2A_URL: kernel.pair.url,
        IAC_CODE_AGUI_DETACH_GRACE_MS: '60000',
        IAC_CODE_AGUI_LEASE_TTL_MS: '3000',
        IAC_CODE_AGUI_LEASE_RENEW_MS: '1000',
      });
    }, 60_000);
    afterAll(async () => instances?.stop());

    for (const cut of ['right after TEXT_MESSAGE_START', 'mid-answer, the run detached'] as const) {
      it(`a client cut ${cut} reattaches on the other instance while the owner is alive: followed, not taken over, the text exact`, { timeout: 120_000 }, async () => {
        const workspace = await kernel.workspace();
        const threadId = uniqueId('thread');
        const runId = uniqueId('run');
        const controller = new AbortController();
        const response = await fetch(`${instances.a.url}/`, { ...runRequest(threadId, runId, iacCodeIn(workspace)), signal: controller.signal });
        const first = await readRecords(response, {
          controller,
          ...(cut === 'right after TEXT_MESSAGE_START' ? { cutWhen: (record: SseRecordWithId) => record.event.type === 'TEXT_MESSAGE_START' } : { cutAfter: 12 }),
        });
        expect(first.cut).toBe(true);
        if (cut === 'mid-answer, the run detached') {
          const store = ossStore(instances.oss);
          await until(async () => ((await store.load(threadId))?.document as { activeRun?: { detachedUntil?: number } })?.activeRun?.detachedUntil !== undefined, 30_000, 100);
        }
        const { executionId } = sessionOf(first.records);
        const rest = await readRecords(
          await subscribe(instances.b.url, executionId, { threadId, runId, rosInvocationId: 'kernel-suite' }, { 'last-event-id': first.records.at(-1)?.id ?? '' }),
        );
        await expectWholeRun([...first.records, ...rest.records]);
        // The owner produced it all: one producer epoch.
        expect(new Set(rest.records.map((record) => record.id.split('.')[1]))).toEqual(new Set([first.records.at(-1)?.id.split('.')[1]]));
      });
    }

    it('the owner killed mid-run: its client reattaches on the other instance and gets the rest exactly, from the kernel’s task', { timeout: 120_000 }, async () => {
      const workspace = await kernel.workspace();
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const response = await fetch(`${instances.a.url}/`, runRequest(threadId, runId, iacCodeIn(workspace)));
      const live = new StreamText(response);
      const store = ossStore(instances.oss);
      // Once the task id is durable and its client read a few deltas, the owner's instance is killed under it.
      await until(async () => ((await store.load(threadId))?.document as { execution?: { taskId?: string | null } } | undefined)?.execution?.taskId != null, 30_000, 100);
      await live.until((text) => /^part 0 part 1 /.test(textOfRecords(recordsOfText(text))), { what: 'the first two parts', timeoutMs: 30_000 });
      await instances.a.stop('SIGKILL');
      const received = recordsOfText(await live.rest());
      expect(received.map((record) => record.event.type)).not.toContain('RUN_FINISHED');
      expect(textOfRecords(received)).toMatch(/^part 0 part 1 /);
      const { executionId, taskId } = sessionOf(received);

      const rest = await readRecords(
        await subscribe(instances.b.url, executionId, { threadId, runId, rosInvocationId: 'kernel-suite' }, { 'last-event-id': received.at(-1)?.id ?? '' }),
      );
      await expectWholeRun([...received, ...rest.records]);
      // The task ran to its end in the kernel: taken over, never cancelled.
      expect(await kernelTaskReaches(kernel.pair.url, taskId as string, ['TASK_STATE_COMPLETED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_CANCELED'])).not.toBe(
        'TASK_STATE_CANCELED',
      );
    });
  });
});

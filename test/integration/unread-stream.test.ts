/**
 * A reader that stops reading while its run goes on (docs/protocol.md §1.4, §6.8): the adapter
 * holds at most MAX_QUEUED_SSE_BYTES for it, then counts it as gone — exactly as if it had
 * disconnected: its connection is closed, the run applies the disconnect rule (CancelTask, as no
 * interrupt is pending; the lease released) and the instance forgets the stream. Before the bound, a
 * client that never read made the adapter queue everything the kernel sent.
 */
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../lib/emulators/a2a/scenarios.js';
import { MAX_QUEUED_SSE_BYTES } from '../../lib/http/sse-source.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

/** A kernel turn that streams 1 MiB text deltas until far past the bound, then keeps working until cancelled. */
const torrent: Scenario = async (script) => {
  script.task('SUBMITTED');
  const delta = 'y'.repeat(1024 * 1024);
  const deltas = Math.ceil((3 * MAX_QUEUED_SSE_BYTES) / delta.length);
  for (let index = 0; index < deltas; index += 1) {
    script.text(delta);
    await script.pause(5);
  }
  for (;;) await script.pause(100);
};

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 600 && !(await condition()); attempt += 1) await sleep(50);
  expect(await condition()).toBe(true);
}

describe('a client that never reads its stream', () => {
  it('is treated as gone once its queue passes the bound: the task is cancelled, the lease released, the stream let go', async () => {
    const threadId = uniqueId('unread');
    stack.emulator.controls.nextScenario = torrent;
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    const body = JSON.stringify(runBody({ threadId }));
    const { port } = new URL(stack.url);
    const call = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) =>
        // Takes the answer's head, then never reads its body.
        response.pause(),
    );
    call.on('error', () => undefined);
    call.end(body);
    try {
      await until(() => stack.emulator.callsOf('CancelTask').length > cancelsBefore);
      const taskId = [...stack.emulator.executor.scripts.keys()].at(-1);
      expect((stack.emulator.callsOf('CancelTask').at(-1)?.params as { id: string }).id).toBe(taskId);
      await until(async () => ((await stack.store.load(threadId))?.document as { activeRun?: unknown } | undefined)?.activeRun === null);
      await until(() => stack.server.inFlight.size === 0);
      const warned = stack.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line['message'] === 'SSE reader stopped reading; treated as disconnected');
      expect(warned).toHaveLength(1);
    } finally {
      call.destroy();
    }
  }, 60_000);
});

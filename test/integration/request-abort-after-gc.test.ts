/**
 * The Node shell hands the app a Web `Request` and, beside it, the abort signal that must fire when
 * the client leaves or the instance shuts down (lib/adapters/node-server/node-server.ts). In Node 20
 * a Request's signal follows the signal it was built with only while the Request object itself is
 * alive (undici holds the follower weakly), and the shell no longer keeps the Request: a live
 * stream follows the shell's own signal. These tests collect garbage mid-run — as a busy instance
 * does — and check that both aborts still land: the run cancels its A2A task and releases its
 * thread (docs/architecture.md §6).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/adapters/logger.js';
import { shutDown } from '../../lib/adapters/node-server/graceful-shutdown.js';
import { collectGarbage } from '../support/collect-garbage.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { LiveSse } from '../support/live-sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeEach(async () => {
  stack = await startStack({ store: 'file' });
});

afterEach(async () => {
  await stack.close();
});

async function liveRun(threadId: string, signal?: AbortSignal): Promise<{ live: LiveSse; taskId: string }> {
  const response = await fetch(`${stack.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(runBody({ threadId, text: 'long' })),
    signal,
  });
  const live = new LiveSse(response);
  await live.until((event) => event.type === 'TEXT_MESSAGE_CONTENT');
  const taskId = /"taskId":"([^"]+)"/.exec(JSON.stringify(live.events))?.[1];
  if (!taskId) throw new Error('no task id in the stream');
  return { live, taskId };
}

async function activeRun(threadId: string): Promise<unknown> {
  return ((await stack.store.load(threadId))?.document as Record<string, unknown>)['activeRun'];
}

describe('a request whose Request object was garbage-collected mid-run', () => {
  it('is still aborted by a graceful shutdown: CancelTask, lease released, RUN_ERROR CANCELLED', async () => {
    const threadId = uniqueId('thread');
    const { live, taskId } = await liveRun(threadId);
    const rest = live.rest();
    await collectGarbage();

    const report = await shutDown(stack.server, { drainMs: 50, cleanupMs: 10_000 }, silentLogger);

    expect(report).toEqual({ drained: false, aborted: 1, abandoned: 0 });
    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
    expect(await activeRun(threadId)).toBeNull();
    expect((await rest).at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
  });

  it('still sees its client leave: the disconnect policy cancels the task and releases the thread', async () => {
    const threadId = uniqueId('thread');
    const client = new AbortController();
    const { taskId } = await liveRun(threadId, client.signal);
    await collectGarbage();

    client.abort();
    // The request stays in flight until the run's clean-up finished (node-server.ts).
    await stack.server.inFlight.idle();

    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
    expect(await activeRun(threadId)).toBeNull();
  });
});

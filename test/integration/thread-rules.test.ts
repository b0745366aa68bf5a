/**
 * Thread state rules through real HTTP on the file store: binding, run-id idempotency, the
 * active-run lease (busy, expiry, takeover), execution rotation, disconnects, heartbeats,
 * corrupt documents and file permissions.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { threadKey } from '../../lib/core/thread/thread-key.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { readUntil } from '../support/read-until.js';
import { readSse, types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { heartbeatMs: 300 }, emulator: { silenceMs: 1_000 } });
});
afterAll(async () => stack.close());

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

async function storedDocument(threadId: string): Promise<Record<string, unknown>> {
  return (await (stack.store as FileThreadStore).load(threadId))?.document as Record<string, unknown>;
}

describe('identity and idempotency', () => {
  it('answers 409 DUPLICATE_RUN_ID for a replayed request and RUN_ID_CONFLICT for a reused runId with another body', async () => {
    const body = runBody();
    expect((await stack.run(body)).status).toBe(200);
    const replay = await stack.post('/', body);
    expect(replay.status).toBe(409);
    expect(await errorCode(replay)).toBe('DUPLICATE_RUN_ID');
    const changed = await stack.post('/', { ...body, state: { other: true } });
    expect(changed.status).toBe(409);
    expect(await errorCode(changed)).toBe('RUN_ID_CONFLICT');
    // Nothing was sent to A2A for the rejected requests.
    const contextId = contextIdFor(body['threadId'] as string);
    expect(stack.emulator.callsOf('SendStreamingMessage').filter((call) => JSON.stringify(call.params).includes(contextId))).toHaveLength(1);
  });

  it('binds a thread to its first cwd and userId (absent vs present differs)', async () => {
    const threadId = uniqueId('thread');
    expect((await stack.run(runBody({ threadId }))).status).toBe(200);
    const otherCwd = await stack.post('/', runBody({ threadId, iacCode: { cwd: '/workspace/other' } }));
    expect(await errorCode(otherCwd)).toBe('THREAD_BINDING_CONFLICT');
    const withUser = await stack.post('/', runBody({ threadId, iacCode: { userId: 'u1' } }));
    expect(withUser.status).toBe(409);
    expect(await errorCode(withUser)).toBe('THREAD_BINDING_CONFLICT');
    // Normalisation does not count as a different workspace.
    const same = await stack.run(runBody({ threadId, iacCode: { cwd: '/workspace//session-1/' } }));
    expect(same.status).toBe(200);
  });

  it('rotates the execution on a later normal turn and records the old one as terminal with its rosInvocationId', async () => {
    const threadId = uniqueId('thread');
    await stack.run(runBody({ threadId, iacCode: { rosInvocationId: 'inv-1' } }));
    const first = (await storedDocument(threadId))['execution'] as { executionId: string; taskId: string };
    await stack.run(runBody({ threadId, iacCode: { rosInvocationId: 'inv-2' } }));
    const document = await storedDocument(threadId);
    const execution = document['execution'] as { executionId: string; rosInvocationId: string; taskId: string; lastTaskId: string };
    expect(execution.executionId).not.toBe(first.executionId);
    expect(execution.rosInvocationId).toBe('inv-2');
    expect(execution.taskId).not.toBe(first.taskId);
    expect(document['terminalExecutions']).toEqual({ [first.executionId]: 'inv-1' });
    expect(document['activeRun']).toBeNull();
  });

  it('answers 409 EXECUTION_LOST for a resume on a thread it has never seen', async () => {
    const response = await stack.post('/', runBody({ resume: [{ interruptId: 'x', status: 'resolved', payload: {} }] }));
    expect(response.status).toBe(409);
    expect(await errorCode(response)).toBe('EXECUTION_LOST');
  });
});

describe('the active-run lease', () => {
  it('answers 409 THREAD_BUSY naming the live run while a run streams, and admits the next run right after it ends', async () => {
    const threadId = uniqueId('thread');
    const runId = uniqueId('run');
    const live = await stack.post('/', runBody({ threadId, runId, text: 'silence' }));
    const busy = await stack.post('/', runBody({ threadId }));
    expect(busy.status).toBe(409);
    const { executionId } = ((await stack.store.load(threadId))?.document as { execution: { executionId: string } }).execution;
    expect(await busy.json()).toEqual({
      error: { code: 'THREAD_BUSY', message: 'Another run is already active on this thread.', details: { executionId, runId, state: 'live' } },
    });
    const finished = await readSse(live);
    expect(finished.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect((await stack.run(runBody({ threadId }))).status).toBe(200);
  });

  it('lets an expired lease be taken over and cancels the orphaned A2A task', async () => {
    // Arrange: a run holds the thread, then its holder "dies" (we age its lease in the store).
    const threadId = uniqueId('thread');
    const live = await stack.post('/', runBody({ threadId, text: 'long' }));
    const reader = live.body!.getReader();
    await reader.read();
    let document: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !(document?.['execution'] as { taskId?: string } | undefined)?.taskId; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      document = await storedDocument(threadId);
    }
    const orphanTask = (document!['execution'] as { taskId: string }).taskId;
    const store = stack.store as FileThreadStore;
    const stored = (await store.load(threadId))!;
    const aged = {
      ...(stored.document as Record<string, unknown>),
      activeRun: { ...((stored.document as Record<string, unknown>)['activeRun'] as object), expiresAt: Date.now() - 1 },
    };
    await store.save(threadId, aged, stored.revision);
    const cancelTasksOf = (taskId: string) =>
      stack.emulator
        .callsOf('CancelTask')
        .map((call) => (call.params as { id: string }).id)
        .filter((id) => id === taskId);
    // Act
    const taker = await stack.run(runBody({ threadId }));
    // Assert
    expect(taker.status).toBe(200);
    expect(taker.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    // The taker cancels the orphan, once; the old stream learns it lost the thread — not that it was cancelled.
    expect(cancelTasksOf(orphanTask)).toHaveLength(1);
    const rest = await new Response(
      new ReadableStream({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
      }),
    ).text();
    expect(rest).toMatch(/"type":"RUN_ERROR"[^\n]*"code":"(EXECUTION_LOST|CANCELLED)"/);
    expect(cancelTasksOf(orphanTask)).toHaveLength(1);
  });
});

describe('disconnects and heartbeats', () => {
  it('sends ": heartbeat" comments while A2A is silent, never as a JSON event', async () => {
    const { sse } = await stack.run(runBody({ text: 'silence' }));
    expect(sse.raw).toContain(': heartbeat\n\n');
    expect(sse.events.some((event) => JSON.stringify(event).includes('heartbeat'))).toBe(false);
    expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('cancels the A2A task when the client disconnects mid-run, clears the task and frees the thread', async () => {
    const threadId = uniqueId('thread');
    const controller = new AbortController();
    const response = await fetch(`${stack.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(runBody({ threadId, text: 'long' })),
      signal: controller.signal,
    });
    const { text: seen } = await readUntil(response, 'TEXT_MESSAGE_CONTENT');
    const taskId = /"taskId":"([^"]+)"/.exec(seen)?.[1];
    controller.abort();
    let document: Record<string, unknown> = {};
    for (let i = 0; i < 100; i += 1) {
      document = await storedDocument(threadId);
      if (document['activeRun'] === null) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
    const execution = document['execution'] as { executionId: string; taskId: string | null };
    expect(execution.taskId).toBeNull();
    expect(Object.keys(document['terminalExecutions'] as object)).toContain(execution.executionId);
    expect((await stack.run(runBody({ threadId }))).status).toBe(200);
  });
});

describe('file store layout', () => {
  it('keeps one 0600 file per thread under 0700 folders, named by the thread key, and isolates corruption', async () => {
    const good = uniqueId('thread');
    const broken = `Broken/${uniqueId('thread')}`;
    await stack.run(runBody({ threadId: good }));
    await stack.run(runBody({ threadId: broken }));
    const threadsDir = join(stack.stateDir!, 'threads');
    expect((await stat(stack.stateDir!)).mode & 0o777).toBe(0o700);
    expect((await stat(threadsDir)).mode & 0o777).toBe(0o700);
    const brokenFile = join(threadsDir, `${threadKey(broken)}.json`);
    expect(threadKey(broken).startsWith('aguiid~')).toBe(true);
    expect((await stat(brokenFile)).mode & 0o777).toBe(0o600);
    expect((await readdir(threadsDir)).every((name) => !name.includes('/'))).toBe(true);
    expect(JSON.parse(await readFile(brokenFile, 'utf8')).document.threadId).toBe(broken);
    // Corrupt one thread: it answers 503, the other keeps working.
    await writeFile(brokenFile, '{"revision": 1, "writeId": "x", "document": {"schemaVersion": 999}}');
    const corrupt = await stack.post('/', runBody({ threadId: broken }));
    expect(corrupt.status).toBe(503);
    expect(await errorCode(corrupt)).toBe('STATE_UNAVAILABLE');
    await writeFile(brokenFile, 'not json');
    expect((await stack.post('/', runBody({ threadId: broken }))).status).toBe(503);
    expect((await stack.run(runBody({ threadId: good }))).status).toBe(200);
  });
});

describe('events after a successful turn', () => {
  it('stream RUN_STARTED first and exactly one terminal event', async () => {
    const { sse } = await stack.run(runBody());
    const kinds = types(sse);
    expect(kinds[0]).toBe('RUN_STARTED');
    expect(kinds.filter((kind) => kind === 'RUN_FINISHED' || kind === 'RUN_ERROR')).toHaveLength(1);
  });
});

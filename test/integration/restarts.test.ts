/**
 * Nothing lives only in memory: every flow works when the adapter process is replaced between
 * two requests (a new app on the same state directory, the same kernel).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { FOLLOWED_RESUME_CALLS, interruptsOf, lastEvent, resolved, sessionValue } from '../support/interrupts.js';
import { type Stack, startStack } from '../support/stack.js';

let emulator: A2AEmulator;
let stateDir: string;

beforeAll(async () => {
  emulator = await startA2AEmulator();
  stateDir = await mkdtemp(join(tmpdir(), 'agui-restart-'));
});
afterAll(async () => emulator.close());

/** Runs `body` on a fresh adapter process-equivalent, then shuts it down. */
async function onFreshAdapter<T>(body: (stack: Stack) => Promise<T>): Promise<T> {
  const stack = await startStack({ emulatorInstance: emulator, stateDir });
  try {
    return await body(stack);
  } finally {
    await stack.close();
  }
}

describe('after an adapter restart', () => {
  it('resumes an interrupt, with the same task, session and execution', async () => {
    const threadId = uniqueId('thread');
    const first = await onFreshAdapter((stack) => stack.run(runBody({ threadId, text: 'permission' })));
    const [interrupt] = interruptsOf(first.sse);
    const before = emulator.calls.length;
    const second = await onFreshAdapter((stack) => stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] })));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(emulator.calls.slice(before).map((call) => call.method)).toEqual(FOLLOWED_RESUME_CALLS);
    const [a, b] = [sessionValue(first.sse)!, sessionValue(second.sse)!];
    expect(b).toMatchObject({ executionId: a['executionId'], taskId: a['taskId'], sessionId: a['sessionId'], contextId: a['contextId'] });
  });

  it('still finds the execution for the cancel route', async () => {
    const threadId = uniqueId('thread');
    const first = await onFreshAdapter((stack) => stack.run(runBody({ threadId, text: 'permission' })));
    const { executionId, taskId } = sessionValue(first.sse) as { executionId: string; taskId: string };
    const response = await onFreshAdapter((stack) => stack.post(`/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId, rosInvocationId: 'invocation-1' }));
    expect(await response.json()).toEqual({ executionId, status: 'cancelled' });
    expect(emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
  });

  it('rejects a replayed request as DUPLICATE_RUN_ID; a new runId reuses the context with a new execution', async () => {
    const threadId = uniqueId('thread');
    const body = runBody({ threadId });
    const first = await onFreshAdapter((stack) => stack.run(body));
    const replay = await onFreshAdapter((stack) => stack.post('/', body));
    expect(replay.status).toBe(409);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('DUPLICATE_RUN_ID');
    const next = await onFreshAdapter((stack) => stack.run(runBody({ threadId })));
    expect(sessionValue(next.sse)?.['contextId']).toBe(sessionValue(first.sse)?.['contextId']);
    expect(sessionValue(next.sse)?.['executionId']).not.toBe(sessionValue(first.sse)?.['executionId']);
  });

  it('keeps a repeated answer from reaching A2A twice', async () => {
    const threadId = uniqueId('thread');
    const first = await onFreshAdapter((stack) => stack.run(runBody({ threadId, text: 'question' })));
    const entry = resolved(interruptsOf(first.sse)[0]!.id, { selectedId: 'plan-a' });
    await onFreshAdapter((stack) => stack.run(runBody({ threadId, resume: [entry] })));
    const repeat = await onFreshAdapter((stack) => stack.run(runBody({ threadId, resume: [entry] })));
    expect(repeat.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'RESUME_ALREADY_APPLIED' });
    const answers = emulator.callsOf('SendStreamingMessage').filter((call) => JSON.stringify(call.params).includes('"text":"Plan A"'));
    expect(answers).toHaveLength(1);
  });
});

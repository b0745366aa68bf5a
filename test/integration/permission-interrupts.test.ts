/**
 * Permission interrupts through real HTTP (adapter + emulator + file store): announced only once
 * durable, resumed exactly once, every resume error keeping the interrupt retryable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { cancelled, FOLLOWED_RESUME_CALLS, interruptsOf, lastEvent, resolved, sessionValue, threadCalls } from '../support/interrupts.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

async function pendingOf(threadId: string): Promise<string[]> {
  const stored = await (stack.store as FileThreadStore).load(threadId);
  return ((stored?.document as { execution: { pending: Array<{ id: string }> } }).execution.pending ?? []).map((item) => item.id);
}

async function interrupted(scenario = 'permission') {
  const threadId = uniqueId('thread');
  const first = await stack.run(runBody({ threadId, text: scenario }));
  return { threadId, first, interrupts: interruptsOf(first.sse) };
}

describe('a permission interrupt', () => {
  it('ends the run with the interrupt object of docs/protocol.md §5.2, after closing every span, without cancelling the task', async () => {
    const { threadId, first, interrupts } = await interrupted();
    expect(interrupts).toHaveLength(1);
    const [interrupt] = interrupts;
    expect(interrupt).toMatchObject({
      id: expect.stringMatching(/^permission-[0-9a-f]{32}$/),
      reason: 'tool_call',
      message: 'Run a local shell command. Allow once?',
      toolCallId: 'toolu-shell-1',
      responseSchema: { type: 'object', required: ['decision'], properties: { decision: { type: 'string', enum: ['allow_once', 'deny'] } }, additionalProperties: false },
    });
    expect(interrupt?.metadata).toMatchObject({
      schemaVersion: 1,
      kind: 'permission',
      toolName: 'run_shell',
      purpose: expect.any(String),
      effect: 'local_execution',
      standardOptions: [
        { id: 'allow_once', title: 'Allow once' },
        { id: 'deny', title: 'Deny' },
      ],
    });
    expect(interrupt?.metadata).not.toHaveProperty('kernelTrace');
    expect(interrupt).not.toHaveProperty('expiresAt');
    await assertValidAgUiStream(first.sse.events);
    expect(sessionValue(first.sse)?.['taskId']).toEqual(expect.any(String));
    expect(await pendingOf(threadId)).toEqual([interrupt?.id]);
    expect(threadCalls(stack, threadId, 'CancelTask')).toHaveLength(0);
    // The interrupt commit released the lease: the document has no active run.
    const stored = await (stack.store as FileThreadStore).load(threadId);
    expect((stored?.document as { activeRun: unknown }).activeRun).toBeNull();
    expect(JSON.stringify(stored)).not.toContain('kernel-internal-trace');
  });

  it('is resumed with allow_once: exactly the six-key data part on the same task and context, then success', async () => {
    const { threadId, first, interrupts } = await interrupted();
    const taskId = sessionValue(first.sse)?.['taskId'];
    const body = runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] });
    const second = await stack.run(body);
    expect(second.status).toBe(200);
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    await assertValidAgUiStream(second.sse.events);
    const sends = threadCalls(stack, threadId, 'SendStreamingMessage');
    expect(sends).toHaveLength(2);
    const message = (sends[1]?.params as { message: Record<string, unknown> }).message;
    expect(message).toMatchObject({ messageId: `agui-resume-${body['runId'] as string}-${interrupts[0]!.id}`, role: 'ROLE_USER', contextId: contextIdFor(threadId), taskId });
    expect(message['parts']).toEqual([
      {
        data: { schemaVersion: 1, kind: 'permission', requestTaskId: taskId, inputId: interrupts[0]!.id, toolUseId: 'toolu-shell-1', decision: 'allow_once' },
        mediaType: 'application/json',
      },
    ]);
    expect((message['metadata'] as { iac_code: Record<string, unknown> }).iac_code).toMatchObject({ rosInvocationId: 'invocation-1', cwd: '/workspace/session-1' });
    // The resumed stream continues the tool the permission was for.
    expect(second.sse.events.find((event) => event.type === 'TOOL_CALL_RESULT')).toMatchObject({ toolCallId: 'toolu-shell-1', content: 'Plan: 1 to add.' });
    expect(sessionValue(second.sse)).toMatchObject({ taskId, executionId: sessionValue(first.sse)?.['executionId'] });
    expect(await pendingOf(threadId)).toEqual([]);
  });

  it('treats a cancelled permission as deny', async () => {
    const { threadId, interrupts } = await interrupted();
    const second = await stack.run(runBody({ threadId, resume: [cancelled(interrupts[0]!.id)] }));
    expect(lastEvent(second.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const parts = (threadCalls(stack, threadId, 'SendStreamingMessage')[1]?.params as { message: { parts: Array<{ data: { decision: string } }> } }).message.parts;
    expect(parts[0]?.data.decision).toBe('deny');
    expect(second.sse.events.some((event) => event.type === 'TEXT_MESSAGE_CONTENT' && String(event['delta']).includes('denied'))).toBe(true);
  });

  it('keeps the thread for the resume: a new normal run is 409 RESUME_REQUIRED, another rosInvocationId is 409 EXECUTION_LOST', async () => {
    const { threadId, interrupts } = await interrupted();
    const normal = await stack.post('/', runBody({ threadId }));
    expect(normal.status).toBe(409);
    expect(((await normal.json()) as { error: { code: string } }).error.code).toBe('RESUME_REQUIRED');
    const otherInvocation = await stack.post(
      '/',
      runBody({ threadId, iacCode: { rosInvocationId: 'invocation-2' }, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }),
    );
    expect(otherInvocation.status).toBe(409);
    expect(((await otherInvocation.json()) as { error: { code: string } }).error.code).toBe('EXECUTION_LOST');
    expect(await pendingOf(threadId)).toEqual([interrupts[0]!.id]);
  });
});

describe('resume validation keeps the interrupt retryable', () => {
  it('rejects a payload outside the schema with [RUN_STARTED, RUN_ERROR RESUME_PAYLOAD_INVALID]; a corrected resume succeeds', async () => {
    const { threadId, interrupts } = await interrupted();
    const id = interrupts[0]!.id;
    const bad = await stack.run(runBody({ threadId, resume: [resolved(id, { decision: 'allow' })] }));
    expect(types(bad.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(bad.sse.events[1]).toMatchObject({ code: 'RESUME_PAYLOAD_INVALID' });
    const missing = await stack.run(runBody({ threadId, resume: [{ interruptId: id, status: 'resolved' }] }));
    expect(missing.sse.events[1]).toMatchObject({ code: 'RESUME_PAYLOAD_INVALID' });
    expect(await pendingOf(threadId)).toEqual([id]);
    const good = await stack.run(runBody({ threadId, resume: [resolved(id, { decision: 'allow_once' })] }));
    expect(lastEvent(good.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('answers [] and duplicate ids with INCOMPLETE_RESUME, unknown ids with UNKNOWN_INTERRUPT, a repeat with RESUME_ALREADY_APPLIED; A2A gets one answer overall', async () => {
    const { threadId, interrupts } = await interrupted();
    const id = interrupts[0]!.id;
    const empty = await stack.run(runBody({ threadId, resume: [] }));
    expect(empty.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'INCOMPLETE_RESUME' });
    const duplicate = await stack.run(runBody({ threadId, resume: [resolved(id, { decision: 'deny' }), resolved(id, { decision: 'deny' })] }));
    expect(duplicate.sse.events[1]).toMatchObject({ code: 'INCOMPLETE_RESUME' });
    const unknown = await stack.run(runBody({ threadId, resume: [resolved(id, { decision: 'deny' }), resolved('permission-nope', { decision: 'deny' })] }));
    expect(unknown.sse.events[1]).toMatchObject({ code: 'UNKNOWN_INTERRUPT' });
    const accepted = await stack.run(runBody({ threadId, resume: [resolved(id, { decision: 'allow_once' })] }));
    expect(lastEvent(accepted.sse)).toMatchObject({ type: 'RUN_FINISHED' });
    const repeated = await stack.run(runBody({ threadId, resume: [resolved(id, { decision: 'allow_once' })] }));
    expect(types(repeated.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(repeated.sse.events[1]).toMatchObject({ code: 'RESUME_ALREADY_APPLIED' });
    const changed = await stack.run(runBody({ threadId, resume: [resolved(id, { decision: 'deny' })] }));
    expect(changed.sse.events[1]).toMatchObject({ code: 'EXECUTION_LOST' });
    const answers = threadCalls(stack, threadId, 'SendStreamingMessage').filter((call) => JSON.stringify(call.params).includes('"kind":"permission"'));
    expect(answers).toHaveLength(1);
  });

  it('keeps the interrupt when the answer stream ends without an event; the retry succeeds with the session event', async () => {
    const { threadId, interrupts } = await interrupted();
    stack.emulator.controls.rpcFaults.push({ method: 'SendStreamingMessage', kind: 'emptyStream' });
    const lost = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    expect(types(lost.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(lost.sse.events[1]).toMatchObject({ code: 'A2A_UNAVAILABLE', message: 'The local A2A execution service did not accept the permission response.' });
    expect(await pendingOf(threadId)).toEqual([interrupts[0]!.id]);
    expect(threadCalls(stack, threadId, 'CancelTask')).toHaveLength(0);
    const retry = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    expect(lastEvent(retry.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(sessionValue(retry.sse)).toBeDefined();
  });

  it('maps a JSON-RPC rejection to A2A_UNAVAILABLE and a retryable backup error to SESSION_BACKUP_NOT_READY, keeping the interrupt', async () => {
    const { threadId, interrupts } = await interrupted();
    const entry = resolved(interrupts[0]!.id, { decision: 'allow_once' });
    stack.emulator.controls.rpcFaults.push({ method: 'SendStreamingMessage', kind: 'error', code: -32603, message: 'boom' });
    const rejected = await stack.run(runBody({ threadId, resume: [entry] }));
    expect(rejected.sse.events[1]).toMatchObject({ code: 'A2A_UNAVAILABLE', message: 'The local A2A execution service rejected the interrupt response.' });
    stack.emulator.controls.rpcFaults.push({
      method: 'SendStreamingMessage',
      kind: 'error',
      code: -32603,
      message: 'not ready',
      data: { code: 'SESSION_BACKUP_NOT_READY', retryable: true },
    });
    const notReady = await stack.run(runBody({ threadId, resume: [entry] }));
    expect(notReady.sse.events[1]).toMatchObject({ code: 'SESSION_BACKUP_NOT_READY', message: 'Session backup is still synchronizing. Retry after 3 seconds.' });
    expect(await pendingOf(threadId)).toEqual([interrupts[0]!.id]);
    expect(lastEvent((await stack.run(runBody({ threadId, resume: [entry] }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('never sends an answer the kernel would reject as malformed (the emulator checks the six keys)', async () => {
    const { threadId, interrupts } = await interrupted();
    const ok = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'deny' })] }));
    expect(lastEvent(ok.sse)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(stack.logs.join('\n')).not.toContain('Invalid params');
  });
});

describe('resume pre-flight', () => {
  it('calls ensure-restored (cwd, session, task), GetTask (history 100) and pipeline state (after the cursor) before sending, in that order', async () => {
    const { threadId, first, interrupts } = await interrupted();
    const session = sessionValue(first.sse)!;
    const before = stack.emulator.calls.length;
    await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    const calls = stack.emulator.calls.slice(before).filter((call) => call.method !== 'CancelTask');
    // The answer's own stream carries only acknowledgements, as the kernel's does: the run then
    // follows the task (GetTask, SubscribeToTask) and catches the pipeline up before it ends (docs/protocol.md §5.6).
    expect(calls.map((call) => call.method)).toEqual(FOLLOWED_RESUME_CALLS);
    expect(calls[0]?.params).toEqual({ cwd: '/workspace/session-1', sessionId: session['sessionId'], taskId: session['taskId'] });
    expect(calls[1]?.params).toEqual({ id: session['taskId'], historyLength: 100 });
    expect(calls[2]?.params).toEqual({ taskId: session['taskId'], afterSequence: '0' });
  });

  it('ends with EXECUTION_LOST when the kernel lost the session, sending nothing after ensure-restored', async () => {
    const { threadId, interrupts } = await interrupted('session-missing');
    const before = stack.emulator.calls.length;
    const lost = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    expect(types(lost.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(lost.sse.events[1]).toMatchObject({ code: 'EXECUTION_LOST', message: 'The iac-code session to resume is unavailable.' });
    expect(stack.emulator.calls.slice(before).map((call) => call.method)).toEqual(['HTTP POST /iac-code/session/ensure-restored']);
    // The execution is over: nothing is pending, and the thread takes a new turn.
    expect(await pendingOf(threadId)).toEqual([]);
    expect(lastEvent((await stack.run(runBody({ threadId }))).sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('ends with SESSION_BACKUP_NOT_READY when the session backup is not ready, keeping the interrupt', async () => {
    const { threadId, first, interrupts } = await interrupted();
    stack.emulator.controls.sessions.set(sessionValue(first.sse)!['sessionId'] as string, 'backupNotReady');
    const waiting = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    expect(waiting.sse.events[1]).toMatchObject({ code: 'SESSION_BACKUP_NOT_READY' });
    expect(await pendingOf(threadId)).toEqual([interrupts[0]!.id]);
    stack.emulator.controls.sessions.set(sessionValue(first.sse)!['sessionId'] as string, 'ok');
    expect(lastEvent((await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('keeps a durable interrupt when the snapshot has no metadata (a restarted kernel) or an explicit empty list', async () => {
    for (const mode of ['none', 'emptyList'] as const) {
      const { threadId, interrupts } = await interrupted();
      stack.emulator.controls.snapshotInputs = mode;
      try {
        const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
        expect(lastEvent(resumed.sse), mode).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      } finally {
        stack.emulator.controls.snapshotInputs = 'full';
      }
    }
  });
});

describe('several permissions', () => {
  it('announces a permission raised right after an answer, then resumes it; data parts go p1 then p2', async () => {
    const { threadId, interrupts } = await interrupted('permission-chain');
    const second = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    const next = interruptsOf(second.sse);
    expect(next).toHaveLength(1);
    expect(next[0]!.id).not.toBe(interrupts[0]!.id);
    expect(next[0]!.toolCallId).toBe('toolu-shell-2');
    expect(await pendingOf(threadId)).toEqual([next[0]!.id]);
    await assertValidAgUiStream(second.sse.events);
    const third = await stack.run(runBody({ threadId, resume: [resolved(next[0]!.id, { decision: 'allow_once' })] }));
    expect(lastEvent(third.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const answered = threadCalls(stack, threadId, 'SendStreamingMessage')
      .map((call) => (call.params as { message: { parts: Array<{ data?: { inputId: string } }> } }).message.parts[0]?.data?.inputId)
      .filter(Boolean);
    expect(answered).toEqual([interrupts[0]!.id, next[0]!.id]);
  });

  it('lists two sideband permissions together; answering one is INCOMPLETE_RESUME; both go by SendMessage', async () => {
    const { threadId, interrupts } = await interrupted('two-permissions');
    expect(interrupts.map((interrupt) => interrupt.toolCallId)).toEqual(['toolu-a', 'toolu-b']);
    const partial = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    expect(partial.sse.events[1]).toMatchObject({ code: 'INCOMPLETE_RESUME' });
    const both = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' }), resolved(interrupts[1]!.id, { decision: 'deny' })] }));
    expect(lastEvent(both.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const sent = threadCalls(stack, threadId, 'SendMessage').map(
      (call) => (call.params as { message: { messageId: string; parts: Array<{ data: { decision: string } }> } }).message,
    );
    expect(sent.map((message) => message.messageId)).toEqual([`agui-resume-${interrupts[0]!.id}`, `agui-resume-${interrupts[1]!.id}`]);
    expect(sent.map((message) => message.parts[0]?.data.decision)).toEqual(['allow_once', 'deny']);
    expect(threadCalls(stack, threadId, 'SendStreamingMessage')).toHaveLength(1);
    expect(both.sse.events.some((event) => event.type === 'TEXT_MESSAGE_CONTENT' && String(event['delta']).includes('deny'))).toBe(true);
  });

  it('ends the run as an interrupt for a sub-pipeline permission while the task keeps WORKING, and resumes it by SendMessage', async () => {
    const { threadId, interrupts } = await interrupted('subpipeline-permission');
    expect(interrupts[0]?.metadata).toMatchObject({ scope: 'candidate', subPipelineId: 'sub-a', operation: 'deploy', displayParameters: { stack: 'vpc-a' } });
    expect(threadCalls(stack, threadId, 'CancelTask')).toHaveLength(0);
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupts[0]!.id, { decision: 'allow_once' })] }));
    expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(threadCalls(stack, threadId, 'SendStreamingMessage')).toHaveLength(1);
    expect(threadCalls(stack, threadId, 'SendMessage')).toHaveLength(1);
    expect(resumed.sse.events.some((event) => event.type === 'TEXT_MESSAGE_CONTENT' && String(event['delta']).includes('deployed'))).toBe(true);
  });
});

/**
 * A resume may reuse the runId of the run that announced its interrupts, as CopilotKit's does
 * (docs/protocol.md §6.2): admitted, answered once, a replay still RESUME_ALREADY_APPLIED; any
 * other reuse of a runId is refused before the stream, with nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import type { ThreadDocument } from '../../lib/core/thread/document.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent, resolved, threadCalls } from '../support/interrupts.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

function permissionAnswers(threadId: string) {
  return threadCalls(stack, threadId, 'SendStreamingMessage').filter((call) => JSON.stringify(call.params).includes('"kind":"permission"'));
}

async function refusal(response: Response): Promise<{ status: number; code: string }> {
  return { status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code };
}

async function loadThreadDocument(threadId: string): Promise<ThreadDocument> {
  return (await (stack.store as FileThreadStore).load(threadId))?.document as ThreadDocument;
}

async function pendingOf(threadId: string): Promise<string[]> {
  return (await loadThreadDocument(threadId)).execution.pending.map((item) => item.id);
}

/** A new thread whose first run (`text` names the scenario) stops on an interrupt; `allowUnder` answers one under that run's runId. */
async function interruptedRun(text: string) {
  const threadId = uniqueId('thread');
  const runId = uniqueId('run');
  const first = await stack.run(runBody({ threadId, runId, text }));
  const allowUnder = (interruptId: string) => runBody({ threadId, runId, resume: [resolved(interruptId, { decision: 'allow_once' })] });
  return { threadId, runId, interrupt: interruptsOf(first.sse)[0] as { id: string }, allowUnder };
}

describe('a resume under the interrupted run’s runId', () => {
  it('is admitted and answered once; its replay ends RESUME_ALREADY_APPLIED, and a new turn under that runId is still refused', async () => {
    const { threadId, runId, interrupt, allowUnder } = await interruptedRun('permission');
    const answer = allowUnder(interrupt.id);

    const resumed = await stack.run(answer);
    expect(resumed.status).toBe(200);
    await assertValidAgUiStream(resumed.sse.events);
    expect(resumed.sse.events[0]).toMatchObject({ type: 'RUN_STARTED', threadId, runId });
    expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });

    const replayed = await stack.run(answer);
    expect(types(replayed.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(replayed.sse.events[1]).toMatchObject({ code: 'RESUME_ALREADY_APPLIED' });
    expect(permissionAnswers(threadId)).toHaveLength(1);

    // Only a resume may reuse it: a new turn under the id is the §6.2 refusal it always was.
    expect(await refusal(await stack.post('/', runBody({ threadId, runId, text: 'hello again' })))).toEqual({ status: 409, code: 'RUN_ID_CONFLICT' });
  });

  it('goes on through a chain of interrupts under one runId; a stale answer to the first is INCOMPLETE_RESUME and leaves the second pending', async () => {
    const { threadId, interrupt: initInterrupt, allowUnder } = await interruptedRun('permission-chain');
    const firstAnswer = allowUnder(initInterrupt.id);
    const second = await stack.run(firstAnswer);
    await assertValidAgUiStream(second.sse.events);
    const [applyInterrupt] = interruptsOf(second.sse);
    expect(applyInterrupt!.id).not.toBe(initInterrupt.id);

    const stale = await stack.run(firstAnswer);
    expect(types(stale.sse)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(stale.sse.events[1]).toMatchObject({ code: 'INCOMPLETE_RESUME' });
    expect(await pendingOf(threadId)).toEqual([applyInterrupt!.id]);

    const done = await stack.run(allowUnder(applyInterrupt!.id));
    expect(lastEvent(done.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(permissionAnswers(threadId)).toHaveLength(2);
  });

  it('is refused for any other runId the thread used, before the stream, with the interrupt kept', async () => {
    const threadId = uniqueId('thread');
    const earlierRunId = uniqueId('run');
    await stack.run(runBody({ threadId, runId: earlierRunId, text: 'hello' }));
    const interrupted = await stack.run(runBody({ threadId, text: 'permission' }));
    const [interrupt] = interruptsOf(interrupted.sse);
    const before = await loadThreadDocument(threadId);

    const reused = await stack.post('/', runBody({ threadId, runId: earlierRunId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }));
    expect(await refusal(reused)).toEqual({ status: 409, code: 'RUN_ID_CONFLICT' });
    expect(await loadThreadDocument(threadId)).toEqual(before);
    expect(permissionAnswers(threadId)).toHaveLength(0);

    // A new runId is the seed's way and still works.
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }));
    expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });
});

/**
 * What the kernel echoes must stay under the A2A SDK's 4 MiB event limit (docs/protocol.md §1.4,
 * §3.5, §5.7): the kernel keeps every message of a task in its history with its metadata, and
 * applies guidance on the owning run's stream. A hostile probe passed eight `iacCode` fields at
 * 4.5 MiB: the run ended A2A_UNAVAILABLE, and after one resume carrying such a fence every later
 * resume of the thread failed the same way while a new turn answered RESUME_REQUIRED — the thread
 * was wedged. Now every forwarded value is bounded (400 naming it), a guidance's text too, and a
 * resume whose answer stream breaks after the kernel took the answer follows the task instead of
 * leaving the answer pending forever. Real HTTP, the A2A emulator, the file store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORWARDED_VALUE_BYTES, MAX_GUIDANCE_TEXT_BYTES } from '../../lib/core/protocol/echo-size.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent, resolved, threadCalls } from '../support/interrupts.js';
import { isSessionEvent, LiveSse } from '../support/live-sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

type Refusal = { error: { code: string; message: string; details: Array<{ path: string; message: string }> } };

async function refusal(body: Record<string, unknown>): Promise<Refusal> {
  const response = await stack.post('/', body);
  expect(response.status).toBe(400);
  return (await response.json()) as Refusal;
}

describe('forwarded iacCode values', () => {
  it('the eight fields the probe passed at 4.5 MiB are each refused past 64 KiB, all named in one 400, before any write or kernel call', async () => {
    const over = 'x'.repeat(MAX_FORWARDED_VALUE_BYTES);
    const threadId = uniqueId('echo-fields');
    const kernelCalls = stack.emulator.calls.length;
    const { error } = await refusal(
      runBody({
        threadId,
        iacCode: {
          executionFence: { owner: over },
          channel: over,
          pipelineName: over,
          llmHeaders: { 'x-big': over },
          guidanceId: over,
          inputDigest: over,
          llmApiKey: over,
          thinking: { enabled: true, effort: over },
        },
      }),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details.map((detail) => detail.path).sort()).toEqual(
      ['executionFence', 'channel', 'pipelineName', 'llmHeaders', 'guidanceId', 'inputDigest', 'llmApiKey', 'thinking.effort']
        .map((field) => `forwardedProps.iacCode.${field}`)
        .sort(),
    );
    for (const detail of error.details) expect(detail.message).toContain(String(MAX_FORWARDED_VALUE_BYTES));
    // The refused secret is not repeated back.
    expect(JSON.stringify(error)).not.toContain(over);
    expect(await stack.store.load(threadId)).toBeUndefined();
    expect(stack.emulator.calls.length).toBe(kernelCalls);
  });

  it('counts the bytes the kernel may echo: JSON with non-ASCII escaped; a value of exactly 64 KiB passes, named as the caller spelled it when over', async () => {
    // A JSON string's quotes count: 65,534 characters echo as exactly 65,536 bytes.
    const exact = 'c'.repeat(MAX_FORWARDED_VALUE_BYTES - 2);
    expect(lastEvent((await stack.run(runBody({ iacCode: { channel: exact } }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
    const { error } = await refusal(runBody({ iacCode: { channel: `${exact}c` } }));
    expect(error.details.map((detail) => detail.path)).toEqual(['forwardedProps.iacCode.channel']);
    // 11,000 'é' are 22 KB of UTF-8 but echo as \u00e9: 66,002 bytes.
    const accented = await refusal(runBody({ iacCode: { pipeline_name: 'é'.repeat(11_000) } }));
    expect(accented.error.details.map((detail) => detail.path)).toEqual(['forwardedProps.iacCode.pipeline_name']);
  });

  it('a resume carrying a 4.5 MiB fence is refused before anything reaches the kernel; the interrupt stays answerable', async () => {
    const threadId = uniqueId('echo-fence');
    const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'permission' }))).sse);
    const answer = [resolved(interrupt?.id as string, { decision: 'allow_once' })];
    const sendsBefore = threadCalls(stack, threadId, 'SendStreamingMessage').length;
    await refusal(runBody({ threadId, resume: answer, iacCode: { executionFence: { epoch: 'f'.repeat(4.5 * 1024 * 1024) } } }));
    expect(threadCalls(stack, threadId, 'SendStreamingMessage')).toHaveLength(sendsBefore);
    expect(lastEvent((await stack.run(runBody({ threadId, resume: answer, iacCode: { executionFence: { epoch: 7 } } }))).sse)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
    });
  });
});

describe('a resume whose answer stream breaks in its first event', () => {
  it('was taken by the kernel: the answer is recorded, the run follows the task to its end, and the thread takes the next turn', async () => {
    const threadId = uniqueId('cut-answer');
    const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'permission' }))).sse);
    // The kernel receives the answer, then the connection breaks halfway through its first event.
    stack.emulator.controls.rpcFaults.push({ method: 'SendStreamingMessage', kind: 'cutFirstEvent' });
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(interrupt?.id as string, { decision: 'allow_once' })] }));
    expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(resumed.sse.events.some(isSessionEvent)).toBe(true);
    // The kernel got the answer exactly once, and nothing is left pending.
    const answers = threadCalls(stack, threadId, 'SendStreamingMessage').filter((call) => JSON.stringify(call.params).includes('allow_once'));
    expect(answers).toHaveLength(1);
    const document = (await stack.store.load(threadId))?.document as { activeRun: unknown; execution: { pending: unknown[] } };
    expect(document.execution.pending).toEqual([]);
    expect(document.activeRun).toBeNull();
    // A repeat is recognised as applied, and a new turn is no longer RESUME_REQUIRED.
    const repeat = await stack.run(runBody({ threadId, resume: [resolved(interrupt?.id as string, { decision: 'allow_once' })] }));
    expect(lastEvent(repeat.sse)).toMatchObject({ type: 'RUN_ERROR', code: 'RESUME_ALREADY_APPLIED' });
    expect(lastEvent((await stack.run(runBody({ threadId }))).sse)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});

describe('guidance text', () => {
  it('over 256 KiB is refused with 400 naming the content; the owning run lives on and completes', async () => {
    const body = runBody({ text: 'pipeline-long', iacCode: { runMode: 'pipeline' } });
    const threadId = String(body['threadId']);
    const owner = new LiveSse(await stack.post('/', body));
    await owner.until(isSessionEvent);
    const guidance = (text: string) => {
      const guide = runBody({ threadId, iacCode: { runMode: 'pipeline', activeGuidance: true } });
      guide['messages'] = [{ id: uniqueId('guidance-message'), role: 'user', content: text }];
      return guide;
    };
    // The probe's 11 MiB guidance was reported a success while the owner died on its echo.
    const { error } = await refusal(guidance(`steer ${'g'.repeat(5 * 1024 * 1024)}`));
    expect(error.details).toEqual([{ path: 'messages[0].content', message: expect.stringContaining(String(MAX_GUIDANCE_TEXT_BYTES)) }]);
    const finished = await stack.run(guidance('finish now'));
    expect(lastEvent(finished.sse)).toMatchObject({ type: 'RUN_FINISHED' });
    expect((await owner.rest()).at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  }, 60_000);
});

/**
 * POST /extensions/iac-code/v1/executions/{executionId}/cancel (docs/protocol.md §6.7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent, resolved, sessionValue } from '../support/interrupts.js';
import { readUntil } from '../support/read-until.js';
import { parseSse } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
const TOKEN = 'cancel-token';
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { authToken: TOKEN } });
});
afterAll(async () => stack.close());

function cancel(executionId: string, body: unknown, headers: Record<string, string> = auth): Promise<Response> {
  return stack.post(`/extensions/iac-code/v1/executions/${encodeURIComponent(executionId)}/cancel`, body, headers);
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

describe('the cancel endpoint', () => {
  it('cancels an interrupted execution: 200 cancelled, CancelTask for its task, pending cleared; then already_terminal', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'permission' }), auth);
    const [interrupt] = interruptsOf(first.sse);
    const { executionId, taskId } = sessionValue(first.sse) as { executionId: string; taskId: string };
    const response = await cancel(executionId, { threadId, rosInvocationId: 'invocation-1' });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ executionId, status: 'cancelled' });
    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
    const again = await cancel(executionId, { threadId, rosInvocationId: 'invocation-1' });
    expect(await json(again)).toEqual({ executionId, status: 'already_terminal' });
    // The interrupt is gone: resuming it is no longer possible, a new turn is.
    const resume = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }), auth);
    expect(resume.sse.events[1]).toMatchObject({ type: 'RUN_ERROR', code: 'EXECUTION_LOST' });
    expect((await stack.run(runBody({ threadId }), auth)).sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('answers 404 EXECUTION_NOT_FOUND for an unknown thread or execution, or a threadId/rosInvocationId that does not match', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'permission' }), auth);
    const { executionId } = sessionValue(first.sse) as { executionId: string };
    for (const [id, body] of [
      [executionId, { threadId: uniqueId('thread'), rosInvocationId: 'invocation-1' }],
      ['no-such-execution', { threadId, rosInvocationId: 'invocation-1' }],
      [executionId, { threadId, rosInvocationId: 'invocation-9' }],
    ] as const) {
      const response = await cancel(id, body);
      expect(response.status).toBe(404);
      expect(((await json(response))['error'] as { code: string }).code).toBe('EXECUTION_NOT_FOUND');
    }
    // Nothing was cancelled by those.
    const resumed = await stack.run(runBody({ threadId, resume: [resolved(interruptsOf(first.sse)[0]!.id, { decision: 'deny' })] }), auth);
    expect(lastEvent(resumed.sse)).toMatchObject({ type: 'RUN_FINISHED' });
  });

  it('matches a rotated execution by the rosInvocationId it ran under', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, iacCode: { rosInvocationId: 'inv-old' } }), auth);
    await stack.run(runBody({ threadId, iacCode: { rosInvocationId: 'inv-new' } }), auth);
    const { executionId } = sessionValue(first.sse) as { executionId: string };
    expect(await json(await cancel(executionId, { threadId, rosInvocationId: 'inv-old' }))).toEqual({ executionId, status: 'already_terminal' });
    expect((await cancel(executionId, { threadId, rosInvocationId: 'inv-new' })).status).toBe(404);
  });

  it('checks auth, content type, size and body like POST /', async () => {
    expect((await cancel('x', { threadId: 't', rosInvocationId: 'r' }, {})).status).toBe(401);
    expect((await cancel('x', { threadId: 't', rosInvocationId: 'r' }, { ...auth, 'content-type': 'text/plain' })).status).toBe(415);
    const tooLarge = await cancel('x', { threadId: 't', rosInvocationId: 'r', pad: 'x'.repeat(70 * 1024) });
    expect(tooLarge.status).toBe(413);
    expect(((await json(tooLarge))['error'] as { message: string }).message).toBe('The cancel request body is too large.');
    expect((await cancel('x', '{nope')).status).toBe(400);
    const invalid = await cancel('x', { threadId: '', rosInvocationId: 5 });
    expect(invalid.status).toBe(400);
    const error = (await json(invalid))['error'] as { code: string; details: Array<{ path: string }> };
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.details.map((detail) => detail.path).sort()).toEqual(['rosInvocationId', 'threadId']);
    // The same bound as a run's rosInvocationId (docs/protocol.md §1.4): no run can have a longer one.
    const tooLong = await cancel('x', { threadId: 't', rosInvocationId: 'r'.repeat(257) });
    expect(tooLong.status).toBe(400);
    expect(((await json(tooLong))['error'] as { details: Array<{ path: string }> }).details.map((detail) => detail.path)).toEqual(['rosInvocationId']);
    expect((await fetch(`${stack.url}/extensions/iac-code/v1/executions/x/cancel`)).status).toBe(405);
  });

  // A cancel landing on another instance: test/multi-instance/two-instances.test.ts.
  it('ends a live stream on this instance with RUN_ERROR CANCELLED', async () => {
    const threadId = uniqueId('thread');
    const live = await readUntil(await stack.post('/', runBody({ threadId, text: 'long' }), auth), 'iac-code.session.v1');
    const executionId = /"executionId":"([^"]+)"/.exec(live.text)?.[1] as string;
    const response = await cancel(executionId, { threadId, rosInvocationId: 'invocation-1' });
    expect(await json(response)).toEqual({ executionId, status: 'cancelled' });
    const rest = parseSse(await live.rest());
    expect(rest.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'CANCELLED' });
    // The thread is free at once.
    expect((await stack.run(runBody({ threadId }), auth)).status).toBe(200);
  });
});

/**
 * The subscribe route's answers before the stream (docs/protocol.md §6.14, §2.3): guards, body,
 * 404 EXECUTION_NOT_FOUND and 409 OBSERVATION_IDENTITY_CHANGED, each in our JSON envelope, each
 * decided from the stored thread alone — no A2A call, nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, sessionValue } from '../support/interrupts.js';
import { revisionOf, subscribe } from '../support/observe.js';
import { type Stack, startStack } from '../support/stack.js';

const TOKEN = 'subscribe-token';
const auth = { authorization: `Bearer ${TOKEN}` };
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { authToken: TOKEN } });
});
afterAll(async () => stack.close());

async function errorOf(response: Response): Promise<{ code: string; message: string; details?: Array<{ path: string; message: string }> }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return ((await response.json()) as { error: { code: string; message: string; details?: Array<{ path: string; message: string }> } }).error;
}

/** A thread whose current execution is parked on a question: observable. */
async function interrupted(): Promise<{ threadId: string; runId: string; executionId: string }> {
  const threadId = uniqueId('thread');
  const runId = uniqueId('run');
  const first = await stack.run(runBody({ threadId, runId, text: 'question' }), auth);
  interruptsOf(first.sse);
  return { threadId, runId, executionId: sessionValue(first.sse)?.['executionId'] as string };
}

describe('subscribe: guards and body', () => {
  it('answers 401 without the bearer token, 415 without JSON, 413 over 64 KiB, 400 INVALID_JSON, 405 for GET', async () => {
    const { threadId, runId, executionId } = await interrupted();
    const body = { threadId, runId, rosInvocationId: 'invocation-1' };
    const unauthorised = await subscribe(stack.url, executionId, body);
    expect(unauthorised.status).toBe(401);
    expect((await errorOf(unauthorised)).code).toBe('UNAUTHORIZED');
    const text = await subscribe(stack.url, executionId, JSON.stringify(body), { ...auth, 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect((await errorOf(text)).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const large = await subscribe(stack.url, executionId, { ...body, afterSequence: 'x'.repeat(64 * 1024) }, auth);
    expect(large.status).toBe(413);
    expect(await errorOf(large)).toMatchObject({ code: 'REQUEST_TOO_LARGE', message: 'The subscribe request body is too large.' });
    const broken = await subscribe(stack.url, executionId, '{"threadId":', auth);
    expect(broken.status).toBe(400);
    expect((await errorOf(broken)).code).toBe('INVALID_JSON');
    const get = await fetch(`${stack.url}/extensions/iac-code/v1/executions/${executionId}/subscribe`, { headers: auth });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const undecodable = await fetch(`${stack.url}/extensions/iac-code/v1/executions/%E0%A4%A/subscribe`, { method: 'POST', headers: auth });
    expect(undecodable.status).toBe(404);
    expect((await errorOf(undecodable)).code).toBe('NOT_FOUND');
  });

  it('answers 400 INVALID_INPUT naming every missing, empty, mistyped or unknown field; afterSequence of any type is accepted', async () => {
    const { threadId, runId, executionId } = await interrupted();
    const bad = await subscribe(stack.url, executionId, { threadId: '', runId: 7, extra: true }, auth);
    expect(bad.status).toBe(400);
    const error = await errorOf(bad);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe('The subscribe request must name a threadId, a runId and a rosInvocationId, and nothing else but afterSequence.');
    expect(error.details?.map((detail) => detail.path).sort()).toEqual(['extra', 'rosInvocationId', 'runId', 'threadId']);
    expect(error.details?.find((detail) => detail.path === 'extra')?.message).toBe('Unknown field.');
    const notObject = await subscribe(stack.url, executionId, [threadId], auth);
    expect((await errorOf(notObject)).details).toEqual([{ path: '(body)', message: expect.any(String) }]);
    for (const afterSequence of [12, 'x', null, { at: 1 }]) {
      const accepted = await subscribe(stack.url, executionId, { threadId, runId, rosInvocationId: 'invocation-1', afterSequence }, auth);
      expect(accepted.status, JSON.stringify(afterSequence)).toBe(200);
      await accepted.text();
    }
  });
});

describe('subscribe: 404 EXECUTION_NOT_FOUND', () => {
  it('for an unknown thread, a finished normal turn, a completed task and a cancelled execution', async () => {
    const unknown = await subscribe(stack.url, 'exec-1', { threadId: uniqueId('thread'), runId: 'run-1', rosInvocationId: 'invocation-1' }, auth);
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toEqual({ code: 'EXECUTION_NOT_FOUND', message: 'The execution has no live task to observe.' });

    for (const text of ['hello there', 'complete now']) {
      const threadId = uniqueId('thread');
      const runId = uniqueId('run');
      const finished = await stack.run(runBody({ threadId, runId, text }), auth);
      expect(finished.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      const response = await subscribe(stack.url, sessionValue(finished.sse)?.['executionId'] as string, { threadId, runId, rosInvocationId: 'invocation-1' }, auth);
      expect(response.status, text).toBe(404);
      expect((await errorOf(response)).code).toBe('EXECUTION_NOT_FOUND');
    }

    const { threadId, runId, executionId } = await interrupted();
    const cancelled = await stack.post(`/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId, rosInvocationId: 'invocation-1' }, auth);
    expect(cancelled.status).toBe(200);
    const afterCancel = await subscribe(stack.url, executionId, { threadId, runId, rosInvocationId: 'invocation-1' }, auth);
    expect(afterCancel.status).toBe(404);
    expect((await errorOf(afterCancel)).code).toBe('EXECUTION_NOT_FOUND');
  });
});

describe('subscribe: 409 OBSERVATION_IDENTITY_CHANGED', () => {
  it('for another executionId (a rotated one included), another rosInvocationId, or a runId never admitted — without any A2A call or write', async () => {
    const threadId = uniqueId('thread');
    const firstRun = uniqueId('run');
    const first = await stack.run(runBody({ threadId, runId: firstRun, text: 'hello' }), auth);
    const rotated = sessionValue(first.sse)?.['executionId'] as string;
    const runId = uniqueId('run');
    const second = await stack.run(runBody({ threadId, runId, text: 'question' }), auth);
    interruptsOf(second.sse);
    const executionId = sessionValue(second.sse)?.['executionId'] as string;
    expect(executionId).not.toBe(rotated);

    const calls = stack.emulator.calls.length;
    const revision = await revisionOf(stack.store, threadId);
    for (const [id, body] of [
      ['no-such-execution', { threadId, runId, rosInvocationId: 'invocation-1' }],
      [rotated, { threadId, runId: firstRun, rosInvocationId: 'invocation-1' }],
      [executionId, { threadId, runId, rosInvocationId: 'invocation-2' }],
      [executionId, { threadId, runId: 'never-admitted', rosInvocationId: 'invocation-1' }],
    ] as const) {
      const response = await subscribe(stack.url, id, body, auth);
      expect(response.status, JSON.stringify([id, body])).toBe(409);
      expect(await errorOf(response)).toEqual({ code: 'OBSERVATION_IDENTITY_CHANGED', message: 'The execution observation identity changed.' });
    }
    expect(stack.emulator.calls.length).toBe(calls);
    expect(await revisionOf(stack.store, threadId)).toBe(revision);

    // Any run admitted on the thread may observe, not only the one that started the execution.
    const earlier = await subscribe(stack.url, executionId, { threadId, runId: firstRun, rosInvocationId: 'invocation-1' }, auth);
    expect(earlier.status).toBe(200);
    await earlier.text();
  });

  it('translates the message into the Accept-Language', async () => {
    const { threadId, executionId } = await interrupted();
    const response = await subscribe(
      stack.url,
      executionId,
      { threadId, runId: 'never-admitted', rosInvocationId: 'invocation-1' },
      { ...auth, 'accept-language': 'de-DE,de;q=0.9' },
    );
    expect(await errorOf(response)).toEqual({ code: 'OBSERVATION_IDENTITY_CHANGED', message: 'Die Beobachtungsidentität der Ausführung hat sich geändert.' });
  });
});

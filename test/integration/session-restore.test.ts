/**
 * `/iac-code/session/ensure-restored` answers (docs/protocol.md §7.8): a 404 whose JSON body says
 * `status: "not_found"` (the newest kernel) or carries an `error` object (earlier kernels) means the
 * session is missing → EXECUTION_LOST; any other 404, or a 405, means a kernel without the route
 * (v0.13.1) → the step is skipped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent, resolved } from '../support/interrupts.js';
import { type Stack, startStack } from '../support/stack.js';

describe('the kernel client reads ensure-restored answers', () => {
  let server: Server;
  let answer: { status: number; type: string; body: string } = { status: 200, type: 'application/json', body: '{}' };
  let kernel: SdkA2AKernel;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kernel = new SdkA2AKernel({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: undefined });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cases: Array<[string, { status: number; type: string; body: string }, string]> = [
    ['200 current', { status: 200, type: 'application/json', body: '{"status":"current"}' }, 'ok'],
    ['404 status not_found (newest kernel)', { status: 404, type: 'application/json', body: '{"status":"not_found"}' }, 'missing'],
    ['404 error object (earlier kernels)', { status: 404, type: 'application/json', body: '{"error":{"code":"SESSION_NOT_FOUND"}}' }, 'missing'],
    ['404 framework JSON (no route)', { status: 404, type: 'application/json', body: '{"detail":"Not Found"}' }, 'unsupported'],
    ['404 another status', { status: 404, type: 'application/json', body: '{"status":"unknown"}' }, 'unsupported'],
    ['404 plain text (no route)', { status: 404, type: 'text/plain', body: 'Not Found' }, 'unsupported'],
    ['405', { status: 405, type: 'text/plain', body: 'Method Not Allowed' }, 'unsupported'],
    ['409 backup not ready', { status: 409, type: 'application/json', body: '{"error":{"code":"SESSION_BACKUP_NOT_READY","retryable":true}}' }, 'backupNotReady'],
  ];

  for (const [name, response, outcome] of cases) {
    it(`${name} → ${outcome}`, async () => {
      answer = response;
      const result = await kernel.ensureSessionRestored({ cwd: '/workspace', sessionId: 'session-1', taskId: 'task-1' });
      expect(result.outcome).toBe(outcome);
    });
  }

  it('503 → the kernel is unavailable', async () => {
    answer = { status: 503, type: 'application/json', body: '{"error":"busy"}' };
    await expect(kernel.ensureSessionRestored({ cwd: '/workspace', sessionId: 'session-1', taskId: 'task-1' })).rejects.toThrow(/HTTP 503/);
  });
});

describe('a resume whose session the kernel lost', () => {
  for (const missingSessionAnswer of ['status', 'error'] as const) {
    it(`ends EXECUTION_LOST when ensure-restored answers the ${missingSessionAnswer === 'status' ? '{"status":"not_found"}' : 'error-object'} 404, and frees the thread`, async () => {
      const stack: Stack = await startStack({ store: 'file', emulator: { missingSessionAnswer } });
      try {
        const threadId = uniqueId('thread');
        const [interrupt] = interruptsOf((await stack.run(runBody({ threadId, text: 'session-missing' }))).sse);
        const before = stack.emulator.calls.length;
        const lost = await stack.run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }));
        expect(lastEvent(lost.sse)).toMatchObject({ type: 'RUN_ERROR', code: 'EXECUTION_LOST', message: 'The iac-code session to resume is unavailable.' });
        expect(stack.emulator.calls.slice(before).map((call) => call.method)).toEqual(['HTTP POST /iac-code/session/ensure-restored']);
        expect(lastEvent((await stack.run(runBody({ threadId }))).sse)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      } finally {
        await stack.close();
      }
    });
  }
});

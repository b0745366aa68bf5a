/**
 * A kernel failure a person can act on (docs/protocol.md §2.4, §10.3), with the emulator playing
 * the kernel's FAILED-then-INPUT_REQUIRED: the RUN_ERROR carries the kernel's reason and error id in
 * the request's language, and never a secret — the emulator quotes the reason as given, where the
 * real kernel sanitises it first (test/kernel/failures.test.ts shows that side) — and the thread
 * takes the next turn.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { types } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

const API_KEY = 'sk-user-key-0123456789abcdef';

async function stored(): Promise<string> {
  const entries = await readdir(stack.stateDir as string, { recursive: true, withFileTypes: true });
  const files = await Promise.all(entries.filter((entry) => entry.isFile()).map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')));
  return files.join('\n');
}

describe('the kernel’s reason on RUN_ERROR', () => {
  it('ends the run at FAILED with the reason and error id, without showing the reason as the assistant’s text', async () => {
    const { sse } = await stack.run(runBody({ text: 'fatal-error' }));
    await assertValidAgUiStream(sse.events);
    expect(sse.events.at(-1)).toEqual({
      type: 'RUN_ERROR',
      timestamp: expect.any(Number),
      code: 'A2A_EXECUTION_FAILED',
      message:
        "The A2A execution failed. The kernel reported: InternalServerError: Error code: 500 - {'error': {'message': 'model provider outage', 'type': 'server_error'}} (error id 3e7c17ff7f29)",
    });
    expect(types(sse)).not.toContain('TEXT_MESSAGE_START');
  });

  it('delivers the text streamed before the failure, closed, and frames the reason in the request’s language', async () => {
    stack.emulator.controls.scenarios.set('talk-then-fail', async (script) => {
      script.task('SUBMITTED');
      script.text('Working on it. ');
      script.reportError('The quota is exhausted.', { retryable: false, errorId: 'quota-7' });
    });
    const { sse } = await stack.run(runBody({ text: 'talk-then-fail', iacCode: { preferredLanguage: 'de' } }));
    await assertValidAgUiStream(sse.events);
    expect(sse.events.filter((event) => event.type === 'TEXT_MESSAGE_CONTENT').map((event) => event['delta'])).toEqual(['Working on it. ']);
    expect(types(sse).slice(-2)).toEqual(['TEXT_MESSAGE_END', 'RUN_ERROR']);
    expect(sse.events.at(-1)?.['message']).toBe('Die A2A-Ausführung ist fehlgeschlagen. Der Kernel meldete: The quota is exhausted. (Fehler-ID: quota-7)');
  });

  it('never shows, logs or stores a secret the kernel quotes back: the request’s own key, a bearer token', async () => {
    const threadId = uniqueId('thread');
    const reason = `Incorrect API key provided: ${API_KEY}; Authorization: Bearer opaque-token-value-123`;
    const { sse } = await stack.run(runBody({ threadId, text: `fatal-error ${reason}`, iacCode: { llmApiKey: API_KEY } }));
    const message = String(sse.events.at(-1)?.['message']);
    expect(message).toBe('The A2A execution failed. The kernel reported: Incorrect API key provided: [redacted]; Authorization: Bearer [redacted] (error id 3e7c17ff7f29)');
    expect(stack.logs.join('\n')).not.toContain(API_KEY);
    expect(stack.logs.join('\n')).not.toContain('opaque-token-value-123');
    expect(await stored()).not.toContain(API_KEY);
    // The log line of the RUN_ERROR carries the same, safe reason.
    expect(stack.logs.find((line) => line.includes('"RUN_ERROR"') && line.includes('Incorrect API key provided'))).toBeDefined();
  });

  it('bounds a long reason to 500 characters on one line', async () => {
    const { sse } = await stack.run(runBody({ text: `fatal-error ${'word '.repeat(400)}` }));
    const message = String(sse.events.at(-1)?.['message']);
    const reason = message.slice('The A2A execution failed. The kernel reported: '.length, message.lastIndexOf(' (error id'));
    expect(Array.from(reason)).toHaveLength(500);
    expect(reason.endsWith('…')).toBe(true);
  });

  it('takes the next turn of the thread right after a failed one', async () => {
    const threadId = uniqueId('thread');
    const failed = await stack.run(runBody({ threadId, text: 'fatal-error' }));
    expect(failed.sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_EXECUTION_FAILED' });
    const next = await stack.run(runBody({ threadId, text: 'hello again' }));
    expect(next.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });
});

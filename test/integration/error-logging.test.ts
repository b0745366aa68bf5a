/**
 * A failed run leaves its cause in the log (docs/architecture.md §5): every RUN_ERROR is one warn
 * line with the error chain and stacks that name the project's files; a request the adapter itself
 * could not serve (503 STATE_UNAVAILABLE) is a warn line with its cause too.
 */

import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorFields } from '../../lib/core/error-fields.js';
import { freePort } from '../support/adapter-process.js';
import { FaultyStore } from '../support/faulty-store.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { MemoryThreadStore } from '../support/memory-store.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

function records(logs: string[]): Array<Record<string, unknown>> {
  return logs.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The error and its causes (and an AggregateError's errors), outermost first. */
function chain(fields: ErrorFields | undefined): ErrorFields[] {
  if (!fields) return [];
  return [fields, ...chain(fields.cause), ...(fields.errors ?? []).flatMap(chain)];
}

describe('a run that fails because the kernel is down', () => {
  it('logs one warn line with the error chain down to the refused connection, with stacks into lib/', async () => {
    // A loopback port with nothing listening on it: the kernel is down.
    stack = await startStack({ kernelUrl: `http://127.0.0.1:${await freePort()}/` });
    const threadId = uniqueId('thread');

    const { status, sse } = await stack.run(runBody({ threadId }));

    expect(status).toBe(200);
    expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });
    const ended = records(stack.logs).filter((record) => record['message'] === 'run ended' && record['threadId'] === threadId);
    expect(ended).toHaveLength(1);
    const [line] = ended;
    expect(line).toMatchObject({ level: 'warn', event: 'RUN_ERROR', code: 'A2A_UNAVAILABLE', error: { name: 'RunFailure', code: 'A2A_UNAVAILABLE' } });
    const errors = chain(line?.['error'] as ErrorFields);
    const names = errors.map((error) => error.name);
    expect(names.slice(0, 2)).toEqual(['RunFailure', 'KernelUnavailableError']);
    expect(errors.some((error) => error.code === 'ECONNREFUSED')).toBe(true);
    expect(errors[0]?.stack).toMatch(/lib\/core\/run\/run-failure\.ts:\d+/);
    expect(errors[1]?.stack).toMatch(/lib\/adapters\/a2a-kernel\/sdk-kernel\.ts:\d+/);
  });
});

describe('a request the store cannot serve', () => {
  it('is answered 503 STATE_UNAVAILABLE and logged at warn with the store failure as its cause', async () => {
    const store = new FaultyStore(new MemoryThreadStore());
    stack = await startStack({ store });
    store.failLoads(true);

    const { status, json } = await stack.run(runBody());

    expect(status).toBe(503);
    expect(json).toMatchObject({ error: { code: 'STATE_UNAVAILABLE' } });
    const rejected = records(stack.logs).find((record) => record['message'] === 'request rejected');
    expect(rejected).toMatchObject({ level: 'warn', code: 'STATE_UNAVAILABLE' });
    expect(chain(rejected?.['error'] as ErrorFields).map((error) => [error.name, error.message])).toEqual([
      ['AdapterError', 'STATE_UNAVAILABLE: stateUnavailable'],
      ['StoreUnavailableError', 'injected load failure'],
    ]);
  });

  it('still logs a refusal that is the caller’s business at info, without a stack', async () => {
    stack = await startStack();
    await stack.run({ not: 'a RunAgentInput' });
    const rejected = records(stack.logs).find((record) => record['message'] === 'request rejected');
    expect(rejected).toMatchObject({ level: 'info', code: 'INVALID_INPUT' });
    expect(rejected?.['error']).toBeUndefined();
  });
});

/**
 * A reader that reattaches far behind (docs/protocol.md §6.15 "Limits"; lib/core/reattach/
 * paced-sender.ts): what it needs — the rest of a long answer and the next turn's long answer, two
 * epochs of the journal — is more than a stream may leave waiting for one reader (16 MiB,
 * lib/http/sse-source.ts). Handed to the stream at once, the reader counted as one that stopped
 * reading and was let go with nothing, on every retry (file-long seed 81); paced, it reads all of it
 * over a real socket, id for id, and is never taken for a reader that stopped reading.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exploreMessage } from '../../lib/emulators/a2a/explore-scenario.js';
import { MAX_QUEUED_SSE_BYTES } from '../../lib/http/sse-source.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { resolved } from '../support/interrupts.js';
import { subscribe } from '../support/observe.js';
import { readRecords, type SseRecordWithId } from '../support/sse-records.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { detachGraceMs: 60_000 } });
});
afterAll(async () => stack.close());

async function turn(body: Record<string, unknown>): Promise<SseRecordWithId[]> {
  const response = await stack.post('/', body, ASK_GRACE);
  expect(response.status).toBe(200);
  const { records } = await readRecords(response);
  expect(records.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED' });
  return records;
}

function sessionOf(records: readonly SseRecordWithId[]): { executionId: string } {
  const session = records.find((record) => record.event.type === 'CUSTOM' && record.event['name'] === 'iac-code.session.v1');
  return session?.event['value'] as { executionId: string };
}

const sizeOf = (records: readonly SseRecordWithId[]): number => records.reduce((sum, record) => sum + record.id.length + record.data.length, 0);

describe('a reader far behind', () => {
  it('gets two long answers it missed — more than a reader may leave waiting — whole, in order, over a real socket', async () => {
    const threadId = uniqueId('thread');
    // A long answer, a question, and after the answer another long answer: one execution, two epochs of its journal.
    const long = { kind: 'long', bytes: 10 * 1024 * 1024, chunk: 64 * 1024, every: 16 } as const;
    const text = exploreMessage({ pace: 0, steps: [{ kind: 'text', deltas: ['Planning. '] }, long, { kind: 'ask', id: 'toolu-ask-far' }, long] });
    const first = await turn(runBody({ threadId, runId: uniqueId('run'), text }));
    const interrupt = first.at(-1)?.event as { outcome?: { type: string; interrupts?: Array<{ id: string }> } };
    expect(interrupt.outcome?.type).toBe('interrupt');
    const secondRunId = uniqueId('run');
    const second = await turn(runBody({ threadId, runId: secondRunId, resume: [resolved(interrupt.outcome?.interrupts?.[0]?.id ?? '', { freeText: 'plan a' })] }));
    const { executionId } = sessionOf(first);
    const cut = first.findIndex((record) => record.event.type === 'TEXT_MESSAGE_START');
    const missed = [...first.slice(cut + 1), ...second];
    expect(sizeOf(missed)).toBeGreaterThan(MAX_QUEUED_SSE_BYTES);
    const response = await subscribe(stack.url, executionId, { threadId, runId: secondRunId, rosInvocationId: 'invocation-1' }, { 'last-event-id': first[cut]?.id ?? '' });
    expect(response.status, response.status === 200 ? '' : await response.text()).toBe(200);
    const { records } = await readRecords(response);
    expect(records.length).toBe(missed.length);
    expect(records.every((record, index) => record.id === missed[index]?.id && record.data === missed[index]?.data)).toBe(true);
    expect(stack.logs.filter((line) => line.includes('SSE reader stopped reading'))).toEqual([]);
  }, 180_000);
});

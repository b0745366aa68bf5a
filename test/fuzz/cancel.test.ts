/**
 * The cancel route under fuzzing (docs/protocol.md §6.7): execution ids in the path — real ones,
 * prototype names, unicode edge cases, broken percent-encoding — and fuzzed bodies, some naming
 * real threads. Never a 5xx; a 200 is `{executionId, status}` for a real execution only.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { cancelBody } from './support/bodies.js';
import { CANCEL_PATH, sendInProcess, useFuzzStack } from './support/fuzz-stack.js';
import { jsonText } from './support/json-text.js';
import { fuzzParameters, runsFor, timeoutFor } from './support/settings.js';
import { identityString, PROTOTYPE_NAMES } from './support/strings.js';

const fuzz = useFuzzStack();
/** Threads with a real execution: one parked on a permission, one finished. */
const real: Array<{ threadId: string; executionId: string }> = [];

async function startThread(threadId: string, text: string): Promise<void> {
  const body = {
    threadId,
    runId: 'run-1',
    state: {},
    messages: [{ id: 'm1', role: 'user', content: text }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'invocation-1', cwd: '/w' } },
  };
  const answer = await sendInProcess(fuzz.stack, { body: JSON.stringify(body) });
  if (answer.kind !== 'stream') throw new Error(`could not start ${threadId}`);
  const session = answer.sse.events.find((event) => event.type === 'CUSTOM' && event['name'] === 'iac-code.session.v1') as { value: { executionId: string } } | undefined;
  real.push({ threadId, executionId: session!.value.executionId });
}

beforeAll(async () => {
  await startThread(`cancel-parked-${process.pid}`, 'permission');
  await startThread(`cancel-done-${process.pid}`, 'complete');
});

/** A path segment: encoded when it can be, else as it is (lone surrogates cannot be percent-encoded). */
function segment(id: string, encode: boolean): string {
  if (!encode) return id;
  try {
    return encodeURIComponent(id);
  } catch {
    return id;
  }
}

const executionId = fc.oneof(
  fc.constantFrom(0, 1).map((index) => real[index]!.executionId),
  fc.constantFrom(...PROTOTYPE_NAMES),
  identityString,
  fc.constantFrom('%E0%A4%A', '%ED%A0%80', '%00', '..', '%2F', '%'),
);

const body = fc.oneof(
  cancelBody,
  fc
    .tuple(fc.constantFrom(0, 1), fc.constantFrom('invocation-1', 'invocation-2', '__proto__'))
    .map(([index, rosInvocationId]) => ({ threadId: real[index]!.threadId, rosInvocationId })),
);

describe('fuzzed cancel requests', () => {
  it(
    'never answers 5xx, and answers 200 only for a real execution',
    async () => {
      await fc.assert(
        fc.asyncProperty(executionId, fc.boolean(), body, async (id, encode, payload) => {
          const answer = await sendInProcess(fuzz.stack, { path: CANCEL_PATH(segment(id, encode)), body: jsonText(payload) });
          if (answer.kind === 'json') {
            expect(answer.status).toBe(200);
            const outcome = answer.body as { executionId: string; status: string };
            expect(real.map((thread) => thread.executionId)).toContain(outcome.executionId);
            expect(['cancelled', 'already_terminal']).toContain(outcome.status);
          } else {
            expect(answer.kind).toBe('refused');
          }
        }),
        fuzzParameters(),
      );
    },
    timeoutFor(runsFor(), 100),
  );
});

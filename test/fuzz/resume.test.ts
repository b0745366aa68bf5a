/**
 * Resume under fuzzing (docs/protocol.md §5): fuzzed `resume` arrays against a thread parked on a
 * real permission interrupt. Whatever the answer was, the stream is valid AG-UI and the thread is
 * left consistent: a correct answer afterwards either completes the turn or is told precisely why
 * it cannot (already applied, execution gone) — never a 5xx, never a stuck thread.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { resumeArray } from './support/bodies.js';
import { sendInProcess, useFuzzStack } from './support/fuzz-stack.js';
import { jsonText } from './support/json-text.js';
import { fuzzParameters, runsFor, timeoutFor } from './support/settings.js';

const fuzz = useFuzzStack();

function body(threadId: string, runId: string, extra: Record<string, unknown>): string {
  return jsonText({
    threadId,
    runId,
    state: {},
    messages: [{ id: `m-${runId}`, role: 'user', content: 'permission' }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'invocation-1', cwd: '/w' } },
    ...extra,
  });
}

/** Codes a correct answer may meet after a fuzzed one (docs/protocol.md §2.4). */
const SETTLED = ['RUN_FINISHED', 'RUN_ERROR:RESUME_ALREADY_APPLIED', 'RUN_ERROR:EXECUTION_LOST', 'RUN_ERROR:CANCELLED'];

describe('fuzzed resume', () => {
  it(
    'keeps the thread consistent whatever the resume array holds',
    async () => {
      const interruptId = fc.constant('(the pending interrupt)');
      await fc.assert(
        fc.asyncProperty(resumeArray(interruptId), async (resume) => {
          const threadId = uniqueId('resume');
          const parked = await sendInProcess(fuzz.stack, { body: body(threadId, 'run-1', {}) });
          const outcome = parked.kind === 'stream' ? (parked.last['outcome'] as { interrupts: Array<{ id: string }> }) : undefined;
          const pendingId = outcome?.interrupts[0]?.id;
          expect(pendingId).toEqual(expect.any(String));
          // The fuzzed resume, with the real interrupt id wherever the arbitrary chose it.
          const fuzzed = JSON.parse(JSON.stringify(resume ?? null).replaceAll('(the pending interrupt)', pendingId!));
          await sendInProcess(fuzz.stack, { body: body(threadId, 'run-2', { resume: fuzzed }) });
          const correct = await sendInProcess(fuzz.stack, {
            body: body(threadId, 'run-3', { resume: [{ interruptId: pendingId, status: 'resolved', payload: { decision: 'deny' } }] }),
          });
          if (correct.kind === 'refused') {
            // The fuzzed answer may have cancelled the execution and left room only for a new turn.
            expect(correct.code).toBe('EXECUTION_LOST');
          } else {
            expect(correct.kind).toBe('stream');
            const last = correct.kind === 'stream' ? correct.last : {};
            expect(SETTLED).toContain(last['type'] === 'RUN_ERROR' ? `RUN_ERROR:${String(last['code'])}` : last['type']);
          }
          // Whatever happened, the thread takes a new turn or still asks for its interrupt.
          const next = await sendInProcess(fuzz.stack, { body: body(threadId, 'run-4', {}) });
          expect(next.kind === 'stream' || (next.kind === 'refused' && next.code === 'RESUME_REQUIRED')).toBe(true);
        }),
        fuzzParameters(4),
      );
    },
    timeoutFor(runsFor(4), 2_000),
  );
});

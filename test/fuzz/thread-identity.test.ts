/**
 * Thread and run identities under fuzzing (docs/protocol.md §6.1, §6.2, §6.11): ids that differ only
 * in lone surrogates, in case or in U+FFFD must never share a thread (a lone surrogate is refused,
 * naming threadId); run ids named like Object.prototype members, and bodies that differ only by a
 * `__proto__` key, follow the idempotency rules exactly — checked against a model of the thread.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWellFormed } from '../../lib/core/protocol/identity.js';
import { uniqueId } from '../support/fixtures.js';
import { sendInProcess, useFuzzStack } from './support/fuzz-stack.js';
import { fuzzParameters, runsFor, timeoutFor } from './support/settings.js';
import { PROTOTYPE_NAMES } from './support/strings.js';

const fuzz = useFuzzStack({ store: 'file' });

function body(threadId: string, runId: string, state: string = '{}', extra = ''): string {
  const iacCode = { schemaVersion: 1, rosInvocationId: 'invocation-1', cwd: '/workspace/a' };
  return `{"threadId":${JSON.stringify(threadId)},"runId":${JSON.stringify(runId)},"state":${state},"messages":[{"id":"m1","role":"user","content":"complete"}],"tools":[],"context":[],"forwardedProps":{"iacCode":${JSON.stringify(iacCode)}}${extra}}`;
}

/** Short ids over pieces UTF-8 would merge (lone surrogates and U+FFFD) or a case-insensitive disk would. */
const collidingId = fc
  .array(fc.constantFrom('x', 'X', '\ud800', '\udbff', '\udc00', '\udfff', '\ufffd', '\ud83d\ude00'), { minLength: 1, maxLength: 3 })
  .map((pieces) => pieces.join(''));

describe('thread identities', () => {
  it(
    'gives every well-formed threadId a thread of its own and refuses the others by name, never 503',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(collidingId, { minLength: 2, maxLength: 6 }), async (ids) => {
          const prefix = `${uniqueId('collide')}-`;
          for (const id of ids) {
            const threadId = `${prefix}${id}`;
            const answer = await sendInProcess(fuzz.stack, { body: body(threadId, uniqueId('run')) });
            if (isWellFormed(threadId)) {
              expect(answer.kind === 'stream' && answer.last.type).toBe('RUN_FINISHED');
            } else {
              expect(answer.kind === 'refused' && [answer.code, answer.paths]).toEqual(['INVALID_INPUT', ['threadId']]);
            }
          }
        }),
        fuzzParameters(2),
      );
    },
    timeoutFor(runsFor(2), 800),
  );
});

/** Bodies for one runId that are the same request or not: variants 0 and 1 differ only by a `__proto__` key. */
const VARIANTS: Array<{ state: string; extra: string }> = [
  { state: '{}', extra: '' },
  { state: '{}', extra: ',"__proto__":{"x":1}' },
  { state: '{"__proto__":"y"}', extra: '' },
  { state: '{"constructor":{"prototype":1}}', extra: '' },
];

describe('run ids', () => {
  it(
    'admits a new runId, refuses a replay as DUPLICATE_RUN_ID and another body as RUN_ID_CONFLICT, whatever the id is called',
    async () => {
      // A few run ids per thread, always one of the four names issue 9 reported, so that each comes back (docs/protocol.md §6.2).
      const steps = fc
        .tuple(
          fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'),
          fc.subarray([...PROTOTYPE_NAMES, 'first', 'second'], { maxLength: 2 }),
          fc.array(fc.tuple(fc.nat(), fc.nat({ max: VARIANTS.length - 1 })), { minLength: 1, maxLength: 6 }),
        )
        .map(([named, others, picks]) => {
          const runIds = [named, ...others];
          return picks.map(([pick, variant]) => ({ runId: runIds[pick % runIds.length]!, variant }));
        });
      await fc.assert(
        fc.asyncProperty(steps, async (steps) => {
          const threadId = uniqueId('runs');
          const seen = new Map<string, number>([['first', 0]]);
          const first = await sendInProcess(fuzz.stack, { body: body(threadId, 'first') });
          expect(first.kind === 'stream' && first.last.type).toBe('RUN_FINISHED');
          for (const { runId, variant } of steps) {
            const { state, extra } = VARIANTS[variant]!;
            const answer = await sendInProcess(fuzz.stack, { body: body(threadId, runId, state, extra) });
            const before = seen.get(runId);
            if (before === undefined) {
              expect(answer.kind === 'stream' && answer.last.type, `${runId} is new on the thread`).toBe('RUN_FINISHED');
              seen.set(runId, variant);
            } else {
              expect(answer.kind === 'refused' && answer.code, `${runId} again, variant ${before} then ${variant}`).toBe(
                before === variant ? 'DUPLICATE_RUN_ID' : 'RUN_ID_CONFLICT',
              );
            }
          }
          // Every admitted run is remembered — read back from the store — whatever its id.
          for (const [runId, variant] of seen) {
            const { state, extra } = VARIANTS[variant]!;
            const replay = await sendInProcess(fuzz.stack, { body: body(threadId, runId, state, extra) });
            expect(replay.kind === 'refused' && replay.code, `${runId} replayed`).toBe('DUPLICATE_RUN_ID');
          }
        }),
        fuzzParameters(3),
      );
    },
    timeoutFor(runsFor(3), 1_500),
  );
});

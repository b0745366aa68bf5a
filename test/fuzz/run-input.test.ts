/**
 * POST / with fuzzed RunAgentInput bodies (docs/protocol.md §3): envelopes, identities with unicode
 * edge cases, forwardedProps.iacCode, user content, resume arrays, `__proto__` keys and JSON nested
 * around and far beyond the 256-level limit — in-process through the real app. Whatever arrives:
 * no 5xx, no unhandled rejection, every refusal the error envelope, every stream valid AG-UI.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/fixtures.js';
import { iacCode, runInput } from './support/bodies.js';
import { sendInProcess, useFuzzStack } from './support/fuzz-stack.js';
import { jsonText } from './support/json-text.js';
import { fuzzParameters, runsFor, timeoutFor } from './support/settings.js';

const fuzz = useFuzzStack();

describe('fuzzed RunAgentInput', () => {
  it(
    'never answers 5xx: every refusal is an error envelope, every stream valid AG-UI',
    async () => {
      const outcomes = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(runInput, async (body) => {
          const answer = await sendInProcess(fuzz.stack, { body: jsonText(body) });
          const key = answer.kind === 'refused' ? answer.code : answer.kind === 'stream' ? String(answer.last.type) : `json ${answer.status}`;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        }),
        fuzzParameters(),
      );
      console.info(`fuzzed RunAgentInput outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
      // The arbitraries reach past the envelope check: some runs were admitted and streamed.
      expect([...outcomes.keys()].some((key) => key.startsWith('RUN_'))).toBe(true);
      expect(outcomes.get('INVALID_INPUT')).toBeGreaterThan(0);
    },
    timeoutFor(runsFor(), 150),
  );

  it(
    'refuses iacCode it cannot use before the stream, and streams what it can',
    async () => {
      await fc.assert(
        fc.asyncProperty(iacCode, async (props) => {
          const body = {
            threadId: uniqueId('iac'),
            runId: 'run-1',
            state: {},
            messages: [{ id: 'm1', role: 'user', content: 'complete now' }],
            tools: [],
            context: [],
            forwardedProps: { iacCode: props },
          };
          const answer = await sendInProcess(fuzz.stack, { body: jsonText(body) });
          if (answer.kind === 'refused') expect(answer.code).toBe('INVALID_INPUT');
          else expect(answer.kind).toBe('stream');
        }),
        fuzzParameters(),
      );
    },
    timeoutFor(runsFor(), 150),
  );
});

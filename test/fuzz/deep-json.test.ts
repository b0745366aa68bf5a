/**
 * JSON nesting anywhere in a body (docs/protocol.md §1.4): within 256 levels it is judged like any
 * other value; beyond, it is 400 INVALID_INPUT before anything recursive runs — on POST / and on
 * the cancel route, at any depth up to what 12 MiB of brackets can hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../lib/core/protocol/json-depth.js';
import { MAX_CANCEL_BODY_BYTES } from '../../lib/http/cancel-route.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { CANCEL_PATH, sendInProcess, useFuzzStack } from './support/fuzz-stack.js';
import { jsonText, nestedJson, type RawJson } from './support/json-text.js';
import { fuzzParameters, runsFor, timeoutFor } from './support/settings.js';

const fuzz = useFuzzStack();

const levels = fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: MAX_JSON_DEPTH - 6, max: MAX_JSON_DEPTH + 2 }), fc.integer({ min: 1_000, max: 50_000 }));
const kind = fc.constantFrom('object', 'array', 'mixed') as fc.Arbitrary<'object' | 'array' | 'mixed'>;

/** Where the nested value goes, and how many levels of the body lie above it. */
const PLACES: Record<string, { depthAbove: number; place: (body: Record<string, unknown>, value: RawJson) => void }> = {
  state: {
    depthAbove: 1,
    place: (body, value) => {
      body['state'] = value;
    },
  },
  'a message field': {
    depthAbove: 3,
    place: (body, value) => {
      (body['messages'] as Array<Record<string, unknown>>)[0]!['extra'] = value;
    },
  },
  'another forwardedProps key': {
    depthAbove: 2,
    place: (body, value) => {
      (body['forwardedProps'] as Record<string, unknown>)['other'] = value;
    },
  },
  context: {
    depthAbove: 2,
    place: (body, value) => {
      body['context'] = [value];
    },
  },
  // An own "__proto__" key, as JSON.parse makes it.
  'a __proto__ key': { depthAbove: 1, place: (body, value) => void Object.defineProperty(body, '__proto__', { value, enumerable: true, configurable: true, writable: true }) },
};

describe('deep JSON', () => {
  it(
    'refuses more than 256 levels in any field of POST / with 400 INVALID_INPUT, and streams within them',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...Object.keys(PLACES)), levels, kind, async (where, depth, shape) => {
          const body = runBody({ threadId: uniqueId('deep'), text: 'complete' });
          const { depthAbove, place } = PLACES[where]!;
          place(body, nestedJson(depth, shape));
          const answer = await sendInProcess(fuzz.stack, { body: jsonText(body) });
          if (depthAbove + depth > MAX_JSON_DEPTH) expect(answer.kind === 'refused' && answer.code).toBe('INVALID_INPUT');
          else expect(answer.kind === 'stream' && answer.last.type).toBe('RUN_FINISHED');
        }),
        fuzzParameters(),
      );
    },
    timeoutFor(runsFor(), 300),
  );

  it(
    'refuses it on the cancel route as well',
    async () => {
      await fc.assert(
        fc.asyncProperty(levels, kind, async (depth, shape) => {
          const text = `{"threadId":"t","rosInvocationId":"r","x":${nestedJson(depth, shape).text}}`;
          const answer = await sendInProcess(fuzz.stack, { path: CANCEL_PATH('execution-1'), body: text });
          const expected = text.length > MAX_CANCEL_BODY_BYTES ? 'REQUEST_TOO_LARGE' : 1 + depth > MAX_JSON_DEPTH ? 'INVALID_INPUT' : 'EXECUTION_NOT_FOUND';
          expect(answer.kind === 'refused' && answer.code).toBe(expected);
        }),
        fuzzParameters(),
      );
    },
    timeoutFor(runsFor(), 100),
  );
});

/**
 * Answer validation (lib/core/interrupts/answers.ts, docs/protocol.md §5.3) judged against Ajv: for
 * every kind of responseSchema the adapter publishes — a permission, a resource selection, option
 * choices with and without free text, no options at all — the validator the bundle ships gives
 * Ajv's verdict on generated answers, valid ones and near misses alike.
 */
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../lib/core/a2a/wire-types.js';
import { matchesSchema } from '../../lib/core/interrupts/answers.js';
import { choiceSchema, PERMISSION_SCHEMA } from '../../lib/core/interrupts/interrupt-object.js';
import { RESOURCE_SELECTION_SCHEMA } from '../../lib/core/interrupts/resource-selection.js';

const ajv = new Ajv({ allErrors: true, strict: false });

const SCHEMAS: Record<string, JsonObject> = {
  permission: PERMISSION_SCHEMA as unknown as JsonObject,
  'resource selection': RESOURCE_SELECTION_SCHEMA as unknown as JsonObject,
  'two options': choiceSchema(
    [
      { id: 'a', title: 'A', raw: {} },
      { id: 'b', title: 'B', raw: {} },
    ],
    false,
  ),
  'options and free text': choiceSchema([{ id: 'yes', title: 'Yes', raw: {} }], true),
  'no options': choiceSchema([], false),
};

/** Answers near the schemas' shapes — right keys, wrong values, extra keys — and anything else. */
const key = fc.constantFrom('decision', 'selectedId', 'freeText', 'value', 'label', 'optionsEmpty', 'other');
const value = fc.oneof(
  { arbitrary: fc.constantFrom('allow_once', 'deny', 'allow', 'a', 'b', 'yes', '', ' ', 'text'), weight: 6 },
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
);
/** One key of a schema's shape with a value that may or may not fit it. */
const single = key.chain((name) => value.map((fits) => ({ [name]: fits })));
const answer = fc.oneof({ arbitrary: single, weight: 4 }, fc.dictionary(key, value, { maxKeys: 3 }), fc.jsonValue({ maxDepth: 2 }));

describe('answer validation', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`gives Ajv’s verdict for ${name}`, () => {
      const ajvValidate = ajv.compile(schema);
      let valid = 0;
      fc.assert(
        fc.property(answer, (payload) => {
          const expected = ajvValidate(payload);
          if (expected) valid += 1;
          expect(matchesSchema(schema, payload)).toBe(expected);
        }),
        { numRuns: 2_000, seed: 19 },
      );
      // The generated answers reach both verdicts, so agreement means something.
      expect(valid).toBeGreaterThan(10);
    });
  }

  it('refuses what each schema refuses, by example', () => {
    expect(matchesSchema(SCHEMAS['permission'] as JsonObject, { decision: 'allow_once' })).toBe(true);
    expect(matchesSchema(SCHEMAS['permission'] as JsonObject, { decision: 'allow_once', note: 'x' })).toBe(false);
    expect(matchesSchema(SCHEMAS['two options'] as JsonObject, { selectedId: 'c' })).toBe(false);
    expect(matchesSchema(SCHEMAS['options and free text'] as JsonObject, { freeText: '' })).toBe(false);
    expect(matchesSchema(SCHEMAS['resource selection'] as JsonObject, { value: 'vpc-1', label: 'VPC' })).toBe(true);
  });
});

/**
 * The console's form generator (lib/console/app/interrupts/schema-model.ts) on the responseSchemas
 * the adapter sends (docs/protocol.md §5) — built by the adapter's own code, not copied — including
 * the resource-selection schema (§5.2), which renders with no code of its own; the console's words
 * for a kind only relabel it.
 */
import { describe, expect, it } from 'vitest';
import { answerModel, type FieldModel, validate } from '../../lib/console/app/interrupts/schema-model.js';
import { choiceSchema, PERMISSION_SCHEMA } from '../../lib/core/interrupts/interrupt-object.js';
import { standardOptions } from '../../lib/core/interrupts/options.js';
import { RESOURCE_SELECTION_SCHEMA } from '../../lib/core/interrupts/resource-selection.js';

describe('answerModel', () => {
  it('turns a permission into one button per decision, labelled from the interrupt options', () => {
    const labels = (value: string) => ({ allow_once: 'Allow once', deny: 'Deny' })[value];
    expect(answerModel(PERMISSION_SCHEMA, labels)).toEqual({
      kind: 'buttons',
      property: 'decision',
      options: [
        { value: 'allow_once', label: 'Allow once' },
        { value: 'deny', label: 'Deny' },
      ],
    });
  });

  it('turns a question into option picks plus a free-text form', () => {
    const schema = choiceSchema(standardOptions([{ id: 'plan-a', label: 'Plan A' }, 'plan-b']), true);
    const model = answerModel(schema, (value) => (value === 'freeText' ? 'Or describe your own plan' : undefined));
    expect(model).toEqual({
      kind: 'alternatives',
      branches: [
        { kind: 'pick', label: 'Plan A', payload: { selectedId: 'plan-a' } },
        { kind: 'pick', label: 'plan-b', payload: { selectedId: 'plan-b' } },
        { kind: 'form', label: 'Or describe your own plan', fields: [{ kind: 'text', name: 'freeText', label: 'Or describe your own plan', required: true, minLength: 1 }] },
      ],
    });
  });

  it('renders a resource selection (value with an optional label, or free text) without special code', () => {
    const model = answerModel(RESOURCE_SELECTION_SCHEMA);
    expect(model).toEqual({
      kind: 'alternatives',
      branches: [
        {
          kind: 'form',
          label: 'Value / Label',
          fields: [
            { kind: 'text', name: 'value', label: 'Value', required: true, minLength: 1 },
            { kind: 'text', name: 'label', label: 'Label', required: false, minLength: 0 },
          ],
        },
        { kind: 'form', label: 'Free text', fields: [{ kind: 'text', name: 'freeText', label: 'Free text', required: true, minLength: 1 }] },
      ],
    });
  });

  it('takes labels and branch legends from the labeller where the schema has no title', () => {
    const words: Record<string, string> = { value: 'Resource id or value', 'branch:value+label': 'Enter the resource', 'branch:freeText': 'Or describe it in words' };
    const model = answerModel(RESOURCE_SELECTION_SCHEMA, (name) => words[name]);
    expect(model.kind === 'alternatives' && model.branches.map((branch) => branch.label)).toEqual(['Enter the resource', 'Or describe it in words']);
    expect(model.kind === 'alternatives' && model.branches[0]?.kind === 'form' && model.branches[0].fields.map((field) => ('label' in field ? field.label : ''))).toEqual([
      'Resource id or value',
      'Label',
    ]);
  });

  it('renders booleans, numbers and optional enums as form fields, and falls back to JSON for what it does not know', () => {
    const schema = {
      type: 'object',
      required: ['count'],
      properties: { dryRun: { type: 'boolean' }, count: { type: 'integer' }, zone: { enum: ['a', 'b'] }, fixed: { const: 1 } },
    };
    expect(answerModel(schema)).toEqual({
      kind: 'form',
      fields: [
        { kind: 'boolean', name: 'dryRun', label: 'Dry run' },
        { kind: 'number', name: 'count', label: 'Count', required: true, integer: true },
        {
          kind: 'select',
          name: 'zone',
          label: 'Zone',
          required: false,
          options: [
            { value: 'a', label: 'A' },
            { value: 'b', label: 'B' },
          ],
        },
        { kind: 'const', name: 'fixed', value: 1 },
      ],
    });
    expect(answerModel({ type: 'object', properties: { nested: { type: 'object' } } })).toEqual({ kind: 'json' });
    expect(answerModel({ oneOf: [{ type: 'array' }] })).toEqual({ kind: 'json' });
    expect(answerModel(undefined)).toEqual({ kind: 'json' });
  });
});

describe('validate', () => {
  const resourceFields = (answerModel(RESOURCE_SELECTION_SCHEMA) as { branches: Array<{ fields: FieldModel[] }> }).branches[0]?.fields ?? [];

  it('gives the payload the schema accepts, leaving out an empty optional field', () => {
    expect(validate(resourceFields, { value: 'vpc-123', label: '' })).toEqual({ ok: true, payload: { value: 'vpc-123' } });
    expect(validate(resourceFields, { value: 'vpc-123', label: 'Main VPC' })).toEqual({ ok: true, payload: { value: 'vpc-123', label: 'Main VPC' } });
  });

  it('names the field that is missing or wrong', () => {
    expect(validate(resourceFields, { value: '  ', label: 'x' })).toEqual({ ok: false, errors: { value: 'Value is required.' } });
    const numbers: FieldModel[] = [{ kind: 'number', name: 'count', label: 'Count', required: true, integer: true }];
    expect(validate(numbers, { count: '2.5' })).toEqual({ ok: false, errors: { count: 'Count must be a whole number.' } });
    expect(validate(numbers, { count: '3' })).toEqual({ ok: true, payload: { count: 3 } });
    const choice: FieldModel[] = [{ kind: 'select', name: 'zone', label: 'Zone', required: true, options: [{ value: 'a', label: 'A' }] }];
    expect(validate(choice, { zone: '' })).toEqual({ ok: false, errors: { zone: 'Choose a zone.' } });
    expect(validate(choice, { zone: '"a"' })).toEqual({ ok: true, payload: { zone: 'a' } });
  });
});

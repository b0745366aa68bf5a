/**
 * An interrupt's `responseSchema` (JSON Schema, docs/protocol.md §5) turned into a form model —
 * generic, so a new interrupt kind renders without code of its own:
 *
 * - an object whose only property is an `enum` → one button per value (a permission's allow/deny);
 * - `oneOf` object branches → alternatives: a branch whose properties are all `const` is a pick
 *   (an option or a candidate), any other branch is a small form (free text; a resource's value
 *   and optional label);
 * - inside a form: `string` → text input, `boolean` → checkbox, `number`/`integer` → number input,
 *   `enum` → select, `const` → a fixed value.
 *
 * No DOM here: `validate` checks what the person typed against the same constraints the adapter
 * checks (required, minLength, type, enum), so a mistake is shown beside the field before sending.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

export type FieldModel =
  | { kind: 'text'; name: string; label: string; required: boolean; minLength: number; maxLength?: number }
  | { kind: 'number'; name: string; label: string; required: boolean; integer: boolean }
  | { kind: 'boolean'; name: string; label: string }
  | { kind: 'select'; name: string; label: string; required: boolean; options: Array<{ value: Json; label: string }> }
  | { kind: 'const'; name: string; value: Json };

export type BranchModel = { kind: 'pick'; label: string; payload: Record<string, Json> } | { kind: 'form'; label: string; fields: FieldModel[] };

export type AnswerModel =
  | { kind: 'buttons'; property: string; options: Array<{ value: Json; label: string }> }
  | { kind: 'alternatives'; branches: BranchModel[] }
  | { kind: 'form'; fields: FieldModel[] }
  /** A schema this generator does not understand: the answer is typed as JSON. */
  | { kind: 'json' };

/**
 * Labels for values and fields: a title from the schema or the interrupt's options, else the name
 * in words. A form branch's legend is asked for as `branch:<its editable field names joined with +>`
 * (e.g. `branch:value+label`), else its field labels are joined.
 */
export type Labeller = (value: string) => string | undefined;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function propertiesOf(schema: Schema): Array<[string, Schema]> {
  const properties = isSchema(schema['properties']) ? schema['properties'] : {};
  return Object.entries(properties).filter((entry): entry is [string, Schema] => isSchema(entry[1]));
}

function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema['required']) ? schema['required'].filter((name): name is string => typeof name === 'string') : [];
}

function valueLabel(value: Json, labels: Labeller): string {
  return typeof value === 'string' ? (labels(value) ?? humanize(value)) : JSON.stringify(value);
}

function fieldOf(name: string, schema: Schema, required: boolean, labels: Labeller): FieldModel | undefined {
  const label = typeof schema['title'] === 'string' ? schema['title'] : (labels(name) ?? humanize(name));
  if ('const' in schema) return { kind: 'const', name, value: schema['const'] as Json };
  if (Array.isArray(schema['enum'])) {
    return { kind: 'select', name, label, required, options: (schema['enum'] as Json[]).map((value) => ({ value, label: valueLabel(value, labels) })) };
  }
  switch (schema['type']) {
    case 'string': {
      const field: FieldModel = { kind: 'text', name, label, required, minLength: typeof schema['minLength'] === 'number' ? schema['minLength'] : 0 };
      if (typeof schema['maxLength'] === 'number') field.maxLength = schema['maxLength'];
      return field;
    }
    case 'boolean':
      return { kind: 'boolean', name, label };
    case 'number':
    case 'integer':
      return { kind: 'number', name, label, required, integer: schema['type'] === 'integer' };
    default:
      return undefined;
  }
}

function fieldsOf(schema: Schema, labels: Labeller): FieldModel[] | undefined {
  if (schema['type'] !== undefined && schema['type'] !== 'object') return undefined;
  const required = requiredOf(schema);
  const fields: FieldModel[] = [];
  for (const [name, property] of propertiesOf(schema)) {
    const field = fieldOf(name, property, required.includes(name), labels);
    if (!field) return undefined;
    fields.push(field);
  }
  return fields.length > 0 ? fields : undefined;
}

function branchOf(schema: Schema, labels: Labeller): BranchModel | undefined {
  const fields = fieldsOf(schema, labels);
  if (!fields) return undefined;
  const title = typeof schema['title'] === 'string' ? schema['title'] : undefined;
  if (fields.every((field) => field.kind === 'const')) {
    const payload = Object.fromEntries(fields.map((field) => [field.name, (field as { value: Json }).value]));
    const first = Object.values(payload)[0];
    return { kind: 'pick', label: title ?? valueLabel(first ?? null, labels), payload };
  }
  const editable = fields.filter((field): field is Exclude<FieldModel, { kind: 'const' }> => field.kind !== 'const');
  const legend = labels(`branch:${editable.map((field) => field.name).join('+')}`);
  return { kind: 'form', label: title ?? legend ?? editable.map((field) => field.label).join(' / '), fields };
}

export function answerModel(schema: unknown, labels: Labeller = () => undefined): AnswerModel {
  if (!isSchema(schema)) return { kind: 'json' };
  const alternatives = Array.isArray(schema['oneOf']) ? schema['oneOf'] : Array.isArray(schema['anyOf']) ? schema['anyOf'] : undefined;
  if (alternatives) {
    const branches = alternatives.map((branch) => (isSchema(branch) ? branchOf(branch, labels) : undefined));
    return branches.every((branch) => branch !== undefined) && branches.length > 0 ? { kind: 'alternatives', branches: branches as BranchModel[] } : { kind: 'json' };
  }
  const fields = fieldsOf(schema, labels);
  if (!fields) return { kind: 'json' };
  const [only] = fields;
  if (fields.length === 1 && only?.kind === 'select' && only.required) return { kind: 'buttons', property: only.name, options: only.options };
  return { kind: 'form', fields };
}

/** What the person entered, by field name: text as typed, checkboxes as booleans. */
export type Entered = Record<string, string | boolean | undefined>;

export type Validation = { ok: true; payload: Record<string, Json> } | { ok: false; errors: Record<string, string> };

export function validate(fields: readonly FieldModel[], entered: Entered): Validation {
  const payload: Record<string, Json> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const raw = entered[field.name];
    switch (field.kind) {
      case 'const':
        payload[field.name] = field.value;
        break;
      case 'boolean':
        payload[field.name] = raw === true;
        break;
      case 'text': {
        const text = typeof raw === 'string' ? raw : '';
        if (text.trim() === '') {
          if (field.required || field.minLength > 0) errors[field.name] = `${field.label} is required.`;
          break;
        }
        if (text.length < field.minLength) errors[field.name] = `${field.label} needs at least ${field.minLength} characters.`;
        else if (field.maxLength !== undefined && text.length > field.maxLength) errors[field.name] = `${field.label} allows at most ${field.maxLength} characters.`;
        else payload[field.name] = text;
        break;
      }
      case 'number': {
        const text = typeof raw === 'string' ? raw.trim() : '';
        if (text === '') {
          if (field.required) errors[field.name] = `${field.label} is required.`;
          break;
        }
        const value = Number(text);
        if (!Number.isFinite(value) || (field.integer && !Number.isInteger(value))) errors[field.name] = `${field.label} must be ${field.integer ? 'a whole number' : 'a number'}.`;
        else payload[field.name] = value;
        break;
      }
      case 'select': {
        const chosen = field.options.find((option) => JSON.stringify(option.value) === raw);
        if (chosen) payload[field.name] = chosen.value;
        else if (field.required) errors[field.name] = `Choose a ${field.label.toLowerCase()}.`;
        break;
      }
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, payload };
}

/**
 * What an interrupt asks for, read from its `responseSchema` (docs/protocol.md §5.2) alone, so a
 * renderer needs no knowledge of the kinds of interrupts:
 *
 * - a property with an `enum` (a permission's `decision`): one button per value;
 * - `oneOf` branches that fix a property with `const` (a question's `selectedId`): one button per
 *   branch, titled by the branch, else by the interrupt's standard option, else by the id;
 * - `oneOf` branches (or a schema) whose one required property is a free string (a question's
 *   `freeText`, a resource selection's `value`): a text field that answers `{[field]: text}`.
 *
 * No DOM or React here: the React renderers (interrupt-card.tsx) and tests use it as it is.
 */
export interface AnswerOption {
  label: string;
  payload: unknown;
}

/** A free-text answer: `{[field]: text}`. */
export interface AnswerTextField {
  field: string;
  label: string;
  /** The schema's `minLength`, when it has one. */
  minLength?: number;
}

export interface AnswerForm {
  options: AnswerOption[];
  textFields: AnswerTextField[];
}

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "allow_once" → "Allow once", "freeText" → "Free text". */
export function words(id: string): string {
  const spaced = id
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function standardTitles(metadata: Record<string, unknown> | undefined): Map<string, string> {
  const titles = new Map<string, string>();
  const options = metadata?.['standardOptions'];
  if (Array.isArray(options)) {
    for (const option of options) {
      if (isSchema(option) && typeof option['id'] === 'string' && typeof option['title'] === 'string') titles.set(option['id'], option['title']);
    }
  }
  return titles;
}

/** The free string a schema object asks for: its one required property of `type: "string"` with no `const` or `enum`. */
function textFieldOf(schema: Schema): AnswerTextField | undefined {
  const properties = schema['properties'];
  const required = Array.isArray(schema['required']) ? schema['required'].filter((name): name is string => typeof name === 'string') : [];
  if (!isSchema(properties) || required.length !== 1) return undefined;
  const field = required[0] as string;
  const property = properties[field];
  if (!isSchema(property) || property['type'] !== 'string' || 'const' in property || 'enum' in property) return undefined;
  const label = typeof schema['title'] === 'string' ? schema['title'] : typeof property['title'] === 'string' ? property['title'] : words(field);
  return { field, label, ...(typeof property['minLength'] === 'number' ? { minLength: property['minLength'] } : {}) };
}

export function answerForm(responseSchema: unknown, metadata?: Record<string, unknown>): AnswerForm {
  const form: AnswerForm = { options: [], textFields: [] };
  if (!isSchema(responseSchema)) return form;
  const titles = standardTitles(metadata);
  const properties = responseSchema['properties'];
  if (isSchema(properties)) {
    for (const [field, property] of Object.entries(properties)) {
      if (isSchema(property) && Array.isArray(property['enum'])) {
        form.options = property['enum']
          .filter((value): value is string => typeof value === 'string')
          .map((value) => ({ label: titles.get(value) ?? words(value), payload: { [field]: value } }));
        return form;
      }
    }
    const text = textFieldOf(responseSchema);
    if (text) form.textFields.push(text);
    return form;
  }
  const branches = responseSchema['oneOf'];
  if (!Array.isArray(branches)) return form;
  for (const branch of branches) {
    if (!isSchema(branch) || !isSchema(branch['properties'])) continue;
    let fixed = false;
    for (const [field, property] of Object.entries(branch['properties'])) {
      if (isSchema(property) && typeof property['const'] === 'string') {
        const id = property['const'];
        const label = typeof branch['title'] === 'string' ? branch['title'] : (titles.get(id) ?? words(id));
        form.options.push({ label, payload: { [field]: id } });
        fixed = true;
      }
    }
    if (!fixed) {
      const text = textFieldOf(branch);
      if (text) form.textFields.push(text);
    }
  }
  return form;
}

/** The buttons alone (see answerForm). */
export function answerOptions(responseSchema: unknown, metadata?: Record<string, unknown>): AnswerOption[] {
  return answerForm(responseSchema, metadata).options;
}

/**
 * The buttons an interrupt offers, read from its `responseSchema` (docs/protocol.md §5.2): a
 * permission's `decision` enum (one button per value), or a question's `oneOf` branches that fix
 * a `selectedId` (one per option, titled by the branch or the standard option). Free-text and
 * resource-value branches have no button here: this app tests CopilotKit's wiring, not forms.
 */
export interface AnswerOption {
  label: string;
  payload: unknown;
}

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "allow_once" → "Allow once". */
function words(id: string): string {
  const spaced = id.replace(/[_-]+/g, ' ').trim();
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

export function answerOptions(responseSchema: unknown, metadata?: Record<string, unknown>): AnswerOption[] {
  if (!isSchema(responseSchema)) return [];
  const titles = standardTitles(metadata);
  const properties = responseSchema['properties'];
  if (isSchema(properties)) {
    for (const [field, property] of Object.entries(properties)) {
      if (isSchema(property) && Array.isArray(property['enum'])) {
        return property['enum']
          .filter((value): value is string => typeof value === 'string')
          .map((value) => ({ label: titles.get(value) ?? words(value), payload: { [field]: value } }));
      }
    }
  }
  const branches = responseSchema['oneOf'];
  if (!Array.isArray(branches)) return [];
  const options: AnswerOption[] = [];
  for (const branch of branches) {
    if (!isSchema(branch) || !isSchema(branch['properties'])) continue;
    for (const [field, property] of Object.entries(branch['properties'])) {
      if (isSchema(property) && typeof property['const'] === 'string') {
        const id = property['const'];
        const label = typeof branch['title'] === 'string' ? branch['title'] : (titles.get(id) ?? words(id));
        options.push({ label, payload: { [field]: id } });
      }
    }
  }
  return options;
}

/**
 * Standard options of a question or selection (docs/protocol.md §5.2): object options
 * use `id` (else `candidate_index`, else their index) and `label | name | title | id` as title;
 * string options use the string for both; an empty id becomes `option-<n>`; duplicates get
 * `-2`, `-3`… suffixes.
 */
export interface StandardOption {
  id: string;
  title: string;
  /** The option as A2A sent it, to find its label when the answer is turned into text. */
  raw: unknown;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function standardOptions(options: unknown): StandardOption[] {
  if (!Array.isArray(options)) return [];
  const used = new Map<string, number>();
  return options.map((option, index) => {
    let id: string;
    let title: string | undefined;
    if (typeof option === 'object' && option !== null) {
      const record = option as Record<string, unknown>;
      id = text(record['id']) ?? text(record['candidate_index']) ?? String(index);
      title = text(record['label']) ?? text(record['name']) ?? text(record['title']);
    } else {
      id = text(option) ?? '';
      title = text(option);
    }
    if (id === '') id = `option-${index + 1}`;
    const seen = used.get(id) ?? 0;
    used.set(id, seen + 1);
    if (seen > 0) id = `${id}-${seen + 1}`;
    return { id, title: title ?? id, raw: option };
  });
}

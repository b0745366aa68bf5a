/**
 * JSON text for fuzzed bodies. A `RawJson` piece is spliced in as given — nesting far deeper than
 * JSON.stringify can write, or text that is not JSON at all — and every own key is written,
 * "__proto__" included (fast-check's dictionaries create it as an own key).
 */
export class RawJson {
  constructor(readonly text: string) {}
}

export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : jsonText(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${jsonText(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `levels` containers nested around a leaf: objects, arrays, or both in turn. */
export function nestedJson(levels: number, kind: 'object' | 'array' | 'mixed', leaf = '0'): RawJson {
  const opens: string[] = [];
  const closes: string[] = [];
  for (let level = 0; level < levels; level += 1) {
    const array = kind === 'array' || (kind === 'mixed' && level % 2 === 1);
    opens.push(array ? '[' : '{"k":');
    closes.push(array ? ']' : '}');
  }
  return new RawJson(`${opens.join('')}${leaf}${closes.reverse().join('')}`);
}

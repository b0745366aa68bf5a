/**
 * Canonical JSON: object keys sorted, no whitespace, non-ASCII kept. Used for request digests
 * (contract §D.3 "Request digest") and for tool arguments/results (contract §B.4 "compact,
 * key-sorted JSON"), so that equal values always give equal text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort()) {
    if (source[key] !== undefined) sorted[key] = sortKeys(source[key]);
  }
  return sorted;
}

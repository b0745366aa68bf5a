/**
 * Canonical JSON: object keys sorted, no whitespace, non-ASCII kept. Used for request digests
 * (docs/protocol.md §3.7) and for tool arguments/results (docs/protocol.md §4.7), so that equal values always give equal text.
 *
 * Every own key counts, "__proto__" included: JSON.parse makes it an ordinary own key, and a
 * digest that dropped it would call two different bodies the same request (docs/protocol.md
 * §6.2). The sorted copy has no prototype, so assigning "__proto__" defines a key instead of
 * replacing the prototype. Recursive: request bodies reach it only within the nesting limit
 * (docs/protocol.md §1.4).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(source).sort()) {
    if (source[key] !== undefined) sorted[key] = sortKeys(source[key]);
  }
  return sorted;
}

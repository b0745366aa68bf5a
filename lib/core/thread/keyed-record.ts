/**
 * The thread document's maps keyed by request data — `runDigests` by runId, `terminalExecutions`
 * by executionId (docs/protocol.md §6.10). A caller may choose any string as a key, including
 * "constructor", "toString" or "__proto__", so these maps are objects without a prototype, read
 * only through own keys: a lookup never finds an Object.prototype member, and a "__proto__" key is
 * stored, written and read back like any other. On disk they stay plain JSON objects, as before.
 */

export type KeyedRecord<T> = Readonly<Record<string, T>>;

/** A record without a prototype holding `entries` in order. */
export function keyedRecord<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const record: Record<string, T> = Object.create(null);
  // Assignment on an object without a prototype defines the key, "__proto__" included.
  for (const [key, value] of entries) record[key] = value;
  return record;
}

/** The value stored under `key` itself, never one inherited. */
export function ownValue<T>(record: KeyedRecord<T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A copy with `key` set to `value` (an existing key keeps its place, as an object spread would). */
export function withEntry<T>(record: KeyedRecord<T>, key: string, value: T): Record<string, T> {
  const copy = keyedRecord(Object.entries(record));
  copy[key] = value;
  return copy;
}

/**
 * The newest `limit` entries (docs/protocol.md §1.4), in the order JavaScript keeps an object's
 * keys: insertion order, except that integer-like keys ("42") always come first — so they are the
 * first forgotten. A JSON object cannot keep any other order.
 */
export function newestEntries<T>(record: KeyedRecord<T>, limit: number): Record<string, T> {
  const entries = Object.entries(record);
  return entries.length <= limit ? keyedRecord(entries) : keyedRecord(entries.slice(entries.length - limit));
}

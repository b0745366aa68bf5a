/**
 * A cloud resource selection's selector (docs/protocol.md §5.2: `{id, associationProperty,
 * outputKind, associationPropertyMetadata, source, profileHash}`) as lines a person can read: which
 * kind of resource, the template property it fills, what the answer should be, the metadata that
 * narrows it (a region…), and for a derived selector the earlier choice it depends on. The profile
 * hash is for the kernel only.
 */
import { humanize } from './schema-model.js';

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function selectorFacts(selector: unknown): Array<[string, string]> {
  const fields = record(selector);
  if (!fields) return [];
  const facts: Array<[string, string]> = [];
  const add = (label: string, value: string | undefined) => {
    if (value) facts.push([label, value]);
  };
  add('Resource type', text(fields['id']));
  add('Template property', text(fields['associationProperty']));
  const outputKind = text(fields['outputKind']);
  add('Answer with', outputKind ? humanize(outputKind).toLowerCase() : undefined);
  for (const [key, value] of Object.entries(record(fields['associationPropertyMetadata']) ?? {})) add(humanize(key), text(value));
  const source = record(fields['source']);
  if (source) {
    const from = text(source['selector_id'] ?? source['selectorId']);
    const value = text(source['value']);
    add('Depends on', from && value ? `${from} = ${value}` : (from ?? value));
  }
  return facts;
}

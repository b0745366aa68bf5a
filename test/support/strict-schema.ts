/**
 * A strict copy of a zod 4 schema: every object in it, at any depth, rejects keys it does not
 * define. @ag-ui/core 1.0 declares its objects loose (a consumer must tolerate newer producers),
 * but @ag-ui/client strips every undeclared key at any depth and warns "Removed unrecognised
 * material", so a producer must send exactly the declared fields (docs/protocol.md §4).
 *
 * Objects the package marks `specOpen` (JSON Patch operations) stay open, as the client leaves
 * them; opaque values (z.any, z.custom: CUSTOM values, metadata, responseSchema) are not objects
 * to zod and stay as they are. Checks on arrays and objects (e.g. `min(1)`) are kept: the copy
 * is made with `clone` over the original definition.
 */
import type { z } from 'zod';

type Schema = z.ZodType;
type Definition = Record<string, unknown> & { type: string };

export function strictDeep<T extends Schema>(schema: T): T {
  return strictCopy(schema, new Map()) as T;
}

function strictCopy(schema: Schema, done: Map<Schema, Schema>): Schema {
  const known = done.get(schema);
  if (known) return known;
  if ((schema.meta() as { specOpen?: boolean } | undefined)?.specOpen === true) return schema;
  const def = schema.def as unknown as Definition;
  const copy = (inner: unknown): Schema => strictCopy(inner as Schema, done);
  const cloneWith = (changes: Record<string, unknown>): Schema => schema.clone({ ...def, ...changes } as never);
  let result: Schema;
  switch (def.type) {
    case 'object': {
      const shape = Object.fromEntries(Object.entries(def['shape'] as Record<string, Schema>).map(([key, value]) => [key, copy(value)]));
      result = (cloneWith({ shape }) as z.ZodObject).strict();
      break;
    }
    case 'array':
      result = cloneWith({ element: copy(def['element']) });
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      result = cloneWith({ innerType: copy(def['innerType']) });
      break;
    case 'pipe':
      result = cloneWith({ in: copy(def['in']), out: copy(def['out']) });
      break;
    case 'union':
      result = cloneWith({ options: (def['options'] as Schema[]).map(copy) });
      break;
    case 'record':
      result = cloneWith({ valueType: copy(def['valueType']) });
      break;
    case 'lazy': {
      const getter = def['getter'] as () => Schema;
      result = cloneWith({ getter: () => copy(getter()) });
      break;
    }
    default:
      result = schema;
  }
  done.set(schema, result);
  return result;
}

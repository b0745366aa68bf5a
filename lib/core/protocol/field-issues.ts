/** Turns zod issues into the `details` list of an INVALID_INPUT answer (docs/protocol.md §2.2). */
import type * as z from 'zod/mini';
import type { FieldIssue } from '../errors.js';

export function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out || '(body)';
}

/** `respell` maps a schema path back to the caller's spelling of it (iac-code-aliases.ts). */
export function fieldIssues(error: z.core.$ZodError, prefix = '', respell: (path: readonly PropertyKey[]) => PropertyKey[] = (path) => [...path]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ path: formatPath([...respell(issue.path), key], prefix), message: 'Unknown field.' });
      }
      continue;
    }
    issues.push({ path: formatPath(respell(issue.path), prefix), message: issue.message });
  }
  return issues;
}

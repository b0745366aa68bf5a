/**
 * Whether a tool's result reports an error (docs/protocol.md §4.7: AG-UI has no error flag on
 * TOOL_CALL_RESULT, and the adapter passes a failed tool's result as it is): a JSON object with a
 * non-empty `error` (a string, or an object with a `message`), or `isError: true`. No DOM here:
 * the console's tool cards and the React tool card (react/tool-status.ts) both read results by it.
 */
import { str } from './event-record.js';

/** The error a result reports, or undefined for a result that does not report one. */
export function toolErrorOf(content: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  const error = record['error'];
  if (typeof error === 'string' && error) return error;
  if (typeof error === 'object' && error !== null) return str(error as Record<string, unknown>, 'message') ?? JSON.stringify(error);
  if (record['isError'] === true) return str(record, 'message') ?? 'the tool reported an error';
  return undefined;
}

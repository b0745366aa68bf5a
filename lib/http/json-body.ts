/**
 * Bytes of a request body → a JSON value, for every JSON body route (docs/protocol.md §1.3 steps
 * 5–6): strict UTF-8, then the nesting limit on the text (docs/protocol.md §1.4) before anything
 * recursive — JSON.parse included — sees it, then the parse.
 */
import { AdapterError } from '../core/errors.js';
import { formatPath } from '../core/protocol/field-issues.js';
import { MAX_JSON_DEPTH, tooDeepPath } from '../core/protocol/json-depth.js';

export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AdapterError('INVALID_JSON', 'invalidJson');
  }
  const deep = tooDeepPath(text);
  if (deep) throw new AdapterError('INVALID_INPUT', 'jsonTooDeep', [{ path: formatPath(deep), message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels.` }]);
  try {
    return JSON.parse(text);
  } catch {
    throw new AdapterError('INVALID_JSON', 'invalidJson');
  }
}

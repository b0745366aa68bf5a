/**
 * Which FC 3.0 control-plane operation a request names (API 2023-03-30 request syntax):
 *   GET /2023-03-30/functions/{functionName}                          GetFunction
 *   GET /2023-03-30/functions/{functionName}/triggers                 ListTriggers
 *   GET /2023-03-30/functions/{functionName}/triggers/{triggerName}   GetTrigger
 * and, for finding the account id FC's endpoint needs, STS's RPC-style operation
 *   POST /   (x-acs-action GetCallerIdentity, x-acs-version 2015-04-01)   GetCallerIdentity
 * (STS "GetCallerIdentity": no parameters, answers AccountId among others). Anything else is
 * PathNotSupported. The SDK names the operation in `x-acs-action` as well; the two must agree.
 */
import { fcApiErrors } from './errors.js';

export type FcOperation =
  | { action: 'GetFunction' | 'ListTriggers'; functionName: string }
  | { action: 'GetTrigger'; functionName: string; triggerName: string }
  | { action: 'GetCallerIdentity' };

export const FC_API_VERSION = '2023-03-30';
export const STS_API_VERSION = '2015-04-01';

/** The API version an operation belongs to (checked against x-acs-version). */
export function versionOf(operation: FcOperation): string {
  return operation.action === 'GetCallerIdentity' ? STS_API_VERSION : FC_API_VERSION;
}

function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw fcApiErrors.invalidArgument(`malformed path segment '${raw}'`);
  }
}

export function route(method: string, rawPath: string, action: string): FcOperation {
  if (method === 'POST' && rawPath === '/' && action === 'GetCallerIdentity') return { action };
  const parts = rawPath.split('/').slice(1);
  if (method === 'GET' && parts[0] === FC_API_VERSION && parts[1] === 'functions' && parts[2]) {
    const functionName = segment(parts[2]);
    if (parts.length === 3) return { action: 'GetFunction', functionName };
    if (parts.length === 4 && parts[3] === 'triggers') return { action: 'ListTriggers', functionName };
    if (parts.length === 5 && parts[3] === 'triggers' && parts[4]) return { action: 'GetTrigger', functionName, triggerName: segment(parts[4]) };
  }
  throw fcApiErrors.pathNotSupported(method, rawPath);
}

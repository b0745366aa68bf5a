/**
 * Checks a typed token before the person relies on it (docs/protocol.md §1): `POST /` with an empty
 * JSON object. The adapter checks the bearer first, so a wrong token answers 401; a right one gets
 * 400 INVALID_INPUT because the body is not a RunAgentInput — rejected before any thread is read or
 * written, so the check touches no state and starts no run.
 */

import { type Failure, failureOf, httpFailure } from './failures.js';
import { authHeaders } from './session-token.js';

export async function checkToken(token: string): Promise<Failure | undefined> {
  let response: Response;
  try {
    response = await fetch('/', { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders(token) }, body: '{}' });
  } catch (error) {
    return failureOf(error);
  }
  if (response.status === 401) return httpFailure(401, await response.json().catch(() => undefined));
  return undefined;
}

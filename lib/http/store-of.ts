/** The request's thread store; failing to set one up (e.g. bad credentials) is 503 for this request (docs/protocol.md §2.3). */
import { AdapterError } from '../core/errors.js';
import type { ThreadStore } from '../core/ports.js';
import type { AppDeps } from './app.js';

export function storeOf(deps: AppDeps, request: Request): ThreadStore {
  try {
    return deps.storeFor(request);
  } catch (error) {
    throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
  }
}

/**
 * The request's thread store, as its caller addresses threads (docs/protocol.md §6.3 "Namespaces":
 * a person's own namespace, the shared one for a service; lib/core/thread/thread-address.ts). Failing
 * to set one up (e.g. bad credentials) is 503 for this request (docs/protocol.md §2.3).
 */
import type { Caller } from '../core/caller.js';
import { AdapterError } from '../core/errors.js';
import type { ThreadStore } from '../core/ports.js';
import { threadStoreFor } from '../core/thread/thread-address.js';
import type { AppDeps } from './app.js';

export function storeOf(deps: AppDeps, request: Request, caller: Caller): ThreadStore {
  try {
    return threadStoreFor(deps.storeFor(request), caller);
  } catch (error) {
    throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
  }
}

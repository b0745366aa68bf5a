/**
 * Whose thread it is (docs/protocol.md §6.3): a thread belongs to the user id it was bound to by its
 * first run — for a person, the token's claim (lib/core/protocol/run-request.ts puts it there).
 * A person sees only their own threads; to them another person's thread — or a service's, bound to
 * another user id or to none — does not exist: every route answers exactly what it answers for a
 * thread id never used, and the refusal carries a ForeignThread, which the HTTP layer logs at warn
 * with both user ids' hashes (lib/http/rejection-log.ts). A service sees every thread, as before.
 *
 * The binding lives in the thread document, so ownership holds across restarts and instances and on
 * every store driver.
 */
import type { Caller } from '../caller.js';
import { AdapterError } from '../errors.js';
import type { ThreadDocument } from './document.js';

/** Another person's thread, refused: who owns it and who asked, for the log only. */
export class ForeignThread {
  constructor(
    readonly threadId: string,
    readonly ownerUserId: string | null,
    readonly callerUserId: string,
  ) {}
}

/** Who owns the stored thread when it is not the caller's to see — a person asking for a thread bound to another user id, or to none; else undefined. */
export function foreignTo(document: ThreadDocument | undefined, caller: Caller): ForeignThread | undefined {
  if (caller.kind !== 'person' || document === undefined || document.userId === caller.userId) return undefined;
  return new ForeignThread(document.threadId, document.userId, caller.userId);
}

/** `answer` — the route's answer for a thread that does not exist — carrying who owns the thread and who asked. */
export function answeredAsMissing(answer: AdapterError, foreign: ForeignThread): AdapterError {
  return new AdapterError(answer.code, answer.messageKey, answer.details, { cause: foreign });
}

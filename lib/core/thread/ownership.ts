/**
 * Whose thread it is (docs/protocol.md §6.3): a thread belongs to the user id it was bound to by its
 * first run — for a person, the token's claim (lib/core/protocol/run-request.ts puts it there).
 * A person's thread ids lead to their own namespace (lib/core/thread/thread-address.ts), so another
 * person's thread is never even read for them. This check stays behind that, for a document in a
 * person's namespace bound to another user id or to none — which the adapter never writes: every
 * route then answers exactly what it answers for a thread id never used, and the refusal carries a
 * ForeignThread, which the HTTP layer logs at warn with both user ids' hashes (lib/http/rejection-log.ts).
 * A service is checked by the binding alone.
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

/**
 * Who sent a request (docs/protocol.md §1.2), as authentication found it:
 *
 * - a **service** — whoever presents the shared token (ROS, a BFF, an IDE plug-in), or anyone when
 *   the adapter checks nothing. A service acts as every caller did before per-user identity: it
 *   may name any thread, and declares the `userId` it acts for.
 * - a **person**, signed in with the identity provider: their user id is the token's claim, and
 *   they see only the threads bound to it (lib/core/thread/ownership.ts).
 */
import { sha256Hex } from './hash.js';

export type Caller = { readonly kind: 'service' } | { readonly kind: 'person'; readonly userId: string };

export const SERVICE: Caller = Object.freeze({ kind: 'service' });

export function personCaller(userId: string): Caller {
  return Object.freeze({ kind: 'person', userId });
}

/**
 * A user id as logs show it (docs/architecture.md §5): a pseudonym — the first 16 hex characters of
 * a SHA-256 — so two lines about one person can be matched without the log naming them. Not an
 * anonymisation: an id drawn from a small set (e-mail addresses) can be guessed back.
 */
export function userIdHash(userId: string | null): string | null {
  return userId === null ? null : sha256Hex(`iac-code-agui user id\n${userId}`).slice(0, 16);
}

/** What a log line says of who asked: a person's user id hash, nothing for a service. */
export function callerLogFields(caller: Caller): { user?: string } {
  return caller.kind === 'person' ? { user: userIdHash(caller.userId) as string } : {};
}

/**
 * What an in-process follower of an execution needs (lib/core/reattach/follow-execution.ts) in
 * unit tests: the journal, this instance's log of the run (if any) and the thread document as
 * stored; no takeover, fast polls, and the clear error as a plain `RUN_ERROR EVENT_ID_EXPIRED`.
 */
import type { EventLog } from '../../lib/core/journal/event-log.js';
import type { EventJournal } from '../../lib/core/ports.js';
import type { FollowDeps } from '../../lib/core/reattach/follow-execution.js';
import type { ThreadDocument } from '../../lib/core/thread/document.js';
import type { AguiEvent } from '../../lib/core/translate/events.js';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };

export function followDeps(journal: EventJournal, log: EventLog | undefined, document: ThreadDocument): FollowDeps {
  return {
    journal,
    localLog: () => log,
    readThread: async () => document,
    takeOver: async () => undefined,
    clock: Date.now,
    pollMs: 10,
    endWaitMs: 1_000,
    keepAttached: async () => undefined,
    maxGraceMs: 0,
    expired: () => ({ type: 'RUN_ERROR', timestamp: 1, message: 'expired', code: 'EVENT_ID_EXPIRED' }) as AguiEvent,
    logger: quiet,
  };
}

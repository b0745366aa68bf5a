/**
 * Which events a producer may send before they are in the journal (docs/protocol.md §6.15
 * "What is journaled when"). A producer's instance can die (or be frozen) between sending an event
 * and journaling it; whoever takes the run over then continues from the journal's end. That is
 * harmless for exactly two kinds of event, which are sent at once and journaled in batches:
 *
 * - agent text deltas (TEXT_MESSAGE_CONTENT): the kernel keeps its text in the task's history, so
 *   a takeover regenerates it exactly from the reader's text cursor `k` (a reader that holds part
 *   of a regenerated delta gets the rest of it, canonical.ts);
 * - content that changes no span (reasoning and tool-argument deltas, tool progress, activity
 *   snapshots): a reader that got it keeps it, one that did not misses a fragment, and the event
 *   grammar holds either way.
 *
 * Every other event opens, closes or ends something a takeover must know about, so it is journaled
 * before it is sent (with everything gathered before it) — a TEXT_MESSAGE_START too: a dead branch
 * (docs/design/reattach.md "Fork") then never holds a span's start, and a reader on one never
 * needs the cursor to tell whether it holds a START.
 */
import { type AguiEvent, CUSTOM_TOOL_PROGRESS } from '../translate/events.js';
import { isPipelineText } from '../translate/pipeline/message-ids.js';

/**
 * The most records a producer releases past what its journal holds: the record that would go further
 * waits for a write like an event that must be journaled first (journal-writer.ts). A reader on a
 * dead branch therefore holds at most this many records past its epoch's journal; an id further out
 * was never handed out (canonical.ts refuses it).
 */
export const MAX_UNJOURNALED = 256;

/** Agent text a takeover can regenerate from the kernel's task history. */
export function isRegenerableText(event: AguiEvent): event is Extract<AguiEvent, { type: 'TEXT_MESSAGE_CONTENT' }> {
  return event.type === 'TEXT_MESSAGE_CONTENT' && !isPipelineText(event.messageId);
}

export function mustBeJournaledFirst(event: AguiEvent): boolean {
  switch (event.type) {
    // A run's start goes with its first write that must land (a takeover that finds it missing
    // starts the run again, and a reader that holds it skips that, canonical.ts `continuationAfter`).
    case 'RUN_STARTED':
    case 'TEXT_MESSAGE_CONTENT':
    case 'REASONING_MESSAGE_CONTENT':
    case 'TOOL_CALL_ARGS':
    case 'ACTIVITY_SNAPSHOT':
      return false;
    case 'CUSTOM':
      return event.name !== CUSTOM_TOOL_PROGRESS;
    default:
      return true;
  }
}

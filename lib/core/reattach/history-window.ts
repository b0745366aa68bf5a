/**
 * A takeover's text syncs read only the part of the task's history they have not seen
 * (docs/design/reattach.md "Cost"): GetTask with a `historyLength` window — A2A's "the last N
 * messages" — joined onto the history read before.
 *
 * Messages alone cannot say where a window fits (iac-code keeps each streamed delta as a history
 * message under one shared id, so "the" may be there many times), so the join needs a bound: at
 * most `added` messages joined the history since the last read — the takeover counts the live
 * updates it got since (each adds at most one history message, docs/design/reattach.md "Cost").
 * The window is asked for twice that plus MIN_OVERLAP, so its true place overlaps what is known by
 * at least MIN_OVERLAP messages; the join is taken only when exactly one place with that much
 * overlap fits, message for message (the last known message may have grown in place, a kernel that
 * grows one message per id). Anything else — a window shorter than its bound promised, or two
 * places — answers undefined and the caller reads the whole history: a wrong join would send text
 * twice or lose it; a refused one costs one more read. Pure.
 */
import { agentText } from '../a2a/inbound.js';
import type { WireMessage } from '../a2a/wire-types.js';
import { canonicalJson } from '../canonical-json.js';

/** How many known messages a window overlaps at least, where its bound holds. */
export const MIN_OVERLAP = 8;

/** The window to ask for when at most `added` messages joined the history since the last read. */
export function windowFor(added: number): number {
  return 2 * added + MIN_OVERLAP;
}

/**
 * The whole history, from `known` (the history as read before) and `window` (its last `asked`
 * messages now, asked = windowFor(added)); undefined when the join is not certain.
 */
export function joinWindow(known: readonly WireMessage[], window: readonly WireMessage[], asked: number): WireMessage[] | undefined {
  // Fewer than asked: the window is the whole history.
  if (window.length < asked) return [...window];
  const keys = known.map((message) => canonicalJson(message));
  const windowKeys = window.map((message) => canonicalJson(message));
  let joined: WireMessage[] | undefined;
  // Only places overlapping by MIN_OVERLAP or more: the true one is among them while the bound holds.
  for (let at = Math.max(0, known.length - window.length); at <= known.length - MIN_OVERLAP; at += 1) {
    if (!fitsAt(known, keys, window, windowKeys, at)) continue;
    // A second place it fits: which one is true cannot be told from the messages.
    if (joined) return undefined;
    joined = [...known.slice(0, at), ...window];
  }
  return joined;
}

/** Whether window[0] is known[at], and so on to known's end (its last message may have grown since). */
function fitsAt(known: readonly WireMessage[], keys: readonly string[], window: readonly WireMessage[], windowKeys: readonly string[], at: number): boolean {
  const overlap = known.length - at;
  for (let index = 0; index < overlap; index += 1) {
    if (keys[at + index] === windowKeys[index]) continue;
    const isLast = index === overlap - 1;
    if (!isLast || !grewInPlace(known[at + index] as WireMessage, window[index] as WireMessage)) return false;
  }
  return true;
}

/** The same message with text added at its end: one id, one role, its old text a strict prefix. */
function grewInPlace(before: WireMessage, after: WireMessage): boolean {
  if (before.messageId === '' || before.messageId !== after.messageId || before.role !== after.role) return false;
  const old = agentText(before) ?? '';
  const now = agentText(after) ?? '';
  return now.length > old.length && now.startsWith(old);
}

/**
 * Agent text from the kernel's task history (docs/design/reattach.md "Takeover"): a takeover emits
 * exactly the characters after the run's text cursor, in order — whether the kernel keeps one
 * history message per streamed delta or one message per id growing in place (text-cursor.ts) —
 * and never takes text from live updates at all, so the seam where a SubscribeToTask's first
 * snapshot and its live updates overlap or miss a delta does not matter.
 */
import { agentText, type InboundItem } from '../a2a/inbound.js';
import type { WireMessage } from '../a2a/wire-types.js';
import type { RegeneratedText } from '../translate/run-translator.js';
import { KernelTextCursor } from '../translate/text-cursor.js';

/**
 * The text of `messages` (a task's agent-text messages from its start) after cursor `from`: the
 * part of each message past it, a repeated final answer as the final it is.
 */
export function textAfter(messages: readonly WireMessage[], from: number): RegeneratedText[] {
  const cursor = new KernelTextCursor();
  const items: RegeneratedText[] = [];
  for (const message of messages) {
    const text = agentText(message) ?? '';
    const messageId = message.messageId || undefined;
    const fed = cursor.feed(messageId, text);
    if (fed.repeat) {
      // At the cursor itself the producer before may have handled it already: a repeat adds nothing then.
      if (fed.before > from) items.push({ messageId, text, isFinal: true, after: fed.after });
    } else if (fed.after > from) {
      items.push({ messageId, text: text.slice(Math.max(0, from - fed.before)), isFinal: false, after: fed.after });
    }
  }
  return items;
}

/**
 * The messages less the text of the failure that ends the run (its status message): the kernel
 * goes on after FAILED (docs/protocol.md §2.4), so its history may already hold the reason as agent
 * text — as a message of its own, or grown onto the last one — which the RUN_ERROR reports instead.
 */
export function withoutFailureText(messages: readonly WireMessage[], failure: WireMessage | undefined): WireMessage[] {
  const reason = agentText(failure);
  const last = messages.at(-1);
  const text = agentText(last);
  if (!reason || !last || text === undefined || last.messageId !== failure?.messageId || !text.endsWith(reason)) return [...messages];
  const rest = text.slice(0, text.length - reason.length);
  return rest ? [...messages.slice(0, -1), { ...last, parts: [{ text: rest }] } as WireMessage] : messages.slice(0, -1);
}

/** The item without its text: a takeover maps every other signal of it, and takes text from the history. */
export function withoutText(item: InboundItem): InboundItem {
  return { ...item, statusMessage: undefined, history: [] };
}

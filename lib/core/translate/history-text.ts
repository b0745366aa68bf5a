/**
 * The text a task's history holds after its last non-agent message (docs/protocol.md §4.5). The
 * kernel keeps every streamed delta in the history as a message of its own, all under one id
 * (`<taskId>-message`), and then the final answer again under another id (`<taskId>-<n>`, the
 * status that carried `assistantFinal`): that last message repeats what the deltas already said —
 * the whole answer, or the part after the last tool — and is left out, so the answer is not shown
 * twice.
 */
import { agentText } from '../a2a/inbound.js';
import type { WireMessage } from '../a2a/wire-types.js';

export interface HistoryText {
  /** The id of the first message the text comes from. */
  messageId: string | undefined;
  text: string;
}

export function trailingHistoryText(history: readonly WireMessage[]): HistoryText | undefined {
  const groups: Array<{ messageId: string | undefined; text: string }> = [];
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const message = history[i];
    const text = agentText(message);
    if (text === undefined) break;
    const first = groups[0];
    if (first && first.messageId === message?.messageId) first.text = text + first.text;
    else groups.unshift({ messageId: message?.messageId, text });
  }
  const last = groups.at(-1);
  if (
    groups.length > 1 &&
    last &&
    groups
      .slice(0, -1)
      .map((group) => group.text)
      .join('')
      .endsWith(last.text)
  )
    groups.pop();
  if (groups.length === 0) return undefined;
  return { messageId: groups[0]?.messageId, text: groups.map((group) => group.text).join('') };
}

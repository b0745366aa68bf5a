/**
 * The kernel text cursor `k` (docs/design/reattach.md "Cursor"): how many characters of the task's
 * agent text a producer has consumed, counted the same way from the live stream and from the
 * task's history, so that a takeover knows exactly which text a reader holds.
 *
 * Characters, not messages: a kernel may keep one history message per streamed delta (iac-code,
 * a2a-python's task store) or one message per message id whose text grows in place (A2A allows
 * both); the concatenation of the agent-text messages is the same text either way.
 *
 * A final answer (iac-code's aggregated message with `assistantFinal`, which the history keeps
 * without that mark) repeats what was streamed: it is recognised by what it is — a message under
 * another id whose text ends the text streamed since the previous final — and counts nothing.
 */
import { agentText, type InboundItem } from '../a2a/inbound.js';
import type { WireMessage } from '../a2a/wire-types.js';

export interface FedText {
  /** The message repeats what was streamed since the previous final (it counts nothing). */
  repeat: boolean;
  /** The cursor before and after the message. */
  before: number;
  after: number;
}

export class KernelTextCursor {
  private sinceFinal = '';
  private previousId: string | undefined;

  constructor(public chars = 0) {}

  /** One agent-text message, in the order the kernel streamed it. */
  feed(messageId: string | undefined, text: string): FedText {
    const before = this.chars;
    const repeat = this.previousId !== undefined && messageId !== this.previousId && text.length > 0 && this.sinceFinal.endsWith(text);
    if (repeat) this.sinceFinal = '';
    else {
      this.sinceFinal += text;
      this.previousId = messageId;
      this.chars += text.length;
    }
    return { repeat, before, after: this.chars };
  }

  /**
   * A task snapshot: its agent text walked from the start. The walk's cursor is taken when it is
   * not behind this one (a snapshot's history may be cut short, and it can only move forward).
   */
  catchUp(messages: readonly WireMessage[]): void {
    const walk = new KernelTextCursor();
    for (const message of messages) walk.feed(message.messageId || undefined, agentText(message) ?? '');
    if (walk.chars < this.chars) return;
    this.chars = walk.chars;
    this.sinceFinal = walk.sinceFinal;
    this.previousId = walk.previousId;
  }
}

/**
 * The agent-text messages of a task item in the order the kernel streamed them: its history, then
 * its status message unless the history already holds a message under that id (a kernel that grows
 * a message in place may have its text there already; one that keeps each delta moves the status
 * message into the history with the next status — it is counted then).
 */
export function agentTextMessages(item: Pick<InboundItem, 'history' | 'statusMessage'>): WireMessage[] {
  const messages = item.history.filter((message) => agentText(message) !== undefined);
  const status = item.statusMessage;
  if (status && agentText(status) !== undefined && !messages.some((message) => message.messageId === status.messageId)) messages.push(status);
  return messages;
}

/**
 * Agent text from the kernel's task history (docs/protocol.md §6.15 "Takeover"): the kernel keeps
 * every streamed text delta as one history message (the newest in the status message), so a
 * takeover emits exactly the deltas after the run's text cursor, in order — also across the seam
 * where a SubscribeToTask's first snapshot and its live updates overlap or miss a delta, because it
 * never takes text from live updates at all.
 *
 * A final answer (iac-code's aggregated message with `assistantFinal`, which the history keeps
 * without that mark) is told apart by what it is: a message under another id whose text ends the
 * text streamed since the previous final. It moves the cursor like any text message, and the run's
 * translator treats it as the final answer it is.
 */
import { agentText, type InboundItem } from '../a2a/inbound.js';
import type { WireMessage } from '../a2a/wire-types.js';

/** The agent-text messages of a task item, in the order the kernel streamed them. */
export function agentTextMessages(item: InboundItem): WireMessage[] {
  const messages = item.history.filter((message) => agentText(message) !== undefined);
  if (item.statusMessage && agentText(item.statusMessage) !== undefined) messages.push(item.statusMessage);
  return messages;
}

/** Each message as the status update that streamed it: text, and the final-answer mark where it applies. */
export function asStreamedItems(messages: readonly WireMessage[], from: number, context: Pick<InboundItem, 'taskId' | 'contextId'>): InboundItem[] {
  const items: InboundItem[] = [];
  let sinceFinal = '';
  let previousId: string | undefined;
  messages.forEach((message, index) => {
    const text = agentText(message) ?? '';
    const isFinal = previousId !== undefined && message.messageId !== previousId && text.length > 0 && sinceFinal.endsWith(text);
    if (isFinal) sinceFinal = '';
    else {
      sinceFinal += text;
      previousId = message.messageId;
    }
    if (index < from) return;
    items.push({
      kind: 'statusUpdate',
      taskId: context.taskId,
      contextId: context.contextId,
      state: 'working',
      iac: isFinal ? { assistantFinal: { complete: true } } : {},
      sessionId: undefined,
      statusMessage: message,
      history: [],
      artifacts: [],
    });
  });
  return items;
}

/** The item without its text: a takeover maps every other signal of it, and takes text from the history. */
export function withoutText(item: InboundItem): InboundItem {
  return { ...item, statusMessage: undefined, history: [] };
}

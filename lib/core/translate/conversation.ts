/**
 * A thread's conversation so far, from the kernel's own task history (docs/protocol.md §6.16): the
 * adapter stores no conversation text, so a reloaded chat on any instance — or a runner restarted
 * with nothing in memory — rebuilds it from the tasks of the thread's A2A context. Each user
 * message keeps the kernel's message id; each assistant message is the agent text of one kernel
 * message id in order — the ids a live run's TEXT_MESSAGE_START carries (text-lane.ts) — joined
 * whether the kernel keeps one history message per streamed delta or one growing in place, and
 * without the final status that repeats the answer (kernel-text.ts). Tool calls, reasoning and
 * answers to interrupts are not in it. Pure.
 */
import type { Message } from '@ag-ui/core';
import type { WireMessage, WireTask } from '../a2a/wire-types.js';
import { textAfter } from '../reattach/kernel-text.js';

/** The conversation of `tasks`, oldest task first. */
export function conversationOf(tasks: readonly WireTask[]): Message[] {
  return tasks.flatMap((task) => taskConversation(task));
}

function taskConversation(task: WireTask): Message[] {
  const history = [...(task.history ?? [])];
  const status = task.status?.message;
  // As the text cursor reads a snapshot (agentTextMessages, text-cursor.ts): the status message
  // unless the history holds one under its id already.
  if (status && !history.some((message) => message.messageId === status.messageId)) history.push(status);
  const messages: Message[] = [];
  let agent: WireMessage[] = [];
  const flush = () => {
    messages.push(...assistantMessages(task.id, agent, messages.length));
    agent = [];
  };
  for (const message of history) {
    if (isUser(message)) {
      const content = textOf(message);
      // An answer to an interrupt is a data part, not something the person wrote.
      if (content === '') continue;
      flush();
      messages.push({ id: message.messageId || `${task.id}-user-${messages.length}`, role: 'user', content });
    } else agent.push(message);
  }
  flush();
  return messages;
}

/** The agent text of `segment` (one stretch between user messages), one assistant message per kernel message id in a row. */
function assistantMessages(taskId: string, segment: readonly WireMessage[], index: number): Message[] {
  const messages: Array<{ id: string; role: 'assistant'; content: string }> = [];
  let lastId: string | undefined;
  for (const item of textAfter(segment, 0)) {
    if (item.isFinal || item.text === '') continue;
    const open = messages.at(-1);
    if (open && item.messageId === lastId) open.content += item.text;
    else messages.push({ id: item.messageId ?? `${taskId}-assistant-${index + messages.length}`, role: 'assistant', content: item.text });
    lastId = item.messageId;
  }
  return messages;
}

function isUser(message: WireMessage): boolean {
  const role = typeof message.role === 'string' ? message.role.toLowerCase() : '';
  return role === 'role_user' || role === 'user';
}

function textOf(message: WireMessage): string {
  return (message.parts ?? []).map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

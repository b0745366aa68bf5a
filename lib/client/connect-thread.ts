/**
 * A thread as a reader that knows only its id sees it (AbstractAgent 1.0's `connect`, CopilotKit's
 * runner `connect`): the conversation so far as one `MESSAGES_SNAPSHOT` (docs/protocol.md §6.16:
 * rebuilt from the kernel's task history, on any instance), then the thread's current run from its
 * `RUN_STARTED` (§6.16 thread subscribe), followed to its end as follow-run.ts does, reattaching
 * when the stream drops.
 *
 * - Idle (204): `RUN_STARTED`, `MESSAGES_SNAPSHOT`, `RUN_FINISHED` under a run id of the caller's —
 *   @ag-ui/client's verifier wants a run around any event (its first must be `RUN_STARTED`).
 * - A run holds the thread: its own `RUN_STARTED`, then the snapshot cut after the last user
 *   message (that run's own, whose text the replay does not carry: the adapter's `RUN_STARTED` echoes
 *   no input), then the run's events. What the snapshot held after that message is the run's own
 *   output so far, which the replay brings again under the same message ids; applying both would
 *   double it (a `TEXT_MESSAGE_START` of a known id appends to that message). A resume's replay
 *   holds only the resume run, so the text its interrupted run showed before the interrupt is not
 *   shown again after a reload (a known limit).
 */
import type { BaseEvent, Message } from '@ag-ui/client';
import type { Observable } from 'rxjs';
import type { Connection } from './connection.js';
import { followRun, IDLE, type RunSession } from './follow-run.js';
import { openThreadRun, readMessages } from './thread-client.js';

export interface ConnectOptions {
  connection: Connection;
  threadId: string;
  /** The run id the idle answer's RUN_STARTED/RUN_FINISHED carry. */
  runId: string;
  rosInvocationId: string;
  signal: AbortSignal;
  session?: (session: RunSession) => void;
}

/** Messages up to and including the last user message. */
export function beforeLiveRun(messages: readonly Message[]): Message[] {
  let last = -1;
  messages.forEach((message, index) => {
    if (message.role === 'user') last = index;
  });
  return messages.slice(0, last + 1);
}

function snapshot(messages: Message[]): BaseEvent {
  return { type: 'MESSAGES_SNAPSHOT', messages, timestamp: Date.now() } as BaseEvent;
}

export function connectThread(options: ConnectOptions): Observable<BaseEvent> {
  let messages: Message[] = [];
  return followRun(
    async (fetch, signal) => {
      // Read first, so that the snapshot is at hand when the run's RUN_STARTED arrives (events are passed on synchronously).
      messages = await readMessages(options.connection, options.threadId, signal).catch(() => []);
      const opened = await openThreadRun(options.connection, options.threadId, fetch, signal);
      if (opened === 'idle') throw IDLE;
      return opened;
    },
    {
      connection: options.connection,
      threadId: options.threadId,
      rosInvocationId: options.rosInvocationId,
      signal: options.signal,
      ...(options.session ? { session: options.session } : {}),
      afterRunStarted: () => (messages.length > 0 ? [snapshot(beforeLiveRun(messages))] : []),
      idle: async () => {
        const now = Date.now();
        return [
          { type: 'RUN_STARTED', threadId: options.threadId, runId: options.runId, timestamp: now } as BaseEvent,
          snapshot(messages),
          { type: 'RUN_FINISHED', threadId: options.threadId, runId: options.runId, timestamp: now } as BaseEvent,
        ];
      },
    },
  );
}

/**
 * One run against the adapter through the official `@ag-ui/client` HttpAgent (docs/architecture.md §4.7), same
 * origin. A fresh agent per run carries only this run's user message: the adapter reads the latest
 * user message anyway (docs/protocol.md §3), and replaying earlier turns — images included — would
 * only grow the body towards its 12 MiB limit.
 */
import { type BaseEvent, HttpAgent, type InputContent, type ResumeEntry } from '@ag-ui/client';
import { authHeaders } from '../connection/session-token.js';
import { newId } from '../threads/thread-settings.js';

export interface RunRequest {
  threadId: string;
  runId: string;
  token: string | undefined;
  iacCode: Record<string, unknown>;
  /** A new turn's user content; absent for a resume. */
  content?: string | InputContent[];
  resume?: ResumeEntry[];
  abort: AbortController;
}

/** Streams the run's events to `onEvent`; resolves with what was thrown, if anything (HTTP error, network, abort). */
export async function streamRun(request: RunRequest, onEvent: (event: BaseEvent) => void): Promise<{ thrown?: unknown }> {
  const agent = new HttpAgent({ url: '/', headers: authHeaders(request.token), threadId: request.threadId });
  agent.setMessages(request.content === undefined ? [] : [{ id: newId('message'), role: 'user', content: request.content }]);
  let thrown: unknown;
  try {
    await agent.runAgent(
      {
        runId: request.runId,
        forwardedProps: { iacCode: request.iacCode },
        abortController: request.abort,
        ...(request.resume ? { resume: request.resume } : {}),
      },
      {
        onEvent: ({ event }) => onEvent(event),
        onRunFailed: ({ error }) => {
          thrown ??= error;
        },
      },
    );
  } catch (error) {
    thrown ??= error;
  }
  return thrown === undefined ? {} : { thrown };
}

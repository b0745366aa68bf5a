/**
 * One run against the adapter through the official `@ag-ui/client` HttpAgent (docs/architecture.md §4.7), same
 * origin. A fresh agent per run carries only this run's user message: the adapter reads the latest
 * user message anyway (docs/protocol.md §3), and replaying earlier turns — images included — would
 * only grow the body towards its 12 MiB limit.
 */
import { type AgentSubscriber, HttpAgent, type InputContent, type ResumeEntry } from '@ag-ui/client';
import { type OnEvent, type Streamed, tappedFetch } from '../../../client/event-stream.js';
import { authHeaders } from '../connection/session-token.js';
import { newId } from '../threads/thread-settings.js';

/** HttpAgent.runAgent's parameters (its config type is not exported). */
type RunParameters = NonNullable<Parameters<HttpAgent['runAgent']>[0]>;

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

export type { OnEvent, Streamed };

/**
 * Runs an agent to its end, each event to `onEvent`. A failure is returned, not thrown: the caller
 * decides what it means (reattach, ask for the token, show it), and the client is told the failure
 * is handled so it does not also log it as an unexpected error.
 */
export async function drive(
  makeAgent: (fetch: (url: string, init: RequestInit) => Promise<Response>) => HttpAgent,
  parameters: RunParameters,
  onEvent: OnEvent,
): Promise<Streamed> {
  const connection = tappedFetch();
  const agent = makeAgent(connection.fetch);
  let thrown: unknown;
  // @ag-ui/client 1.0 rethrows a failure (and logs it with console.error) unless a subscriber's
  // onRunFailed answers stopPropagation; its typing leaves that key out, its code reads it. Were a
  // later version to ignore it, the rethrow is caught below all the same.
  const handled = { stopPropagation: true } as unknown as ReturnType<NonNullable<AgentSubscriber['onRunFailed']>>;
  try {
    await agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        onEvent(event, connection.tap.idOf(event));
      },
      onRunFailed: ({ error }) => {
        thrown ??= error;
        return handled;
      },
    });
  } catch (error) {
    thrown ??= error;
  }
  thrown ??= connection.broken();
  return thrown === undefined ? {} : { thrown };
}

/**
 * The detach grace the console asks for (docs/protocol.md §6.15 "Whose grace"): a reload or a lost
 * connection has a minute to come back before the run is cancelled; the server may allow less.
 * Stop is the cancel route, never a dropped connection (lib/client/cancel-execution.ts).
 */
const RELOAD_GRACE = { 'X-Iac-Code-Detach-Grace-Ms': '60000' };

/** Streams a new turn or a resume (`POST /`, docs/protocol.md §3). */
export function streamRun(request: RunRequest, onEvent: OnEvent): Promise<Streamed> {
  const content = request.content;
  return drive(
    (fetch) => {
      const agent = new HttpAgent({ url: '/', headers: { ...authHeaders(request.token), ...RELOAD_GRACE }, threadId: request.threadId, fetch });
      agent.setMessages(content === undefined ? [] : [{ id: newId('message'), role: 'user', content }]);
      return agent;
    },
    {
      runId: request.runId,
      forwardedProps: { iacCode: request.iacCode },
      abortController: request.abort,
      ...(request.resume ? { resume: request.resume } : {}),
    },
    onEvent,
  );
}

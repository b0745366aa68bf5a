/**
 * The thread-addressed routes a runner that holds nothing needs (docs/protocol.md §6.16), each
 * answering a thread of another person — or none — 404 NOT_FOUND (`threadNotFound`), as §6.3 has it:
 *
 * - `GET /extensions/iac-code/v1/threads/{threadId}` — what the thread is doing: `{threadId, run}`,
 *   `run` null (idle) or `{executionId, runId, state: live | detached | interrupted, …}`;
 * - `POST …/threads/{threadId}/subscribe` — the thread's current run as SSE, from its start or
 *   after `Last-Event-ID`, exactly as the execution's subscribe gives it; 204 when the thread is idle;
 * - `GET …/threads/{threadId}/messages` — `{threadId, messages}`, the conversation so far from the
 *   kernel's task history (ListTasks of the thread's context; GetTask of the tasks the thread
 *   names on a kernel without it).
 */
import type { Message } from '@ag-ui/core';
import type { WireTask } from '../core/a2a/wire-types.js';
import type { Caller } from '../core/caller.js';
import { AdapterError } from '../core/errors.js';
import { languageFromAcceptLanguage } from '../core/i18n/language.js';
import type { Logger, ThreadStore } from '../core/ports.js';
import { KernelRpcError, StoreError } from '../core/ports.js';
import { requestedPosition } from '../core/reattach/requested-position.js';
import { readThread } from '../core/thread/compare-and-swap.js';
import type { ThreadDocument } from '../core/thread/document.js';
import { answeredAsMissing, foreignTo } from '../core/thread/ownership.js';
import { threadRunOf } from '../core/thread/thread-run.js';
import { conversationOf } from '../core/translate/conversation.js';
import type { RouteDeps } from './app.js';
import { authenticate } from './authenticate.js';
import { jsonResponse } from './json-response.js';
import { rejectionResponse } from './rejection-log.js';
import { readProtectedJson } from './request-guards.js';
import { storeOf } from './store-of.js';
import { MAX_SUBSCRIBE_BODY_BYTES, subscribeResponse } from './subscribe-route.js';

/** The most tasks a conversation is rebuilt from, and the most history messages read of each. */
export const MAX_CONVERSATION_TASKS = 200;
export const MAX_TASK_HISTORY = 10_000;
/** A2A's JSON-RPC code for an unknown task. */
const TASK_NOT_FOUND = -32001;

export async function handleThreadState(request: Request, threadId: string, deps: RouteDeps, logger: Logger): Promise<Response> {
  const language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  try {
    const caller = await authenticate(request, { authToken: deps.config.authToken, tokens: deps.tokens });
    const document = await ownThread(storeOf(deps, request, caller), threadId, caller);
    return jsonResponse(200, { threadId, run: threadRunOf(document, deps.clock()) });
  } catch (error) {
    return rejectionResponse(error, logger, 'thread read rejected', language);
  }
}

export async function handleThreadSubscribe(request: Request, signal: AbortSignal, threadId: string, deps: RouteDeps, logger: Logger): Promise<Response> {
  const language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  let leave: (() => void) | undefined;
  try {
    const { caller } = await readProtectedJson(request, deps, { limit: MAX_SUBSCRIBE_BODY_BYTES, tooLarge: 'subscribeTooLarge' });
    const store = storeOf(deps, request, caller);
    const document = await ownThread(store, threadId, caller);
    const run = threadRunOf(document, deps.clock());
    if (run === null) return new Response(null, { status: 204 });
    const { execution } = document;
    // The run the thread names, else (an interrupt of a run admitted before issue 28) its newest admitted run.
    const runId = run.runId ?? Object.keys(document.runDigests).at(-1) ?? '';
    const position = requestedPosition(request.headers.get('last-event-id'), undefined, execution.executionId);
    leave = deps.liveStreams.enter();
    const observed = { executionId: execution.executionId, threadId, runId, rosInvocationId: execution.rosInvocationId, afterSequence: undefined, caller };
    return await subscribeResponse(observed, position, store, { deps, signal, logger, language, leave });
  } catch (error) {
    leave?.();
    return rejectionResponse(error, logger, 'thread subscribe rejected', language);
  }
}

export async function handleThreadMessages(request: Request, signal: AbortSignal, threadId: string, deps: RouteDeps, logger: Logger): Promise<Response> {
  const language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  try {
    const caller = await authenticate(request, { authToken: deps.config.authToken, tokens: deps.tokens });
    const document = await ownThread(storeOf(deps, request, caller), threadId, caller);
    const messages: Message[] = conversationOf(await threadTasks(deps, document, signal));
    return jsonResponse(200, { threadId, messages });
  } catch (error) {
    return rejectionResponse(error, logger, 'thread messages rejected', language);
  }
}

/** The thread's document when the caller may see it; 404 NOT_FOUND for a thread of another person or none. */
async function ownThread(store: ThreadStore, threadId: string, caller: Caller): Promise<ThreadDocument> {
  let document: ThreadDocument | undefined;
  try {
    ({ document } = await readThread(store, threadId));
  } catch (error) {
    if (error instanceof StoreError) throw new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: error });
    throw error;
  }
  const foreign = foreignTo(document, caller);
  if (foreign) throw answeredAsMissing(new AdapterError('NOT_FOUND', 'threadNotFound'), foreign);
  if (!document) throw new AdapterError('NOT_FOUND', 'threadNotFound');
  return document;
}

/**
 * The thread's tasks, oldest first: ListTasks of its context (a2a-sdk lists the most recently
 * updated first); on a kernel without ListTasks, the tasks the thread document names (its
 * execution's task, or the last one, §6.5) — the newest turn only, older turns are missing there.
 */
async function threadTasks(deps: RouteDeps, document: ThreadDocument, signal: AbortSignal): Promise<WireTask[]> {
  try {
    const listed = await deps.kernel.listTasks(document.contextId, MAX_TASK_HISTORY, MAX_CONVERSATION_TASKS, { signal });
    if (listed) return listed.filter((task) => task.contextId === undefined || task.contextId === document.contextId).reverse();
    const named = [document.execution.lastTaskId, document.execution.taskId].filter((id): id is string => typeof id === 'string' && id !== '');
    const tasks: WireTask[] = [];
    for (const id of new Set(named)) {
      const task = await deps.kernel.getTask(id, MAX_TASK_HISTORY, { signal }).catch((error: unknown) => {
        if (error instanceof KernelRpcError && error.rpcCode === TASK_NOT_FOUND) return undefined;
        throw error;
      });
      if (task) tasks.push(task);
    }
    return tasks;
  } catch (error) {
    if (error instanceof AdapterError) throw error;
    throw new AdapterError('A2A_UNAVAILABLE', 'threadConversationUnavailable', undefined, { cause: error });
  }
}

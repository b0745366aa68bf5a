/**
 * The A2A conversations recorded from the real kernel and replayed against the emulator
 * (docs/architecture.md §9.7). Each flow asks a kernel what the adapter asks it — the same message
 * shape (lib/core/a2a/outbound.ts), the same calls in the same order, leaving a stream where the
 * adapter leaves it — and keeps every answer raw. `kernelText` picks a behaviour of the scripted
 * model (fake-llm.py's words), `emulatorText` the emulator scenario that plays the same thing.
 */
import { randomUUID } from 'node:crypto';
import { iacCodeMetadata, sendParams } from '../../lib/core/a2a/outbound.js';
import type { WirePart } from '../../lib/core/a2a/wire-types.js';
import { iacOf, inner, type RawStream, rawCall, stateOf } from './raw-a2a.js';

export interface FlowContext {
  /** The kernel's A2A URL. */
  url: string;
  /** The user's text (the flow's kernelText or emulatorText). */
  text: string;
  /** The workspace sent as `metadata.iac_code.cwd`. */
  cwd: string;
}

export interface KernelFlow {
  name: string;
  description: string;
  kernelText: string;
  emulatorText: string;
  /** More kernel flags the flow needs (raw thinking). */
  kernelArgs?: string;
  play(context: FlowContext): Promise<RawStream[]>;
}

export const RAW_THINKING = '--thinking-exposure raw-thinking';
const STOPPED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED', 'TASK_STATE_AUTH_REQUIRED']);

interface Conversation {
  url: string;
  contextId: string;
  cwd: string;
  taskId?: string;
}

function message(conversation: Conversation, parts: WirePart[]): unknown {
  return sendParams({
    messageId: `rec-${randomUUID()}`,
    contextId: conversation.contextId,
    taskId: conversation.taskId,
    parts,
    iacCode: iacCodeMetadata({ schemaVersion: 1, rosInvocationId: 'recording', cwd: conversation.cwd }, conversation.cwd, 'en'),
  });
}

function conversationFor(context: FlowContext): Conversation {
  return { url: context.url, contextId: `agui-rec-${randomUUID().slice(0, 8)}`, cwd: context.cwd };
}

/** A new turn, read until `leaveAt` says so or the stream ends; the task id is kept for the next steps. */
function send(conversation: Conversation, label: string, parts: WirePart[], leaveAt?: (item: Record<string, unknown>) => boolean) {
  return rawCall(conversation.url, label, 'SendStreamingMessage', message(conversation, parts), (item) => {
    const found = inner(item);
    if (!conversation.taskId && found) conversation.taskId = (found.value['taskId'] ?? found.value['id']) as string | undefined;
    return leaveAt?.(item) ? 'leave' : undefined;
  });
}

function getTask(conversation: Conversation, label: string): Promise<RawStream> {
  return rawCall(conversation.url, label, 'GetTask', { id: conversation.taskId, historyLength: 100 }).done;
}

function subscribe(conversation: Conversation, label: string): Promise<RawStream> {
  return rawCall(conversation.url, label, 'SubscribeToTask', { id: conversation.taskId }).done;
}

function cancel(conversation: Conversation, label: string): Promise<RawStream> {
  return rawCall(conversation.url, label, 'CancelTask', { id: conversation.taskId }).done;
}

function snapshotState(snapshot: RawStream): string | undefined {
  const answer = JSON.parse(snapshot.items[0] ?? '{}') as { result?: { status?: { state?: string } } };
  return answer.result?.status?.state;
}

/** A whole turn, then what GetTask and SubscribeToTask say about the finished turn. */
async function turn(context: FlowContext): Promise<RawStream[]> {
  const conversation = conversationFor(context);
  const streams = [await send(conversation, 'turn', [{ text: context.text }]).done];
  streams.push(await getTask(conversation, 'snapshot'), await subscribe(conversation, 'subscribe-done'));
  return streams;
}

/** The same, without the after-turn calls. */
async function turnAlone(context: FlowContext): Promise<RawStream[]> {
  return [await send(conversationFor(context), 'turn', [{ text: context.text }]).done];
}

/**
 * A permission, as the adapter meets one: the turn is read until the input; the parked task is
 * looked at (GetTask, SubscribeToTask); the answer goes as its own streaming message; what follows
 * is read as the adapter follows it (docs/protocol.md §5.6): GetTask, then SubscribeToTask unless
 * the task already stopped. Unlike the adapter, the flow keeps reading the turn's own stream after
 * the input (`parked`): the kernel goes on sending the whole continuation there, in order, whatever
 * the timing of the other calls.
 */
function permission(decision: 'allow_once' | 'deny') {
  return async (context: FlowContext): Promise<RawStream[]> => {
    const conversation = conversationFor(context);
    let input: Record<string, unknown> | undefined;
    let inputAt = -1;
    let arrived: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let count = 0;
    const turnCall = send(conversation, 'turn', [{ text: context.text }], (item) => {
      count += 1;
      if (input) return false;
      input = iacOf(item)['input'] as Record<string, unknown> | undefined;
      if (input || STOPPED.has(stateOf(item) ?? '')) {
        inputAt = count;
        arrived();
      }
      return false;
    });
    await Promise.race([asked, turnCall.done]);
    if (!input) throw new Error(`no permission was asked: ${(await turnCall.done).items.at(-1)}`);
    const streams = [await getTask(conversation, 'snapshot'), await subscribe(conversation, 'subscribe-parked')];
    const answer: WirePart = {
      data: { schemaVersion: 1, kind: 'permission', requestTaskId: conversation.taskId, inputId: input['inputId'], toolUseId: input['toolUseId'], decision },
      mediaType: 'application/json',
    };
    streams.push(await send(conversation, 'answer', [answer]).done);
    const followed = await getTask(conversation, 'follow-snapshot');
    streams.push(followed);
    if (!STOPPED.has(snapshotState(followed) ?? '')) streams.push(await subscribe(conversation, 'follow'));
    const turn = await turnCall.done;
    return [{ ...turn, items: turn.items.slice(0, inputAt) }, { label: 'parked', method: turn.method, items: turn.items.slice(inputAt) }, ...streams];
  };
}

/** A long turn cancelled after its second text delta; the turn is read to its end. */
async function cancelled(context: FlowContext): Promise<RawStream[]> {
  const conversation = conversationFor(context);
  let deltas = 0;
  let cancelling: Promise<RawStream> | undefined;
  const streaming = send(conversation, 'turn', [{ text: context.text }], (item) => {
    const status = inner(item)?.value['status'] as { message?: unknown } | undefined;
    if (status?.message && stateOf(item) === 'TASK_STATE_WORKING') deltas += 1;
    if (deltas === 2 && !cancelling) cancelling = cancel(conversation, 'cancel');
    return false;
  });
  const streamed = await streaming.done;
  if (!cancelling) throw new Error('the turn ended before it could be cancelled');
  return [streamed, await cancelling, await cancel(conversation, 'cancel-again'), await getTask(conversation, 'snapshot')];
}

/** Two turns on one context: the second is a new task of the same session. */
async function twoTurns(context: FlowContext): Promise<RawStream[]> {
  const conversation = conversationFor(context);
  const first = await send(conversation, 'turn', [{ text: context.text }]).done;
  conversation.taskId = undefined;
  const second = await send(conversation, 'second-turn', [{ text: `${context.text} again` }]).done;
  return [first, second];
}

export const FLOWS: readonly KernelFlow[] = [
  {
    name: 'text',
    description:
      'A text answer: deltas under one message id, usage, the whole answer again (assistantFinal), INPUT_REQUIRED; then GetTask and SubscribeToTask on the finished turn.',
    kernelText: 'hello there',
    emulatorText: 'hello there',
    play: turn,
  },
  {
    name: 'second-turn',
    description: 'Two turns on one context: each is a new task of the same session.',
    kernelText: 'hello there',
    emulatorText: 'hello there',
    play: twoTurns,
  },
  {
    name: 'tool',
    description: 'A read-only tool (read_file) between two texts: started, input_delta (a length only), input_complete (an input summary), completed.',
    kernelText: 'read the readme',
    emulatorText: 'read the readme',
    play: turnAlone,
  },
  {
    name: 'thinking',
    description: 'Raw reasoning (the kernel started with --thinking-exposure raw-thinking), then text.',
    kernelText: 'think it through',
    emulatorText: 'thinking it through',
    kernelArgs: RAW_THINKING,
    play: turnAlone,
  },
  {
    name: 'permission-allow',
    description: 'bash asks for permission; the turn parks; the answer allow_once; the tool runs.',
    kernelText: 'run bash',
    emulatorText: 'permission to run bash',
    play: permission('allow_once'),
  },
  {
    name: 'permission-deny',
    description: 'write_file asks for permission; the answer deny; the tool fails "Permission denied."',
    kernelText: 'write a file',
    emulatorText: 'permission to write a file',
    play: permission('deny'),
  },
  {
    name: 'cancel',
    description: 'A slow answer cancelled after two deltas; CancelTask again; GetTask.',
    kernelText: 'slow answer',
    emulatorText: 'long answer',
    play: cancelled,
  },
  {
    name: 'provider-rejection',
    description: 'The model provider refuses the key (HTTP 401): FAILED with the reason and an error id, then the turn closes (INPUT_REQUIRED).',
    kernelText: 'reject this',
    emulatorText: 'fatal-error',
    play: turn,
  },
  {
    name: 'provider-outage',
    description: 'The model provider answers HTTP 500 to every retry (about a minute): FAILED, then the turn closes (INPUT_REQUIRED).',
    kernelText: 'fail now',
    emulatorText: 'fatal-error',
    play: turn,
  },
];

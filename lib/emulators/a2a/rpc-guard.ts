/**
 * What the iac-code kernel checks before running a JSON-RPC method, and the faults tests ask it
 * to produce (JSON-RPC errors such as SESSION_BACKUP_NOT_READY, an empty stream, an HTTP error, a
 * connection broken in the middle of the first event).
 * GetTask and SubscribeToTask are answered from the task's script: a real kernel's tasks keep
 * changing whether or not a client reads the stream, while the SDK's store only records what a
 * live request consumed. CancelTask of a task whose turn is over is refused (-32002), as the
 * kernel refuses it.
 * A permission answer must be exactly one data part with the six keys of docs/protocol.md §5.3, for the
 * task's open input; anything else is a JSON-RPC invalid-params error, as the kernel answers.
 * So is a binary part over the kernel's 5 MiB inline limit or of a type it refuses (data-parts.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import { binaryPartProblem } from './data-parts.js';
import type { EmulatorControls } from './executor.js';
import { answerPermission } from './permission-answer.js';
import { answerSubscribe } from './subscribe.js';
import type { TaskScript } from './task-script.js';
import { taskSnapshot } from './task-snapshot.js';

const PERMISSION_KEYS = ['decision', 'inputId', 'kind', 'requestTaskId', 'schemaVersion', 'toolUseId'];

interface RpcBody {
  id?: unknown;
  method?: string;
  params?: { id?: string; contextId?: string; historyLength?: number; message?: { role?: string; taskId?: string; parts?: Array<Record<string, unknown>> } };
}

function rpcError(res: Response, id: unknown, code: number, message: string, data?: unknown): void {
  res.status(200).json({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data === undefined ? {} : { data }) } });
}

/** Why a permission answer is invalid, or undefined when the kernel would accept it. */
export function permissionAnswerProblem(message: NonNullable<RpcBody['params']>['message'], script: TaskScript | undefined): string | undefined {
  const parts = message?.parts ?? [];
  const data = parts.find((part) => part['data'] !== undefined)?.['data'] as Record<string, unknown> | undefined;
  if (data?.['kind'] !== 'permission') return undefined;
  if (parts.length !== 1) return 'a permission answer has exactly one part';
  if (parts[0]?.['mediaType'] !== 'application/json') return 'a permission answer is application/json';
  if (message?.role !== 'ROLE_USER') return 'a permission answer comes from the user';
  if (Object.keys(data).sort().join(',') !== PERMISSION_KEYS.join(',')) return `a permission answer has exactly the keys ${PERMISSION_KEYS.join(', ')}`;
  if (data['schemaVersion'] !== 1) return 'schemaVersion must be 1';
  if (data['decision'] !== 'allow_once' && data['decision'] !== 'deny') return 'decision must be allow_once or deny';
  if (data['requestTaskId'] !== message?.taskId) return 'requestTaskId must be the message taskId';
  if (!script?.awaiting || script.awaiting.inputId !== data['inputId']) return 'no such pending permission';
  if (script.awaiting.toolUseId !== data['toolUseId']) return 'toolUseId does not match the pending permission';
  return undefined;
}

/** Sends the first half of the first SSE event, then breaks the connection. */
function cutFirstEvent(res: Response): void {
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  res.write = ((chunk: unknown) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    if (!text.startsWith('data:')) return write(chunk);
    write(text.slice(0, Math.ceil(text.length / 2)), () => res.socket?.destroy());
    res.write = (() => false) as Response['write'];
    return false;
  }) as Response['write'];
}

/**
 * CancelTask as the kernel answers it: a running task (parked on an input too) ends CANCELED with
 * "Task canceled." and the answer is the task as it stands; a task whose turn is over, or that
 * ended, cannot be cancelled (-32002).
 */
function cancelTask(res: Response, id: unknown, script: TaskScript, controls: EmulatorControls): void {
  if (script.ended) {
    rpcError(res, id, -32002, 'Task cannot be canceled');
    return;
  }
  script.controller.abort();
  script.cancelled();
  res.status(200).json({ jsonrpc: '2.0', id: id ?? null, result: taskSnapshot(script, controls.snapshotInputs) });
}

export function rpcGuard(controls: EmulatorControls, scripts: ReadonlyMap<string, TaskScript>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const body = req.body as RpcBody | undefined;
    if (req.method !== 'POST' || req.path !== '/' || typeof body?.method !== 'string') {
      next();
      return;
    }
    const index = controls.rpcFaults.findIndex((fault) => fault.method === body.method);
    const fault = controls.rpcFaults[index];
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) controls.rpcFaults.splice(index, 1);
      // The answer is taken as usual — by the emulator's own answer stream or the SDK's — and its first event is cut.
      if (fault.kind === 'cutFirstEvent') cutFirstEvent(res);
      else if (fault.kind === 'error') rpcError(res, body.id, fault.code ?? -32603, fault.message ?? 'Injected error', fault.data);
      else if (fault.kind === 'emptyStream') res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).end();
      else if (fault.kind === 'hang') res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).flushHeaders();
      else
        res
          .status(fault.status ?? 503)
          .type('text/plain')
          .send('Service Unavailable');
      if (fault.kind !== 'cutFirstEvent') return;
    }
    const cancelled = body.method === 'CancelTask' && body.params?.id ? scripts.get(body.params.id) : undefined;
    if (cancelled) {
      cancelTask(res, body.id, cancelled, controls);
      return;
    }
    const script = (body.method === 'GetTask' || body.method === 'SubscribeToTask') && body.params?.id ? scripts.get(body.params.id) : undefined;
    if (script && body.method === 'GetTask') {
      res.status(200).json({ jsonrpc: '2.0', id: body.id ?? null, result: lastMessages(taskSnapshot(script, controls.snapshotInputs), body.params?.historyLength) });
      return;
    }
    if (script) {
      answerSubscribe(res, body.id, script, controls);
      return;
    }
    if (body.method === 'ListTasks') {
      res.status(200).json({ jsonrpc: '2.0', id: body.id ?? null, result: listTasks(scripts, controls, body.params ?? {}) });
      return;
    }
    if (body.method === 'SendStreamingMessage' || body.method === 'SendMessage') {
      const message = body.params?.message;
      const answered = message?.taskId ? scripts.get(message.taskId) : undefined;
      const problem = binaryPartProblem(message?.parts) ?? permissionAnswerProblem(message, answered);
      if (problem) {
        rpcError(res, body.id, -32602, `Invalid params: ${problem}`);
        return;
      }
      const data = message?.parts?.[0]?.['data'] as Record<string, unknown> | undefined;
      if (body.method === 'SendStreamingMessage' && answered?.awaiting && !answered.awaiting.sideband && data?.['kind'] === 'permission') {
        answerPermission(res, body.id, answered, data['decision'] as 'allow_once' | 'deny', String(data['inputId']));
        return;
      }
    }
    next();
  };
}

/**
 * ListTasks as the kernel's a2a-sdk answers it from its in-memory store: the context's tasks, the
 * most recently updated first (here: the newest first, as turns of one thread follow each other),
 * each history opening with the message that started the task; one page.
 */
function listTasks(scripts: ReadonlyMap<string, TaskScript>, controls: EmulatorControls, params: NonNullable<RpcBody['params']>): Record<string, unknown> {
  const tasks = [...scripts.values()]
    .filter((script) => params.contextId === undefined || params.contextId === '' || script.contextId === params.contextId)
    .reverse()
    .map((script) => {
      const snapshot = taskSnapshot(script, controls.snapshotInputs);
      const history = [...(script.userMessage ? [script.userMessage] : []), ...(snapshot['history'] as unknown[])];
      return lastMessages({ ...snapshot, history }, params.historyLength);
    });
  return { tasks, nextPageToken: '', pageSize: tasks.length, totalSize: tasks.length };
}

/**
 * GetTask's `historyLength` as the kernel's a2a-sdk applies it (a2a/utils/task.py
 * `apply_history_length`): 0 — no history; N > 0 — the last N messages; absent — all of them.
 */
function lastMessages(snapshot: Record<string, unknown>, historyLength: unknown): Record<string, unknown> {
  const history = snapshot['history'] as unknown[];
  if (typeof historyLength !== 'number' || historyLength < 0 || history.length <= historyLength) return snapshot;
  return { ...snapshot, history: historyLength === 0 ? [] : history.slice(-historyLength) };
}

/**
 * What the iac-code kernel checks on a SendStreamingMessage / SendMessage beyond permission
 * answers (rpc-guard.ts), and the messages it answers itself instead of running the executor:
 *
 * - guidance identity (docs/protocol.md §6.13): a message carrying `guidance_id` or `input_digest`
 *   must carry its contextId, taskId and both values, else invalid-params;
 * - a cloud resource selection answer (docs/protocol.md §7.13), parsed strictly, re-validated
 *   against the open input, and claimed durably per (context, inputId): an identical re-answer is
 *   an idempotent replay, a different one is refused;
 * - guidance on a live pipeline task that is not waiting for an answer — the kernel's "active
 *   follow-up": a journal per (context, guidanceId) records STARTED, then APPLIED once the task's
 *   scenario applied it; an APPLIED replay gets one WORKING status with
 *   `metadata.iac_code.guidanceAck`, a STARTED replay or a changed identity is refused.
 *
 * The guidance answer is a stream of its own, separate from the owning run's: the task as it is,
 * then one status with the state the task is in once the guidance was applied (or stopped in).
 */
import { isDeepStrictEqual } from 'node:util';
import type { NextFunction, Request, Response } from 'express';
import type { EmulatorControls } from './executor.js';
import { guidanceInbox } from './guidance-inbox.js';
import { parseSelectionAnswer, RESOURCE_SELECTION_INVALID, RESOURCE_SELECTION_PREFIX, selectionMismatch } from './resource-selection.js';
import type { Json, TaskScript } from './task-script.js';
import { taskSnapshot } from './task-snapshot.js';

const INVALID_PARAMS = -32602;

interface WireMessage {
  contextId?: string;
  taskId?: string;
  parts?: Array<Record<string, unknown>>;
  metadata?: { iac_code?: Json };
}

interface RpcBody {
  id?: unknown;
  method?: string;
  params?: { message?: WireMessage };
}

type JournalStatus = 'STARTED' | 'APPLIED';

interface JournalRecord {
  taskId: string;
  inputDigest: string;
  status: JournalStatus;
}

function rpcError(res: Response, id: unknown, code: number, message: string): void {
  res.status(200).json({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function textOf(message: WireMessage): string {
  return (message.parts ?? []).map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

function sse(res: Response, id: unknown): (result: Json) => void {
  res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (result) => {
    if (!res.writableEnded && !res.destroyed) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result })}\n\n`);
  };
}

function statusUpdate(script: TaskScript, state: string, iac: Json = {}): Json {
  return {
    statusUpdate: {
      taskId: script.taskId,
      contextId: script.contextId,
      status: { state: `TASK_STATE_${state}` },
      metadata: { iac_code: { iacCodeSessionId: script.sessionId, ...iac } },
    },
  };
}

export function messageGuard(controls: EmulatorControls, scripts: ReadonlyMap<string, TaskScript>) {
  /** (contextId, inputId) → the answer the kernel accepted. */
  const selectionClaims = new Map<string, Json>();
  /** (contextId, guidanceId) → the guidance journal record, as durable as the kernel process. */
  const journal = new Map<string, JournalRecord>();

  /** Answers a resource-selection message, or returns false to let the executor run it. */
  function checkSelection(res: Response, body: RpcBody, message: WireMessage, script: TaskScript | undefined): boolean {
    const text = textOf(message);
    const open = script?.awaiting?.kind === 'cloud_resource_selection' ? (script.exposed['input'] as Json | undefined) : undefined;
    if (!text.startsWith(RESOURCE_SELECTION_PREFIX) && !open) return false;
    const refuse = (reason: string): true => {
      rpcError(res, body.id, INVALID_PARAMS, `${RESOURCE_SELECTION_INVALID}: ${reason}`);
      return true;
    };
    if ((message.parts ?? []).length !== 1) return refuse('the answer is exactly one text part');
    const parsed = parseSelectionAnswer(text, { contextId: message.contextId, taskId: message.taskId });
    if (typeof parsed === 'string') return refuse(parsed);
    const claimKey = `${message.contextId}\u0000${String(parsed.answer['inputId'])}`;
    const claimed = selectionClaims.get(claimKey);
    if (claimed !== undefined) {
      if (!isDeepStrictEqual(claimed, parsed.answer)) return refuse('answer conflicts with prior answer');
      if (!script) return refuse('no such task');
      // An identical re-answer: acknowledged with the task as it is, never applied twice.
      const task = taskSnapshot(script, controls.snapshotInputs);
      if (body.method === 'SendMessage') res.status(200).json({ jsonrpc: '2.0', id: body.id ?? null, result: { task } });
      else {
        sse(res, body.id)({ task });
        res.end();
      }
      return true;
    }
    if (!open) return refuse('no such pending resource selection');
    const mismatch = selectionMismatch(parsed.answer, open);
    if (mismatch) return refuse(mismatch);
    selectionClaims.set(claimKey, parsed.answer);
    return false;
  }

  async function guide(res: Response, body: RpcBody, message: WireMessage, script: TaskScript): Promise<void> {
    const iac = message.metadata?.iac_code ?? {};
    const guidanceId = iac['guidance_id'];
    const inputDigest = iac['input_digest'];
    let record: JournalRecord | undefined;
    if (nonEmpty(guidanceId) && nonEmpty(inputDigest)) {
      const key = `${script.contextId}\u0000${guidanceId}`;
      const known = journal.get(key);
      if (known) {
        if (known.taskId !== script.taskId || known.inputDigest !== inputDigest) return rpcError(res, body.id, INVALID_PARAMS, 'Guidance identity changed.');
        if (known.status === 'STARTED') return rpcError(res, body.id, INVALID_PARAMS, 'Prior guidance acceptance is unknown.');
        const send = sse(res, body.id);
        send(statusUpdate(script, 'WORKING', { guidanceAck: { guidanceId, inputDigest, accepted: true } }));
        res.end();
        return;
      }
      record = { taskId: script.taskId, inputDigest, status: 'STARTED' };
      journal.set(key, record);
    }
    const send = sse(res, body.id);
    send({ task: taskSnapshot(script, controls.snapshotInputs) });
    const outcome = await guidanceInbox(script).offer(textOf(message));
    if (record && outcome.applied) record.status = 'APPLIED';
    send(statusUpdate(script, outcome.state));
    if (!res.writableEnded && !res.destroyed) res.end();
  }

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const body = req.body as RpcBody | undefined;
    const message = body?.params?.message;
    if (req.method !== 'POST' || req.path !== '/' || (body?.method !== 'SendStreamingMessage' && body?.method !== 'SendMessage') || !message) {
      next();
      return;
    }
    const iac = message.metadata?.iac_code ?? {};
    if (iac['guidance_id'] != null || iac['input_digest'] != null) {
      if (!nonEmpty(message.contextId) || !nonEmpty(message.taskId) || !nonEmpty(iac['guidance_id']) || !nonEmpty(iac['input_digest'])) {
        rpcError(res, body.id, INVALID_PARAMS, 'Guidance requires its exact task, context and input digest.');
        return;
      }
    }
    const script = message.taskId ? scripts.get(message.taskId) : undefined;
    if (checkSelection(res, body, message, script)) return;
    const pipeline = iac['run_mode'] === 'pipeline' || iac['runMode'] === 'pipeline';
    if (body.method === 'SendStreamingMessage' && script && !script.ended && !script.awaiting && pipeline) {
      await guide(res, body, message, script);
      return;
    }
    next();
  };
}

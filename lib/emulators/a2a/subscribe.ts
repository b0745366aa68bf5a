/**
 * SubscribeToTask as the iac-code kernel answers it (docs/protocol.md §7.10; the recordings in
 * test/fixtures/kernel-streams): the current task first, then every event until the task parks or
 * ends. A task parked on an input gets the task alone, and the stream ends; a task whose turn is
 * over (or that ended) is answered with a task-not-found JSON-RPC error ("Task … is not active").
 */
import type { Response } from 'express';
import type { EmulatorControls } from './executor.js';
import type { Json, TaskScript } from './task-script.js';
import { taskSnapshot } from './task-snapshot.js';

const STOPPED = new Set(['INPUT_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELED', 'REJECTED', 'AUTH_REQUIRED']);

export function answerSubscribe(res: Response, id: unknown, script: TaskScript, controls: EmulatorControls): void {
  const parked = script.awaiting !== undefined && !script.ended;
  if (STOPPED.has(script.state) && !parked) {
    res.status(200).json({ jsonrpc: '2.0', id: id ?? null, error: { code: -32001, message: `Task ${script.taskId} is not active` } });
    return;
  }
  res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (result: Json): void => {
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result })}\n\n`);
  };
  if (parked && STOPPED.has(script.state)) {
    send({ task: taskSnapshot(script, controls.snapshotInputs) });
    res.end();
    return;
  }
  const listener = (item: Json): void => {
    send(item);
    const state = ((item['statusUpdate'] as Json | undefined)?.['status'] as Json | undefined)?.['state'];
    if (typeof state === 'string' && STOPPED.has(state.replace('TASK_STATE_', ''))) close();
  };
  const close = (): void => {
    script.taps.delete(listener);
    res.end();
  };
  send({ task: taskSnapshot(script, controls.snapshotInputs) });
  script.taps.add(listener);
  res.on('close', () => script.taps.delete(listener));
  // Any number of streams may watch one task at once, each from its own attachment on (docs/architecture.md §9.2).
  script.attached();
}

/**
 * A permission answer's own stream, as the real kernel sends it (test/fixtures/kernel-streams/
 * permission-*.json; docs/protocol.md §5.6): the two acknowledgements — status updates, no task
 * first — and, for a deny, the failed tool; then the stream ends while the task works on. @a2a-js/sdk
 * insists on a task or a message as the first event of a stream, so the emulator writes this stream
 * itself, from the task's own taps, and hands the answer to the parked scenario.
 */
import { DefaultExecutionEventBus } from '@a2a-js/sdk/server';
import type { Response } from 'express';
import type { Json, TaskScript } from './task-script.js';

export function answerPermission(res: Response, id: unknown, script: TaskScript, decision: 'allow_once' | 'deny', inputId: string): void {
  res.status(200).set({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const listener = (item: Json): void => {
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result: item })}\n\n`);
  };
  const end = (): void => {
    script.taps.delete(listener);
    if (!res.writableEnded) res.end();
  };
  script.taps.add(listener);
  res.on('close', () => script.taps.delete(listener));
  // The scenario ends this stream by detaching (or by parking again, or ending).
  const bus = new DefaultExecutionEventBus();
  bus.on('finished', end);
  void script.deliver({ kind: 'permission', decision, inputId }, bus).then(end);
}

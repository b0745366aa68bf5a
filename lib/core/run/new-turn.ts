/** A new turn: the latest user message to SendStreamingMessage on a fresh task (docs/protocol.md §7.2). */
import { iacCodeMetadata, sendParams } from '../a2a/outbound.js';
import { consumeStream } from './consume-stream.js';
import { finishRun } from './run-ending.js';
import { RunFailure } from './run-failure.js';
import type { RunSession } from './run-session.js';

export async function streamNewTurn(session: RunSession, signal: AbortSignal): Promise<void> {
  const { request, thread } = session;
  const userMessage = request.userMessage;
  if (!userMessage) throw new RunFailure('INVALID_INPUT', 'userMessageRequired', false);
  const params = sendParams({
    messageId: userMessage.id,
    contextId: thread.document.contextId,
    taskId: undefined,
    parts: userMessage.parts,
    iacCode: iacCodeMetadata(request.iacCode, request.cwd, session.language),
  });
  const onTaskId = (taskId: string): void => {
    session.wireTaskId ??= taskId;
  };
  const result = await consumeStream(session, session.kernel.sendStreamingMessage(params, { signal, onTaskId }));
  signal.throwIfAborted();
  await finishRun(session, result);
}

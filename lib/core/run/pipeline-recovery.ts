import type { RunSession } from './run-session.js';

/** Maps `/iac-code/pipeline/state` after the cursor as recovery (docs/protocol.md §8.6). */
export async function recoverPipeline(session: RunSession, signal: AbortSignal): Promise<void> {
  const taskId = session.taskId;
  if (!taskId) return;
  const state = await session.kernel.pipelineState(taskId, session.translator.pipelineCursor, { signal });
  if (state) session.emitAll(session.translator.recover(state));
}

/**
 * A tool's status as iac-code knows it, from what CopilotKit's tool render callback receives. The
 * callback has three statuses (`inProgress`, `executing`, `complete`) and the result's text; the
 * adapter's tool status travels in CUSTOM events CopilotKit does not pass on, so:
 *
 * - **failed**: the adapter sends a failed tool's `result` as a normal `TOOL_CALL_RESULT`, its
 *   content the result string as is or canonical JSON (docs/protocol.md §4.7: AG-UI has no error
 *   flag). The kernel reports a failure as an object with an `error` (or `isError: true`), so a
 *   result that parses to such an object is a failed tool. A failure the kernel reports as bare
 *   text cannot be told from an answer and shows as done.
 * - **waiting**: a tool whose call a pending interrupt names (`interrupt.toolCallId`, §5.2: a
 *   permission for that tool), while the interrupt is pending (pending-tools.ts).
 */
import { toolErrorOf } from '../tool-errors.js';

export type CopilotToolStatus = 'inProgress' | 'executing' | 'complete';
export type IacCodeToolStatus = 'running' | 'waiting' | 'failed' | 'done';

/** The error a failed tool's result carries, or undefined (lib/client/tool-errors.ts). */
export function toolFailure(result: string | undefined): string | undefined {
  return result === undefined ? undefined : toolErrorOf(result);
}

export function toolStatus(status: CopilotToolStatus, result: string | undefined, waiting: boolean): IacCodeToolStatus {
  if (toolFailure(result) !== undefined) return 'failed';
  if (waiting) return 'waiting';
  return status === 'complete' ? 'done' : 'running';
}

export const TOOL_STATUS_LABELS: Record<IacCodeToolStatus, string> = {
  running: 'Running',
  waiting: 'Waiting for permission',
  failed: 'Failed',
  done: 'Done',
};

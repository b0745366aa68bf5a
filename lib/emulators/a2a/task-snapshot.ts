import type { EmulatorControls } from './executor.js';
import { permissionInput } from './inputs.js';
import type { TaskScript } from './task-script.js';

/**
 * The task as GetTask and SubscribeToTask show it, as the kernel's task store keeps it: the last
 * status (state and message), the metadata of the last status with the open inputs, and every
 * earlier status message as the history (the user's message is not in it).
 */
export function taskSnapshot(script: TaskScript, inputs: EmulatorControls['snapshotInputs']): Record<string, unknown> {
  const status: Record<string, unknown> = { state: `TASK_STATE_${script.state}` };
  if (script.statusMessage) status['message'] = script.statusMessage;
  const snapshot: Record<string, unknown> = { id: script.taskId, contextId: script.contextId, status, history: [...script.history] };
  if (inputs === 'full') snapshot['metadata'] = script.snapshotMetadata();
  if (inputs === 'emptyList') snapshot['metadata'] = { iac_code: { iacCodeSessionId: script.sessionId, pendingPermissions: [] } };
  if (inputs === 'extraPermission') {
    script.extraPermission ??= permissionInput(script, {
      toolUseId: 'toolu-extra-1',
      toolName: 'deploy_stack',
      title: 'Deploy stack C.',
      target: 'vpc-c',
      sideband: { subPipelineId: 'sub-c' },
    });
    const current = script.exposed['input'] ? [script.exposed['input']] : [];
    snapshot['metadata'] = { iac_code: { iacCodeSessionId: script.sessionId, ...script.exposed, pendingPermissions: [...current, script.extraPermission] } };
  }
  return snapshot;
}

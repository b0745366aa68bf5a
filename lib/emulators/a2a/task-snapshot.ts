import type { EmulatorControls } from './executor.js';
import { permissionInput } from './inputs.js';
import type { TaskScript } from './task-script.js';

/**
 * The task as GetTask and SubscribeToTask show it, as the kernel's task store keeps it: the last
 * status (state and message), the metadata of the last status with the open inputs, and every
 * earlier status message as the history (the user's message is not in it).
 */
export function taskSnapshot(script: TaskScript, controls: Pick<EmulatorControls, 'snapshotInputs' | 'history'>): Record<string, unknown> {
  const inputs = controls.snapshotInputs;
  const status: Record<string, unknown> = { state: `TASK_STATE_${script.state}` };
  if (script.statusMessage) status['message'] = script.statusMessage;
  const history = controls.history === 'grown' ? grownInPlace([...script.history, ...(script.statusMessage ? [script.statusMessage] : [])]) : [...script.history];
  const snapshot: Record<string, unknown> = { id: script.taskId, contextId: script.contextId, status, history };
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

type Message = TaskScript['history'][number];

/** One message per id, where the id first appeared, its text every part under that id so far (EmulatorControls.history). */
function grownInPlace(messages: readonly Message[]): Message[] {
  const byId = new Map<string, { message: Record<string, unknown>; text: string }>();
  const kept: Array<{ message: Record<string, unknown>; text: string }> = [];
  for (const message of messages) {
    const record = message as Record<string, unknown>;
    const id = typeof record['messageId'] === 'string' ? record['messageId'] : undefined;
    const parts = Array.isArray(record['parts']) ? (record['parts'] as Array<Record<string, unknown>>) : [];
    const text = parts.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('');
    const seen = id === undefined ? undefined : byId.get(id);
    if (seen) seen.text += text;
    else {
      const entry = { message: record, text };
      kept.push(entry);
      if (id !== undefined) byId.set(id, entry);
    }
  }
  return kept.map(({ message, text }) => ({ ...message, parts: [{ text }] }) as Message);
}

/**
 * Inputs as the iac-code kernel announces them under `metadata.iac_code.input` /
 * `pendingPermissions` (docs/protocol.md §5.1).
 */
import { randomUUID } from 'node:crypto';
import type { AwaitedInput, Json, TaskScript } from './task-script.js';

export function permissionInput(script: TaskScript, options: { toolUseId: string; toolName: string; title: string; target: string; sideband?: { subPipelineId: string } }): Json {
  return {
    schemaVersion: 1,
    kind: 'permission',
    requestTaskId: script.taskId,
    contextId: script.contextId,
    inputId: `permission-${randomUUID().replace(/-/g, '')}`,
    toolUseId: options.toolUseId,
    toolName: options.toolName,
    title: options.title,
    purpose: 'Validate the template before deployment.',
    effect: 'local_execution',
    target: options.target,
    isReadOnly: false,
    prompt: `${options.title} Allow once?`,
    safeSummary: `${options.toolName}: ${options.target}`,
    options: [
      { id: 'allow_once', label: 'Allow once' },
      { id: 'deny', label: 'Deny' },
    ],
    language: 'en',
    required: true,
    ...(options.sideband ? { scope: 'candidate', subPipelineId: options.sideband.subPipelineId, operation: 'deploy', displayParameters: { stack: 'vpc-a' } } : {}),
    // Not in the adapter's allow-list: it must never be stored or shown (docs/protocol.md §5.1).
    kernelTrace: 'kernel-internal-trace',
  };
}

export function questionInput(script: TaskScript, toolUseId: string): Json {
  return {
    schemaVersion: 1,
    kind: 'ask_user_question',
    requestTaskId: script.taskId,
    contextId: script.contextId,
    inputId: `ask-${toolUseId}`,
    toolUseId,
    prompt: 'Which network plan should I use?',
    options: [
      { id: 'plan-a', label: 'Plan A', description: 'One VPC, two zones' },
      { id: 'plan-b', label: 'Plan B', description: 'Two VPCs with peering' },
    ],
    allowFreeText: true,
    freeTextPrompt: 'Or describe your own plan',
    language: 'en',
    required: true,
  };
}

export function candidateSelectionInput(script: TaskScript): Json {
  return {
    schemaVersion: 1,
    kind: 'candidate_selection',
    requestTaskId: script.taskId,
    contextId: script.contextId,
    inputId: `select-${randomUUID().replace(/-/g, '')}`,
    prompt: 'Choose an architecture.',
    options: [
      { id: 'candidate-0', label: 'ECS + SLB', summary: 'Classic', totalMonthlyCost: 120.5 },
      { id: 'candidate-1', name: 'Serverless', summary: 'Function Compute', totalMonthlyCost: 42 },
    ],
    language: 'en',
    required: true,
  };
}

export function awaited(input: Json, sideband = false): AwaitedInput {
  return { inputId: input['inputId'] as string, kind: input['kind'] as string, toolUseId: String(input['toolUseId'] ?? ''), sideband };
}

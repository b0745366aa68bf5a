/**
 * What the adapter sends to the A2A kernel (docs/protocol.md §7.2, §7.3).
 *
 * Everything from `forwardedProps.iacCode` travels under `message.metadata.iac_code` only: the
 * kernel reads request-level metadata *instead of* message metadata when both exist, so
 * request-level `params.metadata` is never sent (docs/protocol.md §7.2).
 */

import { sha256Hex } from '../hash.js';
import type { Language } from '../i18n/catalogue.js';
import type { IacCodeProps } from '../protocol/schemas.js';
import type { JsonObject, WirePart, WireSendParams } from './wire-types.js';

/** Deterministic per thread: "agui-" + the first 40 hex of SHA-256(threadId) (docs/protocol.md §6.1). */
export function contextIdFor(threadId: string): string {
  return `agui-${sha256Hex(threadId).slice(0, 40)}`;
}

function nonBlank(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The `metadata.iac_code` object, key for key as docs/protocol.md §7.3 lists it. */
export function iacCodeMetadata(props: IacCodeProps, cwd: string, language: Language): JsonObject {
  const metadata: JsonObject = {
    cwd,
    preferredLanguage: language,
    cleanupOnly: props.cleanupOnly ?? false,
    rosInvocationId: props.rosInvocationId,
  };
  const model = nonBlank(props.model);
  if (model) metadata['iac_code_model'] = model;
  const apiKey = nonBlank(props.llmApiKey);
  if (apiKey) metadata['iac_code_api_key'] = apiKey;
  if (props.thinking) {
    const thinking: JsonObject = { enabled: props.thinking.enabled ?? false };
    const effort = nonBlank(props.thinking.effort);
    if (effort) thinking['effort'] = effort;
    if (props.thinking.budget != null) thinking['budget'] = props.thinking.budget;
    metadata['thinking'] = thinking;
  }
  if (props.userId != null) metadata['user_id'] = props.userId;
  if (props.channel != null) metadata['channel'] = props.channel;
  if (props.candidatePresentation != null) metadata['candidatePresentation'] = props.candidatePresentation;
  if (props.runMode != null) metadata['run_mode'] = props.runMode;
  if (props.pipelineName != null) metadata['pipeline_name'] = props.pipelineName;
  const cloud = props.alibabaCloud;
  if (cloud) {
    if (cloud.accessKeyId != null) metadata['alibaba_cloud_access_key_id'] = cloud.accessKeyId;
    if (cloud.accessKeySecret != null) metadata['alibaba_cloud_access_key_secret'] = cloud.accessKeySecret;
    if (cloud.securityToken != null) metadata['alibaba_cloud_security_token'] = cloud.securityToken;
    if (cloud.regionId != null) metadata['alibaba_cloud_region_id'] = cloud.regionId;
  }
  // `{}` is forwarded (it clears the kernel's binding); absence is not (docs/protocol.md §3.5).
  if (props.llmHeaders != null) metadata['llm_headers'] = props.llmHeaders;
  // The guidance and handoff keys travel on every message of a run that carries them, guidance or
  // not; activeGuidance is the adapter's own switch and never leaves it (docs/protocol.md §7.3).
  if (props.guidanceId != null) metadata['guidance_id'] = props.guidanceId;
  if (props.inputDigest != null) metadata['input_digest'] = props.inputDigest;
  if (props.executionFence != null) metadata['execution_fence'] = props.executionFence as JsonObject;
  return metadata;
}

export interface OutboundMessage {
  messageId: string;
  contextId: string;
  taskId: string | undefined;
  parts: WirePart[];
  iacCode: JsonObject;
}

/** SendStreamingMessage / SendMessage params (docs/protocol.md §7.2). `taskId` only when continuing a task. */
export function sendParams(message: OutboundMessage): WireSendParams {
  return {
    message: {
      messageId: message.messageId,
      role: 'ROLE_USER',
      contextId: message.contextId,
      ...(message.taskId ? { taskId: message.taskId } : {}),
      parts: message.parts,
      metadata: { iac_code: message.iacCode },
    },
    configuration: { acceptedOutputModes: ['text/plain'] },
  };
}

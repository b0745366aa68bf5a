/**
 * The A2A 1.0 proto-JSON wire shapes the core reads and writes (docs/protocol.md §7.2, §7.4). The core works on
 * plain wire JSON; the kernel adapter converts to and from the SDK's types, so nothing above
 * lib/adapters depends on @a2a-js/sdk.
 */
export type JsonObject = Record<string, unknown>;

export interface WirePart {
  text?: string;
  data?: unknown;
  url?: string;
  raw?: string;
  filename?: string;
  mediaType?: string;
  metadata?: JsonObject;
}

export interface WireMessage {
  messageId: string;
  role: 'ROLE_USER' | 'ROLE_AGENT' | string;
  contextId?: string;
  taskId?: string;
  parts: WirePart[];
  metadata?: JsonObject;
}

export interface WireSendParams {
  message: WireMessage;
  configuration?: { acceptedOutputModes: string[] };
}

export interface WireStatus {
  state?: string;
  message?: WireMessage;
  timestamp?: string;
}

export interface WireTask {
  id: string;
  contextId?: string;
  status?: WireStatus;
  history?: WireMessage[];
  artifacts?: JsonObject[];
  metadata?: JsonObject;
}

/** One item of a streaming response: exactly one of the four keys (A2A 1.0 StreamResponse). */
export interface WireStreamItem {
  task?: WireTask;
  statusUpdate?: { taskId: string; contextId?: string; status?: WireStatus; metadata?: JsonObject };
  artifactUpdate?: { taskId: string; contextId?: string; artifact?: JsonObject; metadata?: JsonObject };
  message?: WireMessage;
}

/** Request builders: a valid RunAgentInput by default, overridable field by field. */
export interface RunBodyOptions {
  threadId?: string;
  runId?: string;
  text?: string;
  content?: unknown;
  iacCode?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  resume?: unknown[];
}

let counter = 0;

export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export function iacCode(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { schemaVersion: 1, rosInvocationId: 'invocation-1', cwd: '/workspace/session-1', ...overrides };
}

export function runBody(options: RunBodyOptions = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    threadId: options.threadId ?? uniqueId('thread'),
    runId: options.runId ?? uniqueId('run'),
    state: {},
    messages: [{ id: 'message-1', role: 'user', content: options.content ?? options.text ?? 'hello there' }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: iacCode(options.iacCode) },
    ...options.extra,
  };
  if (options.resume !== undefined) body['resume'] = options.resume;
  return body;
}

/** A 1×1 PNG, base64. */
export const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * The header a client that reattaches sends (docs/protocol.md §6.15 "Whose grace"): it asks for
 * more than any test server allows, so its run keeps the server's maximum grace. A request without
 * it keeps the seed's rule: its disconnect cancels the run.
 */
export const ASK_GRACE: Readonly<Record<string, string>> = { 'x-iac-code-detach-grace-ms': '3600000' };

/** Helpers for interrupt and resume tests. */
import { contextIdFor } from '../../lib/core/a2a/outbound.js';
import type { RecordedCall } from '../../lib/emulators/a2a/server.js';
import type { SseRecord } from './sse.js';
import type { Stack } from './stack.js';

/**
 * The A2A calls of a resume whose answer is sent as a streaming message and whose stream ends while
 * the task works on — as the kernel ends a permission answer's (docs/protocol.md §5.4, §5.6): the
 * pre-flight, the answer, then the task followed and the pipeline caught up.
 */
export const FOLLOWED_RESUME_CALLS = [
  'HTTP POST /iac-code/session/ensure-restored',
  'GetTask',
  'HTTP GET /iac-code/pipeline/state',
  'SendStreamingMessage',
  'GetTask',
  'SubscribeToTask',
  'HTTP GET /iac-code/pipeline/state',
];

export interface InterruptShape {
  id: string;
  reason: string;
  message: string;
  toolCallId?: string;
  responseSchema: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

export function interruptsOf(sse: SseRecord): InterruptShape[] {
  const last = sse.events.at(-1) as { type: string; outcome?: { type: string; interrupts?: InterruptShape[] } };
  if (last.type !== 'RUN_FINISHED' || last.outcome?.type !== 'interrupt') throw new Error(`run did not end with an interrupt: ${JSON.stringify(last)}`);
  return last.outcome.interrupts ?? [];
}

export function resolved(interruptId: string, payload: unknown) {
  return { interruptId, status: 'resolved', payload };
}

export function cancelled(interruptId: string) {
  return { interruptId, status: 'cancelled' };
}

/** Calls of a method that belong to one thread (by its context id). */
export function threadCalls(stack: Stack, threadId: string, method: string): RecordedCall[] {
  const contextId = contextIdFor(threadId);
  return stack.emulator.callsOf(method).filter((call) => JSON.stringify(call.params).includes(contextId));
}

export function sessionValue(sse: SseRecord): Record<string, unknown> | undefined {
  return sse.events.find((event) => event.type === 'CUSTOM' && event['name'] === 'iac-code.session.v1')?.['value'] as Record<string, unknown> | undefined;
}

export function lastEvent(sse: SseRecord): Record<string, unknown> {
  return sse.events.at(-1) as Record<string, unknown>;
}

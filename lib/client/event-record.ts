/**
 * AG-UI events read as plain records (docs/protocol.md §4): the client passes on whatever arrives
 * and never trusts a field's type, so each read says what it expects. The console's transcript
 * reads events the same way (lib/console/app/transcript/event-fields.ts re-exports these).
 */
export type EventRecord = { type: string } & Record<string, unknown>;

export function str(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}

export function obj(record: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
  const value = record?.[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The CUSTOM event naming a run's execution and identities (docs/protocol.md §4.9). */
export const CUSTOM_SESSION = 'iac-code.session.v1';

export function isTerminal(event: { type: string }): boolean {
  return event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR';
}

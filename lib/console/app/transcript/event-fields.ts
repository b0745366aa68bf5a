/**
 * AG-UI events read as plain records (docs/protocol.md §4). The console renders whatever arrives
 * and never trusts a field's type, so each read says what it expects.
 */
export type EventRecord = { type: string } & Record<string, unknown>;

export function str(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' ? value : undefined;
}

export function num(record: Record<string, unknown> | undefined, key: string): number | undefined {
  const value = record?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function obj(record: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
  const value = record?.[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export const CUSTOM_SESSION = 'iac-code.session.v1';
export const CUSTOM_ARTIFACT = 'iac-code.artifact.v1';
export const CUSTOM_TOOL_PROGRESS = 'iac-code.tool-progress.v1';
export const CUSTOM_PIPELINE = 'iac-code.pipeline.v1';

/** The console's own events, never on the wire (transcript/run-view.ts). */
export const CONSOLE_NOTE = 'CONSOLE_NOTE';
export const CONSOLE_STATE = 'CONSOLE_STATE';

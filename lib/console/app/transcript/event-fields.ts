/**
 * AG-UI events read as plain records (docs/protocol.md §4). The console renders whatever arrives
 * and never trusts a field's type, so each read says what it expects.
 */
export { CUSTOM_SESSION, type EventRecord, obj, str } from '../../../client/event-record.js';

export function num(record: Record<string, unknown> | undefined, key: string): number | undefined {
  const value = record?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export const CUSTOM_ARTIFACT = 'iac-code.artifact.v1';
export const CUSTOM_TOOL_PROGRESS = 'iac-code.tool-progress.v1';
export const CUSTOM_PIPELINE = 'iac-code.pipeline.v1';

/** The console's own events, never on the wire (transcript/run-view.ts). */
export const CONSOLE_NOTE = 'CONSOLE_NOTE';
export const CONSOLE_STATE = 'CONSOLE_STATE';

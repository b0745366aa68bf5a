/**
 * AG-UI events as the adapter emits them (SPEC §4 "Event stream", contract §C).
 *
 * Shapes follow @ag-ui/core 1.0; the tests check every emitted event against its schemas and the
 * official client's verifyEvents. Optional fields are omitted, never null (SPEC §4 "no null
 * optional fields") — `compact` enforces that for everything but a CUSTOM value.
 */
export type AguiEventType =
  | 'RUN_STARTED'
  | 'RUN_FINISHED'
  | 'RUN_ERROR'
  | 'TEXT_MESSAGE_START'
  | 'TEXT_MESSAGE_CONTENT'
  | 'TEXT_MESSAGE_END'
  | 'REASONING_START'
  | 'REASONING_MESSAGE_START'
  | 'REASONING_MESSAGE_CONTENT'
  | 'REASONING_MESSAGE_END'
  | 'REASONING_END'
  | 'TOOL_CALL_START'
  | 'TOOL_CALL_ARGS'
  | 'TOOL_CALL_END'
  | 'TOOL_CALL_RESULT'
  | 'STEP_STARTED'
  | 'STEP_FINISHED'
  | 'ACTIVITY_SNAPSHOT'
  | 'CUSTOM';

export interface AguiEvent {
  type: AguiEventType;
  timestamp: number;
  [field: string]: unknown;
}

export const CUSTOM_SESSION = 'iac-code.session.v1';
export const CUSTOM_ARTIFACT = 'iac-code.artifact.v1';
export const CUSTOM_TOOL_PROGRESS = 'iac-code.tool-progress.v1';
export const CUSTOM_PIPELINE = 'iac-code.pipeline.v1';

export type Clock = () => number;

/** Builds events stamped by one clock; drops undefined and null fields. */
export function eventFactory(clock: Clock) {
  return (type: AguiEventType, fields: Record<string, unknown> = {}): AguiEvent => {
    const event: AguiEvent = { type, timestamp: Math.trunc(clock()) };
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined && value !== null) event[key] = value;
    }
    return event;
  };
}

export type MakeEvent = ReturnType<typeof eventFactory>;

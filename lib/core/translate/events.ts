/**
 * AG-UI events as the adapter emits them (docs/protocol.md §4), typed by @ag-ui/core 1.0 itself.
 *
 * The imports are type-only, so nothing of @ag-ui/core enters the core's bundle. An emitted event
 * is the 1.0 event of its type with a plain string discriminator (the JSON is the same; the
 * package's discriminator is a TypeScript enum) and an integer timestamp. `make` takes exactly
 * the fields 1.0 defines for that type, so a field the protocol does not know fails the type
 * check, and the tests' strict oracle (test/support/agui-oracle.ts) catches what types cannot.
 * Optional fields are omitted, never null (docs/protocol.md §4): `make` drops undefined and null
 * fields; only a CUSTOM value may carry nulls inside it.
 */
import type { AGUIEventOf, EventType } from '@ag-ui/core';

/** The event types the adapter emits (docs/protocol.md §4). */
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

/** @ag-ui/core's event for a type name. */
type CoreEvent<T extends AguiEventType> = { [K in EventType as `${K}`]: AGUIEventOf<K> }[T];

/** What `make` takes for an event type: every field 1.0 defines except the discriminator and the timestamp. */
export type EventFields<T extends AguiEventType> = Omit<CoreEvent<T>, 'type' | 'timestamp'>;

/** One emitted event of type T. */
export type AguiEventOf<T extends AguiEventType> = { type: T; timestamp: number } & EventFields<T>;

/** Any emitted event, discriminated by `type`. */
export type AguiEvent = { [T in AguiEventType]: AguiEventOf<T> }[AguiEventType];

export const CUSTOM_SESSION = 'iac-code.session.v1';
export const CUSTOM_ARTIFACT = 'iac-code.artifact.v1';
export const CUSTOM_TOOL_PROGRESS = 'iac-code.tool-progress.v1';
export const CUSTOM_PIPELINE = 'iac-code.pipeline.v1';

export type Clock = () => number;

/** The value of `iac-code.session.v1` (docs/protocol.md §4.9): null for an id not known yet. */
export interface SessionValue {
  threadId: string;
  aguiRunId: string;
  executionId: string;
  contextId: string;
  taskId: string | null;
  rosInvocationId: string;
  sessionId: string | null;
}

export type MakeEvent = <T extends AguiEventType>(type: T, fields: EventFields<T>) => AguiEventOf<T>;

/** The `iac-code.session.v1` event, emitted by a run and by an observation alike (docs/protocol.md §4.9, §6.14). */
export function sessionEvent(make: MakeEvent, value: SessionValue): AguiEventOf<'CUSTOM'> {
  return make('CUSTOM', { name: CUSTOM_SESSION, value: { schemaVersion: 1, ...value } });
}

/** Builds events stamped by one clock with an integer timestamp; drops undefined and null fields. */
export function eventFactory(clock: Clock): MakeEvent {
  return <T extends AguiEventType>(type: T, fields: EventFields<T>): AguiEventOf<T> => {
    const event: Record<string, unknown> = { type, timestamp: Math.trunc(clock()) };
    // for…in, not Object.entries: no array per event on the relay's hot path (docs/architecture.md §2.3).
    for (const key in fields) {
      const value = (fields as Record<string, unknown>)[key];
      if (value !== undefined && value !== null) event[key] = value;
    }
    return event as AguiEventOf<T>;
  };
}

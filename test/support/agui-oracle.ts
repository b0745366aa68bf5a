/**
 * The official AG-UI oracle (docs/protocol.md §4): every event must parse with a strict copy of
 * @ag-ui/core 1.0's event schemas — the declared fields and no others, at any depth — and the
 * whole stream must pass @ag-ui/client's verifyEvents lifecycle rules.
 */
import { verifyEvents } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { from, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { strictDeep } from './strict-schema.js';

/** @ag-ui/core 1.0's discriminated union of events, every object in it closed. */
export const StrictEventSchemas = strictDeep(EventSchemas);

/** Throws, naming the event type and every offending path, when an event is not exactly AG-UI 1.0. */
export function assertValidAgUiEvent(event: Readonly<Record<string, unknown>>): void {
  const parsed = StrictEventSchemas.safeParse(event);
  if (!parsed.success) throw new Error(`event ${String(event['type'])} does not match @ag-ui/core 1.0:\n${z.prettifyError(parsed.error)}`);
}

export async function assertValidAgUiStream(events: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  for (const event of events) assertValidAgUiEvent(event);
  await lastValueFrom(from(events as never[]).pipe(verifyEvents(false), toArray()));
}

/**
 * The official AG-UI oracle: every event must parse with @ag-ui/core's schemas and the whole
 * stream must pass @ag-ui/client's verifyEvents lifecycle rules (SPEC §4).
 */
import { verifyEvents } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { from, lastValueFrom, toArray } from 'rxjs';

export async function assertValidAgUiStream(events: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    if (!parsed.success) throw new Error(`event ${String(event['type'])} does not match @ag-ui/core: ${parsed.error.message}`);
  }
  await lastValueFrom(from(events as never[]).pipe(verifyEvents(false), toArray()));
}

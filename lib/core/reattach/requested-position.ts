/**
 * Where a subscriber says it stands (docs/protocol.md §6.14, §6.15): the SSE `Last-Event-ID`
 * header, or the body's `afterSequence` when it is one of this adapter's event ids. iac-code's own
 * clients send `afterSequence` of other shapes, which mean nothing here and are ignored, as they
 * always were; a malformed `Last-Event-ID` is refused. Both at once must agree.
 */
import { AdapterError } from '../errors.js';
import { executionTag, type Position, parseEventId } from '../journal/position.js';

export function requestedPosition(header: string | null, afterSequence: unknown, executionId: string): Position | undefined {
  const tag = executionTag(executionId);
  const fromHeader = header !== null && header.trim() !== '' ? read(header, tag, 'Last-Event-ID') : undefined;
  const fromBody = typeof afterSequence === 'string' && parseEventId(afterSequence, tag).kind !== 'malformed' ? read(afterSequence, tag, 'afterSequence') : undefined;
  if (fromHeader && fromBody && (fromHeader.epoch !== fromBody.epoch || fromHeader.seq !== fromBody.seq || fromHeader.k !== fromBody.k)) {
    throw new AdapterError('INVALID_INPUT', 'conflictingEventIds', [
      { path: 'Last-Event-ID', message: 'Names another event than afterSequence.' },
      { path: 'afterSequence', message: 'Names another event than Last-Event-ID.' },
    ]);
  }
  return fromHeader ?? fromBody;
}

function read(value: string, tag: string, path: string): Position {
  const parsed = parseEventId(value, tag);
  if (parsed.kind === 'position') return parsed.position;
  if (parsed.kind === 'otherExecution') throw new AdapterError('EVENT_ID_MISMATCH', 'eventIdOtherExecution');
  throw new AdapterError('INVALID_INPUT', 'invalidEventId', [{ path, message: 'Not an event id of this adapter: <tag>.<epoch>.<seq>.<k>.' }]);
}

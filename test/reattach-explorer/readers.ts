/**
 * The explorer's readers (issue 26): a client of one run that reads its stream, cuts it at a chosen
 * kind of record, and reattaches with `Last-Event-ID` on a chosen instance — at once, after a
 * while, after the producer's lease expired, after the detach grace, or once the next run of the
 * execution (a resume) started — as often as its cuts say; a stream that ends without a terminal
 * event is reattached as a client would (a few times, while it still yields records). Every
 * connection is one segment: what it got and how it ended.
 */
import type { SseRecordWithId } from '../support/sse-records.js';

export type CutKind =
  | 'runStarted'
  | 'session'
  | 'textStart'
  | 'firstContent'
  | 'content'
  | 'textEnd'
  | 'toolStart'
  | 'toolArgs'
  | 'toolEnd'
  | 'toolResult'
  | 'reasoningStart'
  | 'reasoningContent'
  | 'reasoningEnd'
  | 'custom'
  | 'terminal'
  | 'anyRecord';

export const CUT_KINDS: readonly CutKind[] = [
  'runStarted',
  'session',
  'textStart',
  'textStart',
  'firstContent',
  'firstContent',
  'content',
  'textEnd',
  'toolStart',
  'toolArgs',
  'toolEnd',
  'toolResult',
  'reasoningStart',
  'reasoningContent',
  'reasoningEnd',
  'custom',
  'terminal',
  'anyRecord',
];

export type Wait = { kind: 'now' } | { kind: 'ms'; ms: number } | { kind: 'leaseExpired' } | { kind: 'graceOver' } | { kind: 'nextRun' };

/** Where a reattach goes: any instance up, another than the last one, or the same again. */
export type Where = 'random' | 'other' | 'same';

export interface Cut {
  kind: CutKind;
  /** The nth record of that kind in the connection (1 = the first). */
  nth: number;
  wait: Wait;
  where: Where;
}

export interface Segment {
  instance: string;
  /** The Last-Event-ID sent (undefined: the first connection, or a subscribe from the run's start). */
  lastEventId: string | undefined;
  status: number;
  /** The error code of a refusal before the stream. */
  code?: string;
  records: SseRecordWithId[];
  /** cut: by the reader; eof: the server ended it; broken: the connection failed; refused: an HTTP error; aborted: the explorer cut it (a frozen instance, the reader's deadline). */
  end: 'cut' | 'eof' | 'broken' | 'refused' | 'aborted';
}

const TERMINAL = new Set(['RUN_FINISHED', 'RUN_ERROR']);

export function isTerminal(record: SseRecordWithId | undefined): boolean {
  return record !== undefined && TERMINAL.has(record.event.type);
}

/** Whether `record` is of `kind`; `seen` tracks the messages whose first content went by. */
export function recordIs(kind: CutKind, record: SseRecordWithId, seen: Set<string>): boolean {
  const { type } = record.event;
  switch (kind) {
    case 'runStarted':
      return type === 'RUN_STARTED';
    case 'session':
      return type === 'CUSTOM' && record.event['name'] === 'iac-code.session.v1';
    case 'textStart':
      return type === 'TEXT_MESSAGE_START';
    case 'firstContent': {
      if (type !== 'TEXT_MESSAGE_CONTENT') return false;
      const id = String(record.event['messageId']);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    }
    case 'content':
      return type === 'TEXT_MESSAGE_CONTENT';
    case 'textEnd':
      return type === 'TEXT_MESSAGE_END';
    case 'toolStart':
      return type === 'TOOL_CALL_START';
    case 'toolArgs':
      return type === 'TOOL_CALL_ARGS';
    case 'toolEnd':
      return type === 'TOOL_CALL_END';
    case 'toolResult':
      return type === 'TOOL_CALL_RESULT';
    case 'reasoningStart':
      return type === 'REASONING_START' || type === 'REASONING_MESSAGE_START';
    case 'reasoningContent':
      return type === 'REASONING_MESSAGE_CONTENT';
    case 'reasoningEnd':
      return type === 'REASONING_MESSAGE_END' || type === 'REASONING_END';
    case 'custom':
      return type === 'CUSTOM';
    case 'terminal':
      return TERMINAL.has(type);
    case 'anyRecord':
      return true;
  }
}

/** Parses complete SSE records out of `text`; returns them and the unfinished rest. Comments (heartbeats) are skipped. */
export function parseRecords(text: string): { records: SseRecordWithId[]; rest: string } {
  const blocks = text.split('\n\n');
  const rest = blocks.pop() ?? '';
  const records: SseRecordWithId[] = [];
  for (const block of blocks) {
    let id = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (!data) continue;
    records.push({ id, data, event: JSON.parse(data) as SseRecordWithId['event'] });
  }
  return { records, rest };
}

/**
 * Reads one connection's records until it ends, or until `cut` (if any) matches — then closes it as a
 * proxy cutting it would. `abort` (the explorer's) ends it as `aborted`.
 */
export async function readSegment(
  response: Response,
  segment: Segment,
  cut: Cut | undefined,
  controller: AbortController,
  onRecord: (record: SseRecordWithId) => void,
): Promise<void> {
  const body = response.body;
  if (!body) {
    segment.end = 'eof';
    return;
  }
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const seen = new Set<string>();
  let matched = 0;
  let buffer = '';
  for (;;) {
    let chunk: { done: boolean; value?: Uint8Array | undefined };
    try {
      chunk = await reader.read();
    } catch {
      segment.end = controller.signal.aborted ? 'aborted' : 'broken';
      return;
    }
    if (chunk.done) {
      segment.end = 'eof';
      return;
    }
    buffer += decoder.decode(chunk.value as Uint8Array, { stream: true });
    const parsed = parseRecords(buffer);
    buffer = parsed.rest;
    for (const record of parsed.records) {
      segment.records.push(record);
      onRecord(record);
      if (cut && recordIs(cut.kind, record, seen)) {
        matched += 1;
        if (matched >= cut.nth) {
          segment.end = 'cut';
          controller.abort();
          await reader.cancel().catch(() => undefined);
          return;
        }
      }
    }
  }
}

/**
 * What this tab showed of a thread, kept in session storage so that a reload shows it again and a
 * reattached run (docs/protocol.md §6.14) continues where the page left off instead of starting
 * from an empty page: the person's messages (text only; an image is counted, not kept), each run's
 * AG-UI events together with the console's own notes about it (transcript/run-view.ts). Session storage only — it
 * goes away with the tab, like the token; the recent-threads list in local storage still holds
 * ids and settings only.
 *
 * Consecutive text, reasoning and tool-argument deltas of one message are stored merged, and a
 * thread's log is kept under MAX_CHARS by dropping its oldest entries, so a long run cannot fill
 * the origin's storage.
 */
import { CONSOLE_STATE, type EventRecord } from '../transcript/event-fields.js';

export interface LoggedRun {
  kind: 'run';
  runId: string;
  label: string;
  events: EventRecord[];
  /**
   * The SSE id of the last event of `events` that had one (docs/protocol.md §4.12): a reattach
   * continues after it with `Last-Event-ID` (§6.15). Kept with the events, so the two always agree.
   */
  lastEventId?: string;
  /** When the run's stream was lost (ms since the epoch), until it is picked up again. */
  awaySince?: number;
}

/** `at`: when the person sent it (ms since the epoch), shown beside it. An `answer` is one given to an interrupt's form. */
export type LoggedUser = { kind: 'user' | 'answer'; text: string; images: number; at?: number };

export type LoggedEntry = LoggedUser | { kind: 'note'; text: string } | LoggedRun;

const MAX_CHARS = 1_500_000;
const TRIMMED_NOTE = 'Earlier output of this thread was too long to keep in this tab.';
const keyOf = (threadId: string) => `iac-code-console.transcript.${threadId}`;

/** Drops what this tab kept of a thread (the thread was removed from the list). */
export function forgetTranscript(threadId: string): void {
  sessionStorage.removeItem(keyOf(threadId));
}

/** Deltas merged when consecutive: [event type, the field naming what they belong to]. */
const MERGED: Record<string, string> = { TEXT_MESSAGE_CONTENT: 'messageId', REASONING_MESSAGE_CONTENT: 'messageId', TOOL_CALL_ARGS: 'toolCallId' };

function isEntry(value: unknown): value is LoggedEntry {
  const entry = value as (Partial<LoggedRun> & { text?: unknown }) | null;
  if (typeof entry !== 'object' || entry === null) return false;
  if (entry.kind === 'run') return typeof entry.runId === 'string' && typeof entry.label === 'string' && Array.isArray(entry.events);
  return (entry.kind === 'user' || entry.kind === 'answer' || entry.kind === 'note') && typeof entry.text === 'string';
}

export class TranscriptLog {
  private entries: LoggedEntry[];

  constructor(private readonly threadId: string) {
    this.entries = TranscriptLog.load(threadId);
  }

  private static load(threadId: string): LoggedEntry[] {
    try {
      const parsed: unknown = JSON.parse(sessionStorage.getItem(keyOf(threadId)) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter(isEntry) : [];
    } catch {
      return [];
    }
  }

  get all(): readonly LoggedEntry[] {
    return this.entries;
  }

  user(kind: LoggedUser['kind'], text: string, images: number, at: number): LoggedUser {
    const entry: LoggedUser = { kind, text, images, at };
    this.entries.push(entry);
    return entry;
  }

  /** Takes back entries that never reached the adapter (a message refused for its token, re-sent once connected). */
  forget(...entries: LoggedEntry[]): void {
    this.entries = this.entries.filter((entry) => !entries.includes(entry));
  }

  note(text: string): void {
    this.entries.push({ kind: 'note', text });
  }

  startRun(runId: string, label: string): LoggedRun {
    const run: LoggedRun = { kind: 'run', runId, label, events: [] };
    this.entries.push(run);
    return run;
  }

  record(run: LoggedRun, event: EventRecord): void {
    const field = MERGED[event.type];
    const last = run.events[run.events.length - 1];
    // Only the latest footer state matters (reconnect attempts follow one another).
    if (event.type === CONSOLE_STATE && last?.type === CONSOLE_STATE) {
      run.events[run.events.length - 1] = { ...event };
      return;
    }
    if (field && last?.type === event.type && last[field] === event[field] && typeof last['delta'] === 'string' && typeof event['delta'] === 'string') {
      last['delta'] = `${last['delta']}${event['delta']}`;
      return;
    }
    run.events.push({ ...event });
  }

  /** Writes the log; its oldest entries go first when it is too long, and all of it when storage is full. */
  save(): void {
    const trimmed = (entry: LoggedEntry | undefined) => entry?.kind === 'note' && entry.text === TRIMMED_NOTE;
    let text = JSON.stringify(this.entries);
    while (text.length > MAX_CHARS) {
      const oldest = trimmed(this.entries[0]) ? 1 : 0;
      // The newest entry is kept whatever its size: it may be the run still on screen.
      if (this.entries.length - oldest <= 1) break;
      this.entries.splice(oldest, 1);
      if (!trimmed(this.entries[0])) this.entries.unshift({ kind: 'note', text: TRIMMED_NOTE });
      text = JSON.stringify(this.entries);
    }
    try {
      sessionStorage.setItem(keyOf(this.threadId), text);
    } catch {
      sessionStorage.removeItem(keyOf(this.threadId));
    }
  }
}

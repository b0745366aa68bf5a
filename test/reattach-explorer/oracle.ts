/**
 * The reattach explorer's oracle (issue 26; docs/protocol.md §6.15): judges one explored execution.
 *
 * For every reader, the concatenation of what it received across all its connections must be the
 * uncut reader's events — ids and payloads, none twice, none missing, one terminal event per run,
 * valid for @ag-ui/core's schemas and @ag-ui/client's verifyEvents — or, when the reader held events
 * of a dead branch (a takeover forked before them), the same events but for agent text, whose text
 * must be the same message for message; or the reader got a clear, documented error (HTTP 409
 * EVENT_ID_EXPIRED before the stream, or a RUN_ERROR the truth justifies). Never a silent gap, a
 * silent end, a repeat. The truth is the kernel's plan (explore-scenario.ts `expectedTurns`): every
 * reader's agent text is a prefix of its run's text, and all of it once the run ended normally.
 *
 * Per execution besides: no journal of a live or recently ended execution deleted (by the deleter's
 * clock), the journal still holds the newest run, no run stuck live, an id the journal cannot honour
 * on a live run refused. Secrets are judged over the whole store by `secretViolations`.
 */
import { JOURNAL_RETENTION_MS } from '../../lib/core/reattach/execution-logs.js';
import { assertValidAgUiEvent, assertValidAgUiStream } from '../support/agui-oracle.js';
import { type ReattachWorld, SECRET_MARK } from '../support/reattach-world.js';
import type { SseRecordWithId } from '../support/sse-records.js';
import { type ExecutionOutcome, onDeadBranch, type ReaderLog } from './explore.js';

export interface Violation {
  seed: number;
  kind: string;
  reader?: string;
  detail: string;
}

export interface Judgement {
  violations: Violation[];
  /** Readers that ended with a clear, documented error. */
  clearErrors: number;
  /** Span-neutral content (reasoning and argument deltas, tool progress) a reader of a dead branch holds or lacks: a documented limit (§6.15 "Limits"). */
  documentedLosses: number;
  readers: number;
  reattaches: number;
  runs: number;
  takeovers: number;
}

/** In-stream RUN_ERROR codes that are a clear, documented answer to a reader whatever the run did. */
export const CLEAR_ERROR_CODES = new Set(['EVENT_ID_EXPIRED']);
/** HTTP refusals before the stream that are a clear, documented answer to a reattach. */
export const CLEAR_REFUSALS = new Set(['EVENT_ID_EXPIRED']);

const PIPELINE_TEXT = /^pipeline-message:/;
const TEXT_TYPES = new Set(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']);
/** Content that changes no span: journaled in batches, so a dead branch may hold some a journal reader never sees. */
function spanNeutral(event: SseRecordWithId['event']): boolean {
  return (
    event.type === 'REASONING_MESSAGE_CONTENT' ||
    event.type === 'TOOL_CALL_ARGS' ||
    event.type === 'ACTIVITY_SNAPSHOT' ||
    (event.type === 'CUSTOM' && event['name'] === 'iac-code.tool-progress.v1')
  );
}

const TERMINAL = new Set(['RUN_FINISHED', 'RUN_ERROR']);

interface Chunk {
  runId: string;
  records: SseRecordWithId[];
  terminal: SseRecordWithId | undefined;
}

function recordsOf(reader: ReaderLog): SseRecordWithId[] {
  return reader.segments.flatMap((segment) => segment.records);
}

/** The reader's records split by run (each chunk from a RUN_STARTED). */
function chunksOf(records: readonly SseRecordWithId[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const record of records) {
    if (record.event.type === 'RUN_STARTED' || chunks.length === 0) chunks.push({ runId: String(record.event['runId'] ?? ''), records: [], terminal: undefined });
    const chunk = chunks.at(-1) as Chunk;
    chunk.records.push(record);
    if (TERMINAL.has(record.event.type)) chunk.terminal ??= record;
  }
  return chunks;
}

/** Agent text messages in the order they started, each with its text. */
function messagesOf(records: readonly SseRecordWithId[]): string[] {
  const order: string[] = [];
  const texts = new Map<string, string>();
  for (const { event } of records) {
    if (!TEXT_TYPES.has(event.type)) continue;
    const id = String(event['messageId']);
    if (PIPELINE_TEXT.test(id)) continue;
    if (!texts.has(id)) {
      texts.set(id, '');
      order.push(id);
    }
    if (event.type === 'TEXT_MESSAGE_CONTENT') texts.set(id, (texts.get(id) ?? '') + String(event['delta']));
  }
  return order.map((id) => texts.get(id) ?? '').filter((text) => text.length > 0);
}

function agentText(records: readonly SseRecordWithId[]): string {
  return messagesOf(records).join('');
}

function positionOf(id: string): [number, number] | undefined {
  const match = /^[0-9a-f]{10}\.(\d+)\.(\d+)\.(\d+)$/.exec(id);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

function snippet(text: string, at: number): string {
  return JSON.stringify(text.slice(Math.max(0, at - 20), at + 40));
}

function describeDivergence(got: string, want: string): string {
  let at = 0;
  while (at < got.length && got[at] === want[at]) at += 1;
  const missing = want.slice(at).indexOf(got.slice(at, at + 12));
  const shape = got.length > at && missing > 0 ? `a gap of ${missing} characters` : want.slice(0, at).includes(got.slice(at, at + 12)) ? 'a repeat' : 'other text';
  return `${shape} at character ${at} of ${want.length}: got ${snippet(got, at)}, expected ${snippet(want, at)}`;
}

function endOf(reader: ReaderLog): string {
  return reader.segments.map((segment) => `${segment.instance}:${segment.status}${segment.code ? `/${segment.code}` : ''}:${segment.records.length}:${segment.end}`).join(' ');
}

/** Judges one explored execution. */
export async function judge(outcome: ExecutionOutcome, world: ReattachWorld): Promise<Judgement> {
  const violations: Violation[] = [];
  const add = (kind: string, detail: string, reader?: ReaderLog): void => {
    violations.push({ seed: outcome.seed, kind, ...(reader ? { reader: reader.name } : {}), detail });
  };
  let clearErrors = 0;
  let documentedLosses = 0;
  const runIndex = new Map(outcome.runs.map((run, index) => [run.runId, index]));
  const swept = (world.sweptRuns.get(outcome.threadId) ?? 0) > 0;

  /** Whether the truth justifies a run ending with this RUN_ERROR. */
  const justified = (code: string, index: number): boolean => {
    if (CLEAR_ERROR_CODES.has(code)) return true;
    if (outcome.expected[index]?.end === 'failed' && code === 'A2A_EXECUTION_FAILED') return true;
    if ((code === 'CANCELLED' || code === 'A2A_UNAVAILABLE') && (outcome.cancelled || swept)) return true;
    return false;
  };

  /** The checks every reader's stream must pass on its own; returns whether it is sound to compare others with. */
  const checkReader = async (reader: ReaderLog): Promise<boolean> => {
    const violationsBefore = violations.length;
    let endedClear = false;
    const records = recordsOf(reader);
    for (const record of records) {
      try {
        assertValidAgUiEvent(record.event);
      } catch (error) {
        add('invalid-event', String((error as Error).message).split('\n')[0] as string, reader);
        break;
      }
    }
    const ids = new Set<string>();
    let previous: [number, number] | undefined;
    for (const record of records) {
      if (ids.has(record.id)) {
        add('duplicate', `${record.event.type} ${record.id} received twice (${endOf(reader)})`, reader);
        break;
      }
      ids.add(record.id);
      const position = positionOf(record.id);
      // The in-stream clear error carries an id of epoch 0, which no journal holds: it cannot be resumed from (protocol.md §6.15 "Errors").
      if (position?.[0] === 0 && record.event.type === 'RUN_ERROR' && CLEAR_ERROR_CODES.has(String(record.event['code']))) continue;
      if (previous && position && (position[0] < previous[0] || (position[0] === previous[0] && position[1] <= previous[1]))) {
        add('out-of-order', `${record.event.type} ${record.id} after ${previous.join('.')}`, reader);
        break;
      }
      previous = position ?? previous;
    }
    try {
      await assertValidAgUiStream(records.map((record) => record.event));
    } catch (error) {
      add('verify-events', `${String((error as Error).message).split('\n')[0]} (${endOf(reader)})`, reader);
    }
    const chunks = chunksOf(records);
    for (const chunk of chunks) {
      const index = runIndex.get(chunk.runId);
      const expected = index === undefined ? undefined : outcome.expected[index];
      // A reader from the run's start told at once that the journal holds none of the run: a clear error.
      const only = chunk.records.length === 1 && chunk.runId === '' ? chunk.terminal?.event : undefined;
      if (only?.type === 'RUN_ERROR' && CLEAR_ERROR_CODES.has(String(only['code']))) {
        clearErrors += 1;
        continue;
      }
      if (index === undefined || !expected) {
        add('unknown-run', `a run ${chunk.runId} the explorer never started`, reader);
        continue;
      }
      const terminals = chunk.records.filter((record) => TERMINAL.has(record.event.type));
      if (terminals.length > 1) add('two-terminals', `${terminals.map((record) => record.event.type).join(', ')} in run ${index}`, reader);
      const text = agentText(chunk.records);
      const terminal = chunk.terminal?.event;
      const normalEnd =
        terminal?.type === 'RUN_FINISHED'
          ? ((terminal['outcome'] as { type?: string } | undefined)?.type ?? 'success') === (expected.end === 'interrupt' ? 'interrupt' : 'success') && expected.end !== 'failed'
          : terminal?.type === 'RUN_ERROR' && expected.end === 'failed' && terminal['code'] === 'A2A_EXECUTION_FAILED';
      // What the text had to do with it: the kernel's way of keeping it, a reattach right after a TEXT_MESSAGE_START.
      const starts = new Set(chunk.records.filter((record) => record.event.type === 'TEXT_MESSAGE_START').map((record) => record.id));
      const failure = outcome.plan.steps.find((step) => step.kind === 'fail');
      // A failure the kernel reported and closed while no producer read the stream: the task shows a closed turn with the
      // reason as agent text — a documented limit (docs/design/reattach.md "Known limits"), not a violation.
      if (failure?.kind === 'fail' && expected.end === 'failed' && text.startsWith(expected.text) && text.slice(expected.text.length).startsWith(failure.reason.slice(0, 20))) {
        documentedLosses += 1;
        continue;
      }
      const why = `${failure?.kind === 'fail' && text.includes(failure.reason) ? "; the kernel's failure reason arrived as agent text" : ''}${outcome.plan.history === 'growing' ? '; the task history grows in place' : ''}${reader.segments.some((segment) => segment.lastEventId && starts.has(segment.lastEventId)) ? '; reattached with the id of a TEXT_MESSAGE_START' : ''}`;
      if (!expected.text.startsWith(text)) add('text-diverges', `run ${index}: ${describeDivergence(text, expected.text)}${why} (${endOf(reader)})`, reader);
      else if (normalEnd && text !== expected.text)
        add(
          'text-incomplete',
          `run ${index} ended ${terminal?.type} with ${text.length} of ${expected.text.length} characters; the rest starts ${snippet(expected.text, text.length)}${why} (${endOf(reader)})`,
          reader,
        );
      if (terminal?.type === 'RUN_FINISHED' && !normalEnd)
        add('wrong-end', `run ${index} ended RUN_FINISHED ${JSON.stringify(terminal['outcome'] ?? null)}; the kernel's turn ends ${expected.end}`, reader);
      if (terminal?.type === 'RUN_ERROR' && !justified(String(terminal['code']), index)) {
        add(
          'false-run-error',
          `run ${index} ended RUN_ERROR ${String(terminal['code'])} "${String(terminal['message']).slice(0, 80)}" while the task went on (kernel: ${outcome.taskState}, cancelled: ${outcome.cancelled}, swept: ${swept})`,
          reader,
        );
      } else if (terminal?.type === 'RUN_ERROR' && CLEAR_ERROR_CODES.has(String(terminal['code']))) {
        clearErrors += 1;
        // A reader that could not be given the rest is no measure for one that was (past the cap, the producer's own caller).
        endedClear = true;
      }
    }
    // How the reader ended: a terminal event of its last run, a clear refusal, or a violation.
    const last = reader.segments.at(-1);
    const lastChunk = chunks.at(-1);
    if (last?.end === 'refused') {
      // A reader holding nothing, whose subscribe without an id finds no live task: the observation rules' documented 404 (§6.14).
      const heldNothing = records.length === 0 && last.lastEventId === undefined && last.code === 'EXECUTION_NOT_FOUND';
      if (CLEAR_REFUSALS.has(last.code ?? '') || heldNothing) clearErrors += 1;
      else add('refused', `HTTP ${last.status} ${last.code ?? ''} on ${last.lastEventId ? `a reattach with ${last.lastEventId}` : 'a connection'} (${endOf(reader)})`, reader);
    } else if (!lastChunk?.terminal) {
      const kind = reader.gaveUp === 'deadline' ? 'reader-hung' : 'silent-end';
      add(
        kind,
        `the stream ended without a terminal event after ${records.length} records (last ${records.at(-1)?.event.type ?? 'none'}) and reattaching gave nothing more (${endOf(reader)})`,
        reader,
      );
    }
    return violations.length === violationsBefore && !endedClear && (last?.end !== 'refused' || reader.role === 'reference');
  };

  const references = new Map<number, { reader: ReaderLog; sound: boolean }>();
  for (const [index, reference] of outcome.references) references.set(index, { reader: reference, sound: await checkReader(reference) });

  let reattaches = 0;
  for (const reader of outcome.readers) {
    reattaches += reader.segments.filter((segment) => segment.lastEventId !== undefined).length;
    if (reader.role === 'reference') continue;
    if (reader.role === 'forged') {
      const segment = reader.segments[0];
      if (!segment) continue;
      // Never answered: its instance was killed or frozen under it (the producer's fate) — it measures nothing.
      if (segment.status === 0 && segment.end !== 'refused') continue;
      if (segment.end === 'refused' && CLEAR_REFUSALS.has(segment.code ?? '')) {
        clearErrors += 1;
        continue;
      }
      // On a live run produced elsewhere an id past its journal may be one not journaled yet: the reader waits, and gets the
      // in-stream clear error once the run ends short of it (protocol.md §6.15 "Errors").
      const only = segment.records.length === 1 ? segment.records[0]?.event : undefined;
      if (only?.type === 'RUN_ERROR' && CLEAR_ERROR_CODES.has(String(only['code']))) {
        clearErrors += 1;
        continue;
      }
      const first = segment.records[0]?.event.type;
      add(
        'forged-id-honoured',
        `${reader.forged} id ${segment.lastEventId} on a live run: HTTP ${segment.status}${segment.code ? ` ${segment.code}` : ''}, ${segment.records.length} events${first ? ` from ${first}` : ''}, ${segment.records.some((record) => TERMINAL.has(record.event.type)) ? 'with' : 'without'} a terminal event`,
        reader,
      );
      continue;
    }
    await checkReader(reader);
    // Against the uncut reader of each run it read.
    for (const chunk of chunksOf(recordsOf(reader))) {
      const index = runIndex.get(chunk.runId);
      const reference = index === undefined ? undefined : references.get(index);
      if (!reference?.sound || index === undefined) continue;
      const uncut = chunksOf(recordsOf(reference.reader)).find((candidate) => candidate.runId === chunk.runId);
      if (!uncut?.terminal) continue;
      // Epoch 0: an observation from the kernel's snapshot (the journal did not hold the run's start), no part of the journal's order (§6.15).
      const observed = (records: readonly SseRecordWithId[]) => records.some((record) => positionOf(record.id)?.[0] === 0);
      if (observed(chunk.records) || observed(uncut.records)) continue;
      const complete = chunk.terminal !== undefined;
      // Compared by the journal's order: records it does not hold (a dead branch, or never journaled) are a fork's.
      // Only while the journal still holds the run (a deleted journal is judged on its own, below).
      if (!outcome.journalRunStarts.has(uncut.records[0]?.id ?? '')) continue;
      // Compared by the journal's order: what lies on a dead branch (after a takeover's fork point) is a fork's.
      const live = (record: SseRecordWithId): boolean => !onDeadBranch(outcome.forks, record.id);
      const forked = !chunk.records.every(live);
      if (!forked) {
        const wanted = uncut.records.filter(live);
        const limit = complete ? Math.max(chunk.records.length, wanted.length) : chunk.records.length;
        for (let at = 0; at < limit; at += 1) {
          const got = chunk.records[at];
          const want = wanted[at];
          if (got?.id !== want?.id || got?.data !== want?.data) {
            add(
              'differs-from-uncut',
              `run ${index}, record ${at}: got ${got ? `${got.event.type} ${got.id}` : 'nothing'}, the uncut reader ${want ? `${want.event.type} ${want.id}` : 'nothing'} (${endOf(reader)})`,
              reader,
            );
            break;
          }
        }
        continue;
      }
      // A dead branch: the same events but for agent text (regenerated) and span-neutral content; the same text message for message.
      // A RUN_STARTED goes out before it is journaled (durability.ts): a reader on a dead branch may hold its
      // producer's, which the takeover started again at another time — the same start but for its timestamp.
      const structural = (records: readonly SseRecordWithId[]) =>
        records
          .filter((record) => !TEXT_TYPES.has(record.event.type) && !spanNeutral(record.event))
          .map((record) => (record.event.type === 'RUN_STARTED' ? JSON.stringify({ ...record.event, timestamp: undefined }) : record.data));
      // A reader refused the rest (EVENT_ID_EXPIRED) holds what its producer streamed past a journal
      // that failed — span events too, which no takeover repeats: only what lies before the fork is measured.
      const last = reader.segments.at(-1);
      const refusedRest = !complete && last?.end === 'refused' && CLEAR_REFUSALS.has(last.code ?? '');
      const got = structural(refusedRest ? chunk.records.filter(live) : chunk.records);
      const want = structural(uncut.records.filter(live));
      const limit = complete ? Math.max(got.length, want.length) : got.length;
      for (let at = 0; at < limit; at += 1) {
        if (got[at] !== want[at]) {
          add(
            'differs-after-fork',
            `run ${index}, event ${at} but for text: got ${got[at]?.slice(0, 120) ?? 'nothing'}, the uncut reader ${want[at]?.slice(0, 120) ?? 'nothing'} (${endOf(reader)})`,
            reader,
          );
          break;
        }
      }
      const gotMessages = messagesOf(chunk.records);
      const wantMessages = messagesOf(uncut.records);
      if (complete && JSON.stringify(gotMessages) !== JSON.stringify(wantMessages)) {
        add(
          'messages-differ-after-fork',
          `run ${index}: ${gotMessages.length} messages ${JSON.stringify(gotMessages.map((text) => text.length))} against the uncut reader's ${JSON.stringify(wantMessages.map((text) => text.length))} (${endOf(reader)})`,
          reader,
        );
      }
      const neutral = (records: readonly SseRecordWithId[]) => records.filter((record) => spanNeutral(record.event)).length;
      if (neutral(chunk.records) !== neutral(uncut.records)) documentedLosses += 1;
    }
  }

  // The journal: never deleted while a run of the execution is live or within its retention after the last one ended.
  for (const removal of world.removals) {
    if (removal.executionId !== outcome.executionId) continue;
    const live = outcome.runs.find((run) => run.startedAt !== undefined && run.startedAt <= removal.worldAt && (run.settledAt === undefined || removal.worldAt < run.settledAt));
    if (live) add('journal-deleted-while-live', `${removal.instance} deleted the journal while run ${outcome.runs.indexOf(live)} was live`);
    const lastEnd = Math.max(...outcome.runs.map((run) => (run.settledAt !== undefined && run.settledAt <= removal.worldAt ? run.settledAt : Number.NEGATIVE_INFINITY)));
    if (Number.isFinite(lastEnd) && removal.at < lastEnd + JOURNAL_RETENTION_MS - 1_000) {
      add(
        'journal-deleted-early',
        `${removal.instance} deleted the journal ${((removal.at - lastEnd) / 1_000).toFixed(1)} s (by its clock) after the execution's last run ended; it is kept ${JOURNAL_RETENTION_MS / 1_000} s`,
      );
    }
  }
  const lastStart = outcome.references.get(outcome.runs.length - 1);
  const lastStartId = lastStart ? recordsOf(lastStart).find((record) => record.event.type === 'RUN_STARTED')?.id : undefined;
  if (!outcome.journalFaults && lastStartId && outcome.executionId && !outcome.journalRunStarts.has(lastStartId))
    add('journal-lost-run', `the journal no longer holds the newest run's start (${lastStartId})`);
  for (const note of outcome.notes) if (note.includes('never released')) add('run-stuck', note);
  // Abandoned: the caller left at once and nobody came back; the kernel then paused past the grace. A sweeper must have ended the run.
  const abandoned = outcome.fate === 'abandon' ? references.get(0) : undefined;
  const abandonedEnd = abandoned ? chunksOf(recordsOf(abandoned.reader)).find((chunk) => chunk.runId === outcome.runs[0]?.runId)?.terminal : undefined;
  if (abandonedEnd?.event.type === 'RUN_FINISHED') {
    add(
      'detached-run-not-swept',
      `the caller left at the run's start and nobody came back; the grace (${world.options.detachGraceMs} ms) ended during a ${world.options.detachGraceMs + 4_000} ms pause of the kernel, yet no sweeper ended the run: it ran on to RUN_FINISHED (sweeps that ended a run: ${world.sweptRuns.get(outcome.threadId) ?? 0})`,
    );
  }

  return {
    violations,
    clearErrors,
    documentedLosses,
    readers: outcome.readers.length,
    reattaches,
    runs: outcome.runs.filter((run) => run.startedAt !== undefined).length,
    takeovers: world.takeovers.get(outcome.threadId) ?? 0,
  };
}

/** Secrets in the store (thread documents, journal, due list) and in the logs, by the seed whose request carried them. */
export async function secretViolations(world: ReattachWorld): Promise<Violation[]> {
  const found: Violation[] = [];
  const seedOf = (text: string, at: number): number => Number(/-s(\d+)-/.exec(text.slice(at, at + 40))?.[1] ?? -1);
  for (const { name, text } of await world.storedTexts()) {
    const at = text.indexOf(SECRET_MARK);
    // The documented limit above: the kernel's failure reason (which the emulator, unlike iac-code, does not sanitise) taken
    // for agent text by a takeover that found the turn closed.
    const missedFailure = name.includes('journal/') && text.slice(Math.max(0, at - 200), at).includes('refused the request') && text.includes('TEXT_MESSAGE_CONTENT');
    if (at >= 0 && !missedFailure) found.push({ seed: seedOf(text, at), kind: 'secret-stored', detail: `${name}: …${text.slice(Math.max(0, at - 60), at + 40)}…` });
  }
  for (const { instance, line } of world.leakedLogLines) {
    const at = line.indexOf(SECRET_MARK);
    found.push({ seed: seedOf(line, at), kind: 'secret-logged', detail: `${instance}: …${line.slice(Math.max(0, at - 80), at + 40)}…` });
  }
  return found;
}

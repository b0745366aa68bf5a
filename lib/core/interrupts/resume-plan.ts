/**
 * Reconciling pending interrupts with the kernel's task snapshot, and deciding what a resume does
 * (docs/protocol.md §5.5). Pure: the run orchestration executes the plan.
 */
import type { ErrorCode } from '../errors.js';
import type { MessageKey } from '../i18n/catalogue.js';
import type { ResumeEntry } from '../protocol/schemas.js';
import type { PendingInterrupt } from '../thread/document.js';
import { mergePending } from '../thread/interrupt-transitions.js';
import { answerDigest, answerText, isValidAnswer } from './answers.js';
import type { RequiredInput } from './inputs.js';
import { isPermission } from './interrupt-object.js';
import { isResourceSelection, selectorProblem } from './resource-selection.js';

export interface SnapshotInputs {
  inputs: RequiredInput[];
  /** The snapshot carried `input` or `pendingPermissions` at all (an empty list counts). */
  hasProjection: boolean;
}

/**
 * Late revision: the snapshot replaces pending only when it carries a projection and none of the
 * ids being answered is pending; otherwise it is merged in. A snapshot without any projection (a
 * restarted kernel) never erases a durable interrupt. Answers already applied are dropped.
 */
export function reconcilePending(pending: readonly PendingInterrupt[], snapshot: SnapshotInputs, answering: ReadonlySet<string>, applied: ReadonlySet<string>): PendingInterrupt[] {
  const answeringPending = pending.some((item) => answering.has(item.id));
  const base = snapshot.hasProjection && !answeringPending ? [] : pending;
  const sidebandBefore = new Map(pending.map((item) => [item.id, item.sideband]));
  const merged = mergePending(base, snapshot.inputs).map((item) => ({ ...item, sideband: item.sideband || sidebandBefore.get(item.id) === true }));
  return merged.filter((item) => !applied.has(item.id));
}

export interface Answer {
  pending: PendingInterrupt;
  entry: ResumeEntry;
  digest: string;
  /** The text sent for a question or option choice (a resource selection's is built at delivery, prompt-answer.ts). */
  text: string | undefined;
}

export type ResumePlan =
  | { kind: 'fail'; code: ErrorCode; key: MessageKey }
  /** Only interrupts the caller could not have known are unanswered: announce them, send nothing. */
  | { kind: 'moreInterrupts' }
  /** A question or option interrupt was cancelled: cancel the A2A task — never for a resource selection, which is delivered as `canceled` (docs/protocol.md §5.8). */
  | { kind: 'cancelTask' }
  | { kind: 'deliver'; answers: Answer[] };

export interface PlanInput {
  entries: readonly ResumeEntry[];
  /** Pending after reconciliation. */
  pending: readonly PendingInterrupt[];
  /** Ids that were pending in the thread document before this resume (the caller knew them). */
  knownBefore: ReadonlySet<string>;
  /** interruptId → digest of the accepted answer, for the current execution. */
  applied: ReadonlyMap<string, string>;
}

export function planResume(input: PlanInput): ResumePlan {
  const fail = (code: ErrorCode, key: MessageKey): ResumePlan => ({ kind: 'fail', code, key });
  if (input.entries.length === 0) return fail('INCOMPLETE_RESUME', 'incompleteResume');
  const ids = input.entries.map((entry) => entry.interruptId);
  if (new Set(ids).size !== ids.length) return fail('INCOMPLETE_RESUME', 'duplicateInterruptIds');

  const pendingById = new Map(input.pending.map((item) => [item.id, item]));
  const answers: Answer[] = [];
  for (const entry of input.entries) {
    const pending = pendingById.get(entry.interruptId);
    const digest = answerDigest(entry);
    if (pending) {
      answers.push({ pending, entry, digest, text: undefined });
      continue;
    }
    const applied = input.applied.get(entry.interruptId);
    if (applied === undefined) return fail('UNKNOWN_INTERRUPT', 'unknownInterrupt');
    if (applied !== digest) return fail('RESUME_ALREADY_APPLIED', 'resumeAlreadyApplied');
  }

  const answered = new Set(ids);
  const unanswered = input.pending.filter((item) => !answered.has(item.id));
  if (unanswered.some((item) => input.knownBefore.has(item.id))) return fail('INCOMPLETE_RESUME', 'incompleteResume');
  if (unanswered.length > 0) return { kind: 'moreInterrupts' };

  for (const answer of answers) {
    if (!isValidAnswer(answer.pending, answer.entry)) return fail('RESUME_PAYLOAD_INVALID', 'resumePayloadInvalid');
    if (isResourceSelection(answer.pending.input)) {
      // The kernel could not match the answer to its selector: refused before anything is sent.
      if (selectorProblem(answer.pending.input)) return fail('A2A_PROTOCOL_ERROR', 'a2aProtocolError');
      continue;
    }
    if (!isPermission(answer.pending.input) && answer.entry.status === 'resolved') {
      answer.text = answerText(answer.pending, answer.entry.payload);
      if (!answer.text) return fail('RESUME_PAYLOAD_INVALID', 'resumeNoAnswer');
    }
  }
  if (answers.length === 0) return fail('RESUME_ALREADY_APPLIED', 'resumeAlreadyApplied');
  // A cancelled question cancels the task; a cancelled resource selection is delivered as `canceled`.
  if (answers.some((answer) => answer.entry.status === 'cancelled' && !isPermission(answer.pending.input) && !isResourceSelection(answer.pending.input))) {
    return { kind: 'cancelTask' };
  }
  return { kind: 'deliver', answers };
}

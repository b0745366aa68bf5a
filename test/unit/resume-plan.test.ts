/**
 * Resume planning (lib/core/interrupts/resume-plan.ts; docs/protocol.md §5): which resumes fail
 * with which code, when the A2A task is cancelled instead, what is delivered — a cancelled
 * permission is a deny — and how pending interrupts are reconciled with the kernel's snapshot.
 */
import { describe, expect, it } from 'vitest';
import { answerDigest, permissionDecision } from '../../lib/core/interrupts/answers.js';
import type { RequiredInput } from '../../lib/core/interrupts/inputs.js';
import { isPermission } from '../../lib/core/interrupts/interrupt-object.js';
import { planResume, type ResumePlan, reconcilePending } from '../../lib/core/interrupts/resume-plan.js';
import type { ResumeEntry } from '../../lib/core/protocol/schemas.js';
import type { PendingInterrupt } from '../../lib/core/thread/document.js';

const permission = (id = 'perm-1'): PendingInterrupt => ({ id, input: { kind: 'permission', toolUseId: `tool-${id}` }, sideband: false });

const question = (id = 'question-1', allowFreeText = true): PendingInterrupt => ({
  id,
  input: {
    kind: 'ask_user_question',
    prompt: 'Which plan?',
    options: [
      { id: 'plan-a', label: 'Plan A' },
      { id: 'plan-b', label: 'Plan B' },
    ],
    allowFreeText,
  },
  sideband: false,
});

const resolved = (interruptId: string, payload?: unknown): ResumeEntry =>
  payload === undefined ? { interruptId, status: 'resolved' } : { interruptId, status: 'resolved', payload };
const cancelled = (interruptId: string): ResumeEntry => ({ interruptId, status: 'cancelled' });
const allow = (interruptId = 'perm-1') => resolved(interruptId, { decision: 'allow_once' });

interface Situation {
  /** Pending after reconciliation; default one permission. */
  pending?: PendingInterrupt[];
  /** Ids pending in the stored document before this resume; default every pending id. */
  knownBefore?: string[];
  /** Answers already accepted in this execution. */
  applied?: ResumeEntry[];
}

function plan(entries: ResumeEntry[], situation: Situation = {}): ResumePlan {
  const pending = situation.pending ?? [permission()];
  return planResume({
    entries,
    pending,
    knownBefore: new Set(situation.knownBefore ?? pending.map((item) => item.id)),
    applied: new Map((situation.applied ?? []).map((entry) => [entry.interruptId, answerDigest(entry)])),
  });
}

/** A plan as comparable data: each delivered answer as its interrupt id, permission decision and question text. */
function summary(result: ResumePlan) {
  if (result.kind !== 'deliver') return result;
  return {
    kind: result.kind,
    answers: result.answers.map((answer) => ({
      id: answer.pending.id,
      decision: isPermission(answer.pending.input) ? permissionDecision(answer.entry) : undefined,
      text: answer.text,
    })),
  };
}

describe('planResume fails', () => {
  it.each<[string, ResumeEntry[], Situation, string, string]>([
    ['an empty resume', [], {}, 'INCOMPLETE_RESUME', 'incompleteResume'],
    ['one interrupt answered twice', [allow(), allow()], {}, 'INCOMPLETE_RESUME', 'duplicateInterruptIds'],
    ['a resume leaving a known interrupt unanswered', [allow('perm-1')], { pending: [permission('perm-1'), permission('perm-2')] }, 'INCOMPLETE_RESUME', 'incompleteResume'],
    ['an answer to an interrupt never pending', [allow('perm-9')], {}, 'UNKNOWN_INTERRUPT', 'unknownInterrupt'],
    ['an unknown id beside a valid answer', [allow(), allow('perm-9')], {}, 'UNKNOWN_INTERRUPT', 'unknownInterrupt'],
    ['an unknown id before an invalid payload is looked at', [resolved('perm-1', { decision: 'always' }), allow('perm-9')], {}, 'UNKNOWN_INTERRUPT', 'unknownInterrupt'],
    [
      'another answer to an interrupt already answered',
      [resolved('perm-0', { decision: 'deny' })],
      { pending: [], applied: [allow('perm-0')] },
      'RESUME_ALREADY_APPLIED',
      'resumeAlreadyApplied',
    ],
    [
      'another answer to an interrupt already answered, even beside a new answer',
      [resolved('perm-0', { decision: 'deny' }), allow('perm-1')],
      { applied: [allow('perm-0')] },
      'RESUME_ALREADY_APPLIED',
      'resumeAlreadyApplied',
    ],
    ['the accepted answer repeated, with nothing new to deliver', [allow('perm-0')], { pending: [], applied: [allow('perm-0')] }, 'RESUME_ALREADY_APPLIED', 'resumeAlreadyApplied'],
    ['a permission decision outside the schema', [resolved('perm-1', { decision: 'always' })], {}, 'RESUME_PAYLOAD_INVALID', 'resumePayloadInvalid'],
    ['a permission answer with an extra key', [resolved('perm-1', { decision: 'deny', reason: 'no' })], {}, 'RESUME_PAYLOAD_INVALID', 'resumePayloadInvalid'],
    ['a resolved answer without a payload', [resolved('perm-1')], {}, 'RESUME_PAYLOAD_INVALID', 'resumePayloadInvalid'],
    [
      'a question answered with an option it does not offer',
      [resolved('question-1', { selectedId: 'plan-z' })],
      { pending: [question()] },
      'RESUME_PAYLOAD_INVALID',
      'resumePayloadInvalid',
    ],
    ['a question answered with empty free text', [resolved('question-1', { freeText: '' })], { pending: [question()] }, 'RESUME_PAYLOAD_INVALID', 'resumePayloadInvalid'],
    [
      'free text for a question that allows only its options',
      [resolved('question-1', { freeText: 'my own plan' })],
      { pending: [question('question-1', false)] },
      'RESUME_PAYLOAD_INVALID',
      'resumePayloadInvalid',
    ],
  ])('%s', (_case, entries, situation, code, key) => {
    // Act
    const result = plan(entries, situation);

    // Assert
    expect(result).toEqual({ kind: 'fail', code, key });
  });
});

describe('planResume decides', () => {
  it.each<[string, ResumeEntry[], Situation, ReturnType<typeof summary>]>([
    ['to deliver an allowed permission', [allow()], {}, { kind: 'deliver', answers: [{ id: 'perm-1', decision: 'allow_once', text: undefined }] }],
    ['to deliver a denied permission', [resolved('perm-1', { decision: 'deny' })], {}, { kind: 'deliver', answers: [{ id: 'perm-1', decision: 'deny', text: undefined }] }],
    [
      'a cancelled permission as a deny, without cancelling the task',
      [cancelled('perm-1')],
      {},
      { kind: 'deliver', answers: [{ id: 'perm-1', decision: 'deny', text: undefined }] },
    ],
    [
      'to deliver a chosen option as its label',
      [resolved('question-1', { selectedId: 'plan-b' })],
      { pending: [question()] },
      { kind: 'deliver', answers: [{ id: 'question-1', decision: undefined, text: 'Plan B' }] },
    ],
    [
      'to deliver free text as itself',
      [resolved('question-1', { freeText: 'two zones' })],
      { pending: [question()] },
      { kind: 'deliver', answers: [{ id: 'question-1', decision: undefined, text: 'two zones' }] },
    ],
    ['to cancel the task for a cancelled question', [cancelled('question-1')], { pending: [question()] }, { kind: 'cancelTask' }],
    [
      'to cancel the task when a question is cancelled beside an allowed permission',
      [allow(), cancelled('question-1')],
      { pending: [permission(), question()] },
      { kind: 'cancelTask' },
    ],
    [
      'to deliver every answer, in the order given',
      [allow('perm-2'), cancelled('perm-1')],
      { pending: [permission('perm-1'), permission('perm-2')] },
      {
        kind: 'deliver',
        answers: [
          { id: 'perm-2', decision: 'allow_once', text: undefined },
          { id: 'perm-1', decision: 'deny', text: undefined },
        ],
      },
    ],
    [
      'to skip a repeated accepted answer and deliver the new one',
      [allow('perm-0'), allow('perm-1')],
      { applied: [allow('perm-0')] },
      { kind: 'deliver', answers: [{ id: 'perm-1', decision: 'allow_once', text: undefined }] },
    ],
    [
      'to announce interrupts the caller could not know, sending nothing',
      [allow('perm-1')],
      { pending: [permission('perm-1'), permission('perm-new')], knownBefore: ['perm-1'] },
      { kind: 'moreInterrupts' },
    ],
  ])('%s', (_case, entries, situation, expected) => {
    // Act
    const result = plan(entries, situation);

    // Assert
    expect(summary(result)).toEqual(expected);
  });
});

describe('reconcilePending', () => {
  const input = (id: string, sideband = false): RequiredInput => ({ id, input: { kind: 'permission', toolUseId: `tool-${id}` }, sideband });
  const stored = (id: string, sideband = false): PendingInterrupt => ({ ...permission(id), sideband });

  it.each<[string, PendingInterrupt[], { inputs: RequiredInput[]; hasProjection: boolean }, string[], string[], Array<[string, boolean]>]>([
    ['replaces pending with the snapshot when nothing answered is pending', [stored('old')], { inputs: [input('new')], hasProjection: true }, [], [], [['new', false]]],
    ['clears pending for an empty projection when nothing answered is pending', [stored('old')], { inputs: [], hasProjection: true }, [], [], []],
    [
      'merges the snapshot into pending when an answered interrupt is pending',
      [stored('a')],
      { inputs: [input('b')], hasProjection: true },
      ['a'],
      [],
      [
        ['a', false],
        ['b', false],
      ],
    ],
    ['never erases a durable interrupt for a snapshot without projection (a restarted kernel)', [stored('a')], { inputs: [], hasProjection: false }, [], [], [['a', false]]],
    ['drops interrupts whose answer was already accepted', [stored('a'), stored('b')], { inputs: [], hasProjection: false }, [], ['a'], [['b', false]]],
    ['keeps an interrupt sideband once it was seen so', [stored('a', true)], { inputs: [input('a', false)], hasProjection: true }, [], [], [['a', true]]],
    ['upgrades an interrupt to sideband when the snapshot says so', [stored('a')], { inputs: [input('a', true)], hasProjection: true }, ['a'], [], [['a', true]]],
  ])('%s', (_case, pending, snapshot, answering, applied, expected) => {
    // Act
    const result = reconcilePending(pending, snapshot, new Set(answering), new Set(applied));

    // Assert
    expect(result.map((item) => [item.id, item.sideband])).toEqual(expected);
  });
});

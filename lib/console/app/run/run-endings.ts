/**
 * What the end of a run's stream means for the page (pure, so it is unit-tested without a
 * browser): whether the live-run record is forgotten, which interrupts are pending from now on,
 * what the run's footer and the status line say when no terminal event says it, where a refused
 * answer is shown, and whether the page asks the adapter again what still waits.
 *
 * - RUN_FINISHED: its interrupts are the pending ones (docs/protocol.md §4.11); an observed run the
 *   person cancelled reads as cancelled (an observation reports a cancel as RUN_FINISHED, §6.14).
 * - RUN_ERROR after a resume with a retryable code: the interrupts stay and the refusal is shown in
 *   their panel (§5.5); if the code says the forms are stale, the page checks again. Any other
 *   RUN_ERROR ends what was pending.
 * - RUN_ERROR CANCELLED in a reattached stream that this page did not cancel: cancelled while away.
 * - 404 / 409 from subscribe: nothing is left to watch / another execution started — said plainly.
 * - A connection lost for good: the record stays when a reload could still reattach.
 */
import type { Interrupt } from '@ag-ui/client';
import type { Failure } from '../../../client/failures.js';
import { MAX_ATTEMPTS, type ReattachEnd } from '../../../client/reattach-policy.js';
import { obj, str } from '../transcript/event-fields.js';

/** RUN_ERROR codes after which the interrupts are still pending and may be answered again (docs/protocol.md §2, §5). */
const RETRYABLE_RESUME_CODES = new Set(['RESUME_PAYLOAD_INVALID', 'UNKNOWN_INTERRUPT', 'INCOMPLETE_RESUME', 'RESUME_ALREADY_APPLIED', 'SESSION_BACKUP_NOT_READY']);
/**
 * Of those, the ones that say the forms on screen are not what the thread has pending (answered
 * elsewhere, unknown, or more of them, §5.5): the page then asks the adapter what still waits.
 */
const STALE_FORMS_CODES = new Set(['UNKNOWN_INTERRUPT', 'INCOMPLETE_RESUME', 'RESUME_ALREADY_APPLIED']);

/** A cancel reads the same however it ended the stream: the run's own RUN_ERROR CANCELLED says "Cancelled" too. */
const CANCELLED_FOOTER = { text: 'Cancelled', state: 'cancelled' } as const;

const CANCELLED_CODE = 'CANCELLED';
const CANCELLED_AWAY =
  'The run was cancelled while this page was away — by another client, or by the adapter because nobody read it (without a detach grace, docs/protocol.md §6.8).';

/** How a run's stream ended: as the reattach loop says, or before it could start. */
export type RunEnd = ReattachEnd | { kind: 'not-run' | 'lost'; failure: Failure };

/** What the stream was: a new turn, an answer, a run reattached after a reload, a check of what waits, a thread opened from another tab. */
export type RunOrigin = 'turn' | 'resume' | 'reload' | 'check' | 'elsewhere';

export interface EndingPlan {
  /** Clear the live-run record: there is nothing a reload could reattach to. */
  forget: boolean;
  /** The interrupts pending from now on; absent: those shown stay. */
  pending?: Interrupt[];
  /** The footer's state (its words, its `data-state`: `error` unless said) and failure, when no terminal event set them. */
  footer?: { text: string; state?: 'cancelled' | 'interrupt'; failure?: Failure };
  /** A failure to show in the interrupt panel, where the answer was given. */
  panel?: Failure;
  /** The interrupt panel's controls are usable again (a check that could not be made). */
  panelUsable?: boolean;
  say?: string;
  /** Ask the adapter what still waits (run/conversation.ts 'check'). */
  recheck?: boolean;
  /** Reattach once the token is given again. */
  watchAgain?: boolean;
}

function interruptsOf(terminal: Record<string, unknown>): Interrupt[] {
  const outcome = obj(terminal, 'outcome');
  return str(outcome, 'type') === 'interrupt' && Array.isArray(outcome?.['interrupts']) ? (outcome['interrupts'] as Interrupt[]) : [];
}

export function planEnding(end: RunEnd, origin: RunOrigin, run: { observing: boolean; cancelled: boolean }): EndingPlan {
  switch (end.kind) {
    case 'terminal': {
      const { terminal } = end;
      if (terminal.type === 'RUN_FINISHED') {
        const pending = interruptsOf(terminal);
        // A check finds the request the page already shows: the run that asked keeps saying it waits.
        if (origin === 'check' && pending.length > 0) return { forget: true, pending, footer: { text: 'Checked: the request still waits for your answer', state: 'interrupt' } };
        return { forget: true, pending, ...(run.observing && run.cancelled ? { footer: CANCELLED_FOOTER } : {}) };
      }
      const code = str(terminal, 'code') ?? '';
      if (origin === 'resume' && RETRYABLE_RESUME_CODES.has(code)) {
        return { forget: true, panel: { kind: 'run', code, message: str(terminal, 'message') ?? code, details: [] }, recheck: STALE_FORMS_CODES.has(code) };
      }
      // Ended while the page was away, and not by this page: said, for the status line still says "reattached".
      if (code === CANCELLED_CODE && run.observing && !run.cancelled) return { forget: true, pending: [], say: CANCELLED_AWAY };
      return { forget: true, pending: [] };
    }
    case 'aborted':
      // Only a cancel aborts a stream (docs/protocol.md §6.7): the execution is over.
      return { forget: true, pending: [], footer: CANCELLED_FOOTER };
    case 'gone':
      return {
        forget: true,
        pending: [],
        footer: {
          text: 'Nothing left to watch',
          failure:
            origin === 'check'
              ? { ...end.failure, message: 'The request no longer waits: its execution has ended or was cancelled (from another tab or client, perhaps).' }
              : end.failure,
        },
        say: 'Nothing left to watch on this thread.',
      };
    case 'replaced':
      return { forget: true, pending: [], footer: { text: 'Replaced by another execution', failure: end.failure }, say: 'Another execution has started on this thread.' };
    case 'not-run':
      return { forget: true, footer: { text: 'Not run', failure: end.failure }, ...(origin === 'resume' ? { panel: end.failure } : {}) };
    case 'failed':
      return { forget: true, footer: { text: 'Failed', failure: end.failure }, ...(origin === 'resume' || origin === 'check' ? { panel: end.failure } : {}) };
    case 'unauthorized':
      // The live record stays: once the token is given again, the page reattaches.
      return {
        forget: false,
        footer: { text: origin === 'turn' || origin === 'resume' ? 'Not run' : 'Not reattached', failure: end.failure },
        ...(origin === 'check' || origin === 'resume' ? { panel: end.failure } : {}),
        watchAgain: true,
      };
    case 'lost':
    case 'exhausted': {
      if (origin === 'check') {
        // Nothing streams while interrupts wait: the forms shown stay usable.
        return {
          forget: false,
          footer: { text: 'Not checked', failure: { ...end.failure, message: `Could not check with the adapter whether the request still waits: ${end.failure.message}` } },
          panelUsable: true,
        };
      }
      const failure =
        end.kind === 'exhausted'
          ? {
              ...end.failure,
              message: `Could not reconnect to the run (${MAX_ATTEMPTS} attempts; last: ${end.failure.message}). It may still be going on: reload the page to try again.`,
            }
          : end.failure;
      // Given up after attempts, a reload may still reattach; lost before it could start, it cannot.
      return {
        forget: end.kind === 'lost',
        footer: { text: 'Connection lost', failure },
        ...(origin === 'resume' ? { panel: failure } : {}),
        say: 'The connection to the run was lost.',
      };
    }
  }
}

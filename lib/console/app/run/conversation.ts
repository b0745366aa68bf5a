/**
 * One thread on screen (docs/architecture.md §4.7): sends turns and resumes through run-client.ts, renders each run,
 * keeps the thread's pipeline tree and its pending interrupts, cancels its execution, and
 * reattaches through the subscribe route (run/reattach.ts, docs/protocol.md §6.14) whenever a
 * run's stream is lost: at once when the connection drops, and when the page comes back after a
 * reload.
 *
 * While a run streams, `{threadId, runId, rosInvocationId, executionId}` is kept in session
 * storage (threads/run-records.ts), and what the page showed in threads/transcript-log.ts, so a
 * reload shows the thread as it was and the reattached stream continues the run where it stopped:
 * the adapter sends only what the thread has not announced yet, so nothing is shown twice.
 */
import type { Interrupt, ResumeEntry } from '@ag-ui/client';
import type { Outgoing } from '../composer/composer.js';
import { type Failure, failureOf } from '../connection/failures.js';
import { readToken } from '../connection/session-token.js';
import { el } from '../dom.js';
import { InterruptPanel } from '../interrupts/interrupt-panel.js';
import { rememberThread } from '../threads/recent-threads.js';
import { clearLiveRun, liveRun, pendingOf, recordLiveRun, rememberCurrentThread, savePending } from '../threads/run-records.js';
import { iacCodeOf, newId, type ThreadSettings } from '../threads/thread-settings.js';
import { type LoggedRun, TranscriptLog } from '../threads/transcript-log.js';
import { CUSTOM_SESSION, type EventRecord, obj, str } from '../transcript/event-fields.js';
import { PipelineTree } from '../transcript/pipeline-tree.js';
import { consoleNote, consoleState, RunView } from '../transcript/run-view.js';
import { cancelExecution } from './cancel-execution.js';
import { reattach } from './reattach.js';
import { BASE_DELAY_MS, MAX_ATTEMPTS, type ReattachEnd, streamEnded } from './reattach-policy.js';
import { streamRun } from './run-client.js';
import { planEnding, type RunEnd, type RunOrigin } from './run-endings.js';

export interface ConversationHooks {
  /** A run started or ended, or what can be cancelled changed. */
  changed(): void;
  /** The adapter answered 401: ask for the token again. */
  unauthorized(failure: Failure): void;
  /** A message for the page's status line. */
  say(message: string): void;
}

interface LiveRun {
  runId: string;
  abort: AbortController;
  view: RunView;
  logged: LoggedRun;
  /** This run's execution, from its session event (a resume's is the one its interrupts belong to). */
  executionId: string | undefined;
  /** The stream is an observation through subscribe, not the run's own response. */
  observing: boolean;
  cancelled: boolean;
}

/** Why the page reattaches: a run it showed live before a reload, or interrupts it shows that may have been answered elsewhere. */
type FollowReason = 'reload' | 'check';

/** The line a reattached run gets, by why it was reattached. */
const REATTACHED: Record<'dropped' | FollowReason, string> = {
  dropped: 'The connection dropped; reattached to the run.',
  reload: 'The page was reloaded; reattached to the run.',
  check: 'Reattached to check what still waits for your answer.',
};

function userTurn(text: string, extra: Array<HTMLElement | null>): HTMLElement {
  return el('article', { class: 'turn user', 'aria-label': 'You' }, text ? el('p', { class: 'message-text', text }) : null, ...extra);
}

export class Conversation {
  readonly pipeline = new PipelineTree();
  /** Tool call names across the thread's runs: a resume may carry only an earlier call's result. */
  private readonly toolNames = new Map<string, string>();
  readonly interrupts: InterruptPanel;
  readonly transcript: HTMLElement;
  private live: LiveRun | undefined;
  /** The execution the pending interrupts belong to, or the last run's. */
  private executionId: string | undefined;
  /** A run admitted on this thread: the subscribe route names one (docs/protocol.md §6.14). */
  private lastRunId: string | undefined;
  private runs = 0;
  private readonly log: TranscriptLog;
  /** The run that was live when the page was reloaded, replayed and waiting to be continued. */
  private interrupted: { view: RunView; logged: LoggedRun } | undefined;
  private watched = false;
  private leaving = false;

  constructor(
    readonly settings: ThreadSettings,
    private readonly hooks: ConversationHooks,
  ) {
    this.transcript = el('div', { class: 'transcript', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: '0' });
    this.interrupts = new InterruptPanel((entries) => void this.resume(entries));
    this.log = new TranscriptLog(settings.threadId);
    const pending = pendingOf(settings.threadId);
    this.executionId = pending.executionId;
    this.lastRunId = pending.runId;
    this.replay();
    this.showPending(pending.interrupts);
  }

  get busy(): boolean {
    return this.live !== undefined;
  }

  get hasPending(): boolean {
    return this.interrupts.pending.length > 0;
  }

  /** Something can be cancelled: a live run whose execution is known, or an execution waiting on answers. */
  get cancellable(): boolean {
    if (this.live) return this.live.executionId !== undefined;
    return this.hasPending && this.executionId !== undefined;
  }

  send(message: Outgoing): Promise<void> {
    this.newTurn();
    this.transcript.append(userTurn(message.text, message.previews));
    this.log.user(message.text, message.previews.length);
    return this.run({ content: message.content });
  }

  /**
   * Once the page may talk to the adapter (the token is known): continues the run this tab showed
   * live before a reload, else checks that the interrupts it shows still wait. Once per thread view.
   */
  watch(): void {
    if (this.watched || this.live) return;
    this.watched = true;
    const record = liveRun();
    if (record?.threadId === this.settings.threadId) {
      if (record.executionId) {
        void this.follow(record.runId, record.executionId, 'reload');
        return;
      }
      // Admitted, but reloaded before the session event named its execution: nothing to subscribe to.
      clearLiveRun(record.runId);
      if (this.interrupted) {
        const lost = consoleState('Connection lost', 'error', {
          ...streamEnded(),
          message: 'The page was reloaded before the adapter named this run’s execution, so it cannot be followed.',
        });
        this.interrupted.view.apply(lost);
        this.log.record(this.interrupted.logged, lost);
        this.log.save();
        this.interrupted = undefined;
      }
    }
    if (this.hasPending && this.executionId && this.lastRunId) void this.follow(this.lastRunId, this.executionId, 'check');
  }

  /** Keeps what the page shows for a reload (called as the page goes away). */
  persist(): void {
    this.leaving = true;
    this.log.save();
  }

  async cancel(): Promise<void> {
    const live = this.live;
    const executionId = live ? live.executionId : this.executionId;
    if (!executionId) return;
    // Said before asking: an observed run may see its task end before the cancel's answer arrives.
    if (live) live.cancelled = true;
    const target = { executionId, threadId: this.settings.threadId, rosInvocationId: this.settings.rosInvocationId };
    const result = await cancelExecution(target, readToken());
    if ('failure' in result) {
      if (live) live.cancelled = false;
      if (result.failure.kind === 'unauthorized') this.hooks.unauthorized(result.failure);
      this.hooks.say(`Cancel failed: ${result.failure.message} (${result.failure.code})`);
      return;
    }
    this.hooks.say(result.status === 'cancelled' ? 'Cancelled.' : `Nothing to cancel: the execution had already ended (${result.status}).`);
    if (live) {
      // The run's own stream ends by itself with RUN_ERROR CANCELLED. An observation would end
      // RUN_FINISHED (a cancel is not an observer's failure, §6.14), so it is simply stopped.
      if (live.observing && this.live === live) live.abort.abort();
    } else {
      // Answers owed are cleared by the cancel.
      this.setPending([]);
      this.transcript.append(el('p', { class: 'note', text: `Execution cancelled (${result.status}).` }));
      this.log.note(`Execution cancelled (${result.status}).`);
      this.log.save();
    }
    this.hooks.changed();
  }

  private resume(entries: ResumeEntry[]): Promise<void> {
    this.interrupts.setBusy(true);
    return this.run({ resume: entries });
  }

  /** Replays what this tab showed of the thread; a run without an end is the one a reload interrupted. */
  private replay(): void {
    const entries = this.log.all;
    if (this.settings.started && entries.length === 0) {
      this.transcript.append(el('p', { class: 'note', text: 'Thread reopened. Its earlier messages are shown only in the browser tab that sent them; new runs appear below.' }));
    }
    const live = liveRun();
    for (const entry of entries) {
      if (entry.kind === 'user') {
        this.newTurn();
        const images = entry.images > 0 ? el('p', { class: 'note', text: `${entry.images} image${entry.images === 1 ? '' : 's'} attached (not kept after a reload).` }) : null;
        this.transcript.append(userTurn(entry.text, [images]));
      } else if (entry.kind === 'note') {
        this.transcript.append(el('p', { class: 'note', text: entry.text }));
      } else {
        this.runs += 1;
        const view = new RunView(entry.label, this.pipeline, this.toolNames);
        for (const event of entry.events) view.apply(event);
        this.transcript.append(view.root);
        if (view.state === 'running' || view.state === 'reconnecting') {
          if (live?.runId === entry.runId && live.threadId === this.settings.threadId) this.interrupted = { view, logged: entry };
          else view.apply(consoleState('Connection lost', 'error', streamEnded()));
        }
      }
    }
  }

  /** A new turn starts a new execution: the last pipeline's picture stays where it ended. */
  private newTurn(): void {
    const picture = this.pipeline.archive();
    if (picture) this.transcript.append(picture);
  }

  private newRun(runId: string, label: string): { view: RunView; logged: LoggedRun } {
    const view = new RunView(label, this.pipeline, this.toolNames);
    this.transcript.append(view.root);
    return { view, logged: this.log.startRun(runId, label) };
  }

  /** Shows an event in the live run and keeps it for a reload. */
  private apply(live: LiveRun, event: EventRecord): void {
    live.view.apply(event);
    this.log.record(live.logged, event);
    if (event.type === 'CUSTOM' && str(event, 'name') === CUSTOM_SESSION) {
      live.executionId = str(obj(event, 'value'), 'executionId') ?? live.executionId;
      this.executionId = live.executionId;
      recordLiveRun({
        threadId: this.settings.threadId,
        runId: live.runId,
        rosInvocationId: this.settings.rosInvocationId,
        ...(live.executionId ? { executionId: live.executionId } : {}),
      });
      this.hooks.changed();
    }
  }

  /** The adapter admitted a run of this thread: the thread is bound and a reload reopens it. */
  private admitted(runId: string): void {
    this.lastRunId = runId;
    if (!this.settings.started) this.settings.started = true;
    rememberThread(this.settings);
    rememberCurrentThread(this.settings.threadId);
  }

  private async run(input: { content?: Outgoing['content']; resume?: ResumeEntry[] }): Promise<void> {
    if (this.live) return;
    const runId = newId('console-run');
    this.runs += 1;
    const { view, logged } = this.newRun(runId, input.resume ? `Run ${this.runs} (your answer)` : `Run ${this.runs}`);
    const live: LiveRun = { runId, abort: new AbortController(), view, logged, executionId: input.resume ? this.executionId : undefined, observing: false, cancelled: false };
    this.live = live;
    recordLiveRun({ threadId: this.settings.threadId, runId, rosInvocationId: this.settings.rosInvocationId });
    this.log.save();
    // What the status line said about an earlier run no longer applies.
    this.hooks.say('');
    this.hooks.changed();

    let terminal: EventRecord | undefined;
    let admitted = false;
    const { thrown } = await streamRun(
      {
        threadId: this.settings.threadId,
        runId,
        token: readToken(),
        iacCode: iacCodeOf(this.settings),
        abort: live.abort,
        ...(input.content !== undefined ? { content: input.content } : {}),
        ...(input.resume ? { resume: input.resume } : {}),
      },
      (event) => {
        const record = event as unknown as EventRecord;
        if (record.type === 'RUN_STARTED') {
          admitted = true;
          this.admitted(runId);
        }
        this.apply(live, record);
        if (record.type === 'RUN_FINISHED' || record.type === 'RUN_ERROR') terminal = record;
      },
    );
    // The page is going away (a reload): the next page reattaches from the records.
    if (this.leaving) return;
    let end: RunEnd;
    if (terminal) end = { kind: 'terminal', terminal };
    else if (!admitted) end = { kind: 'not-run', failure: thrown === undefined ? streamEnded() : failureOf(thrown) };
    else if (live.abort.signal.aborted) end = { kind: 'aborted' };
    else if (!live.executionId) {
      end = {
        kind: 'lost',
        failure: {
          ...(thrown === undefined ? streamEnded() : failureOf(thrown)),
          message: 'The connection was lost before the adapter named this run’s execution, so it cannot be followed.',
        },
      };
    } else {
      // The stream was lost mid-run (a network cut, a proxy, an instance that went away): reattach.
      live.observing = true;
      end = await this.observe(live, live.executionId, 'dropped');
    }
    this.finish(live, end, input.resume !== undefined ? 'resume' : 'turn');
  }

  /** Reattaches to a run this page did not start streaming: after a reload, or to check what still waits. */
  private async follow(runId: string, executionId: string, reason: FollowReason): Promise<void> {
    const shown = this.interrupted ?? this.newRun(runId, reason === 'reload' ? `Run ${++this.runs} (reattached)` : `Run ${++this.runs} (checked after a reload)`);
    this.interrupted = undefined;
    const live: LiveRun = { runId, abort: new AbortController(), ...shown, executionId, observing: true, cancelled: false };
    this.live = live;
    if (reason === 'check') this.interrupts.setBusy(true, 'Checking with the adapter…');
    this.hooks.changed();
    const end = await this.observe(live, executionId, reason);
    if (this.leaving) return;
    this.finish(live, end, reason);
  }

  private observe(live: LiveRun, executionId: string, reason: 'dropped' | FollowReason): Promise<ReattachEnd> {
    const target = { executionId, threadId: this.settings.threadId, runId: live.runId, rosInvocationId: this.settings.rosInvocationId };
    return reattach(target, {
      token: readToken,
      signal: live.abort.signal,
      // A dropped stream waits a moment (the network may be switching); a reload has waited enough.
      firstDelayMs: reason === 'dropped' ? BASE_DELAY_MS : 0,
      // Interrupts that merely wait have no stream to catch up on: one look is enough.
      maxAttempts: reason === 'check' ? 1 : MAX_ATTEMPTS,
      attempting: (attempt, max) => {
        if (reason === 'check') return;
        const first = attempt === 1 && reason === 'reload';
        this.apply(live, consoleState(first ? 'Reattaching…' : `Reconnecting… (attempt ${attempt} of ${max})`, 'reconnecting'));
        this.hooks.say(first ? 'Reattaching to the run that was streaming…' : 'The connection to the run was lost — reconnecting…');
      },
      event: (event) => {
        if (event.type === 'RUN_STARTED') {
          this.apply(live, consoleNote(REATTACHED[reason]));
          if (reason !== 'check') {
            this.apply(live, consoleState('Running… (reattached)', 'running'));
            this.hooks.say('Reattached: the run goes on.');
          }
        }
        this.apply(live, event);
      },
    });
  }

  /** Applies what the end of a run's stream means (run/run-endings.ts) to the records, the forms and the page. */
  private finish(live: LiveRun, end: RunEnd, origin: RunOrigin): void {
    this.live = undefined;
    const plan = planEnding(end, origin, live);
    if (plan.forget) clearLiveRun(live.runId);
    if (plan.pending) this.setPending(plan.pending);
    if (plan.footer) this.apply(live, consoleState(plan.footer.text, 'error', plan.footer.failure));
    if (plan.panel) this.interrupts.showFailure(plan.panel);
    if (plan.panelUsable) this.interrupts.setBusy(false);
    if (plan.say) this.hooks.say(plan.say);
    if (plan.watchAgain) this.watched = false;
    if ('failure' in end && end.failure.kind === 'unauthorized') this.hooks.unauthorized(end.failure);
    this.log.save();
    this.hooks.changed();
    if (plan.recheck && this.executionId && this.lastRunId) void this.follow(this.lastRunId, this.executionId, 'check');
  }

  private showPending(interrupts: readonly Interrupt[]): void {
    this.interrupts.show(interrupts);
    const candidates = interrupts
      .map((interrupt) => (interrupt.metadata as Record<string, unknown> | undefined)?.['subPipelineId'])
      .filter((id): id is string => typeof id === 'string');
    this.pipeline.markWaiting(candidates);
  }

  private setPending(interrupts: Interrupt[]): void {
    this.showPending(interrupts);
    savePending(this.settings.threadId, {
      interrupts,
      ...(this.executionId ? { executionId: this.executionId } : {}),
      ...(this.lastRunId ? { runId: this.lastRunId } : {}),
    });
  }
}

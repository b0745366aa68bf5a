/**
 * One thread on screen (docs/architecture.md §4.7): sends turns and resumes through run-client.ts,
 * shows each run and keeps it for a reload (run/thread-transcript.ts), keeps the thread's pending
 * interrupts, takes back what a refused token never let through, cancels its execution, and
 * reattaches through the subscribe route (lib/client/reattach.ts, docs/protocol.md §6.14) whenever a
 * run's stream is lost: at once when the connection drops, when the page comes back after a
 * reload, and when a thread another tab ran is opened here.
 *
 * While a run streams, `{threadId, runId, rosInvocationId, executionId}` is kept in session
 * storage (threads/run-records.ts), and what the page showed in threads/transcript-log.ts with the
 * id of the last event shown, so a reload shows the thread as it was and the reattached stream
 * continues the run where it stopped: with `Last-Event-ID` the adapter sends every event after that
 * one (docs/protocol.md §6.15), so nothing is shown twice and nothing is missing. A line across the
 * run marks when the page was away.
 */
import type { Interrupt, ResumeEntry } from '@ag-ui/client';
import { cancelExecution } from '../../../client/cancel-execution.js';
import { type Failure, failureOf, type ThreadHolder } from '../../../client/failures.js';
import { reattach } from '../../../client/reattach.js';
import { BASE_DELAY_MS, MAX_ATTEMPTS, type ReattachEnd, streamEnded } from '../../../client/reattach-policy.js';
import type { Outgoing } from '../composer/composer.js';
import { adapter, readToken } from '../connection/session-token.js';
import { InterruptPanel } from '../interrupts/interrupt-panel.js';
import { rememberThread } from '../threads/recent-threads.js';
import { clearLiveRun, liveRun, pendingOf, recordLiveRun, rememberCurrentThread, savePending } from '../threads/run-records.js';
import { iacCodeOf, newId, type ThreadActivity, type ThreadSettings, titleFrom } from '../threads/thread-settings.js';
import { CUSTOM_SESSION, type EventRecord, obj, str } from '../transcript/event-fields.js';
import type { PipelineTree } from '../transcript/pipeline-tree.js';
import { consoleNote, consoleState } from '../transcript/run-view.js';
import { streamRun } from './run-client.js';
import { planEnding, type RunEnd, type RunOrigin } from './run-endings.js';
import { type ShownRun, type ShownTurn, ThreadTranscript } from './thread-transcript.js';

export interface ConversationHooks {
  /** A run started or ended, or what can be cancelled changed. */
  changed(): void;
  /**
   * The adapter answered 401: ask for the token again. `retry`, when given, sends again what the
   * token was refused for (a message, an answer): it was taken back from the transcript.
   */
  /** `draft`: the text of what was refused, when it was a message. */
  unauthorized(failure: Failure, retry?: () => void, draft?: string): void;
  /** A message for the page's status line. */
  say(message: string): void;
  /** An event of the live run arrived (the run status says what the run is doing). */
  activity(event: EventRecord): void;
}

/** What a run was started for, taken back from the transcript when the token is refused. */
interface Attempt extends ShownTurn {
  retry: () => void;
}

interface LiveRun extends ShownRun {
  runId: string;
  abort: AbortController;
  /** This run's execution, from its session event (a resume's is the one its interrupts belong to). */
  executionId: string | undefined;
  /** The stream is an observation through subscribe, not the run's own response. */
  observing: boolean;
  cancelled: boolean;
}

/**
 * Why the page reattaches: a run it showed live before a reload, interrupts it shows that may have
 * been answered elsewhere, or a thread another tab ran, opened here.
 */
type FollowReason = 'reload' | 'check' | 'elsewhere';

/** The line a reattached run gets, by why it was reattached. */
const REATTACHED: Record<'dropped' | FollowReason, string> = {
  dropped: 'The connection dropped; reattached to the run.',
  reload: 'The page was reloaded; reattached to the run.',
  check: 'Reattached to check what still waits for your answer.',
  elsewhere: 'Following this thread’s execution from this tab.',
};

const clock = (at: number) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/**
 * The line that marks where a run's stream was lost and picked up again: when, for how long, and
 * whether it continued after the last event shown (an id) or followed the run again without one.
 */
function awayLine(reason: 'dropped' | 'reload', since: number, now: number, continued: boolean): string {
  const seconds = Math.max(0, Math.round((now - since) / 1000));
  const what = reason === 'dropped' ? 'the connection dropped' : 'the page was reloaded';
  const how = continued ? 'continued after the last event shown, nothing missed' : 'followed again from what the adapter still holds';
  return `Away ${clock(since)}–${clock(now)} (${seconds} s): ${what}; reattached to the run and ${how}.`;
}

const RUN_LABELS: Record<FollowReason, string> = { reload: 'reattached', check: 'checked after a reload', elsewhere: 'followed from this tab' };

export class Conversation {
  readonly interrupts: InterruptPanel;
  private readonly shown: ThreadTranscript;
  private live: LiveRun | undefined;
  /** The execution the pending interrupts belong to, or the last run's. */
  private executionId: string | undefined;
  /** A run admitted on this thread: the subscribe route names one (docs/protocol.md §6.14). */
  private lastRunId: string | undefined;
  /** The run that was live when the page was reloaded, replayed and waiting to be continued. */
  private interrupted: ShownRun | undefined;
  private watched = false;
  private leaving = false;
  /** When the live run started (the run status counts from it). */
  liveSince = 0;

  constructor(
    readonly settings: ThreadSettings,
    private readonly hooks: ConversationHooks,
  ) {
    this.interrupts = new InterruptPanel((entries, said) => void this.resume(entries, said));
    this.shown = new ThreadTranscript(settings.threadId);
    const pending = pendingOf(settings.threadId);
    this.executionId = pending.executionId;
    this.lastRunId = pending.runId;
    // A run without an end is the one a reload interrupted, or one whose stream was lost for good.
    const live = liveRun();
    for (const run of this.shown.replay(settings.started)) {
      if (live?.runId === run.logged.runId && live.threadId === settings.threadId) this.interrupted = run;
      else run.view.apply(consoleState('Connection lost', 'error', streamEnded()));
    }
    this.showPending(pending.interrupts);
  }

  get transcript(): HTMLElement {
    return this.shown.root;
  }

  get pipeline(): PipelineTree {
    return this.shown.pipeline;
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
    if (this.live) return Promise.resolve();
    const turn = this.shown.message(message.text, message.previews);
    // The list names a thread by its first message.
    if (!this.settings.title && message.text) this.settings.title = titleFrom(message.text);
    return this.run({ content: message.content }, { ...turn, retry: () => void this.send(message) });
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
        this.shown.record(this.interrupted, lost);
        this.shown.save();
        this.interrupted = undefined;
      }
    }
    if (this.hasPending && this.executionId && this.lastRunId) {
      void this.follow(this.lastRunId, this.executionId, 'check');
      return;
    }
    // Run in another tab: this browser knows its execution was running or waiting when it last saw it.
    const { executionId, lastRunId, activity } = this.settings;
    if (this.shown.empty && executionId && lastRunId && (activity === 'running' || activity === 'waiting')) {
      this.executionId = executionId;
      this.lastRunId = lastRunId;
      void this.follow(lastRunId, executionId, 'elsewhere');
    } else if (this.shown.empty && this.settings.started) {
      this.shown.note('Nothing was running or waiting for an answer on this thread when this browser last saw it. Send a message to go on.');
    }
  }

  /** Keeps what the page shows for a reload (called as the page goes away): a live run is away from now. */
  persist(): void {
    this.leaving = true;
    if (this.live && !this.live.cancelled) this.live.logged.awaySince ??= Date.now();
    this.shown.save();
  }

  async cancel(): Promise<void> {
    const live = this.live;
    const executionId = live ? live.executionId : this.executionId;
    if (!executionId) return;
    // Said before asking: an observed run may see its task end before the cancel's answer arrives.
    if (live) live.cancelled = true;
    const target = { executionId, threadId: this.settings.threadId, rosInvocationId: this.settings.rosInvocationId };
    const result = await cancelExecution(target, adapter);
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
      this.shown.setWaiting('Cancelled', 'cancelled');
      this.shown.waitingOn(undefined);
      this.shown.note(result.status === 'cancelled' ? 'Cancelled.' : `Nothing to cancel: the execution had already ended (${result.status}).`);
      this.remember('idle');
    }
    this.hooks.changed();
  }

  private resume(entries: ResumeEntry[], said: string): Promise<void> {
    this.interrupts.setBusy(true);
    const turn = this.shown.answer(said);
    return this.run({ resume: entries }, { ...turn, retry: () => void this.resume(entries, said) });
  }

  /** Keeps what this browser knows of the thread's execution in its list entry (another tab reads it). */
  private remember(activity: ThreadActivity): void {
    if (!this.settings.started) return;
    this.settings.activity = activity;
    if (this.executionId) this.settings.executionId = this.executionId;
    if (this.lastRunId) this.settings.lastRunId = this.lastRunId;
    rememberThread(this.settings);
  }

  /** Shows an event in the live run and keeps it for a reload, with its SSE id when it had one. */
  private apply(live: LiveRun, event: EventRecord, id?: string): void {
    this.shown.record(live, event, id);
    if (this.live === live) this.hooks.activity(event);
    if (event.type === 'CUSTOM' && str(event, 'name') === CUSTOM_SESSION) {
      live.executionId = str(obj(event, 'value'), 'executionId') ?? live.executionId;
      this.executionId = live.executionId;
      recordLiveRun({
        threadId: this.settings.threadId,
        runId: live.runId,
        rosInvocationId: this.settings.rosInvocationId,
        ...(live.executionId ? { executionId: live.executionId } : {}),
      });
      this.remember('running');
      this.hooks.changed();
    }
  }

  /** A run streams from now on: the transcript is busy (screen readers wait for it), the status counts. */
  private setLive(live: LiveRun | undefined): void {
    this.live = live;
    if (live) this.liveSince = Date.now();
    this.shown.busy(live !== undefined);
  }

  /** The adapter admitted a run of this thread: the thread is bound and a reload reopens it. */
  private admitted(runId: string): void {
    this.lastRunId = runId;
    if (!this.settings.started) this.settings.started = true;
    this.remember('running');
    rememberCurrentThread(this.settings.threadId);
  }

  private async run(input: { content?: Outgoing['content']; resume?: ResumeEntry[] }, attempt: Attempt): Promise<void> {
    if (this.live) return;
    const runId = newId('console-run');
    const shown = this.shown.newRun(runId, input.resume ? 'your answer' : undefined);
    const live: LiveRun = { runId, abort: new AbortController(), ...shown, executionId: input.resume ? this.executionId : undefined, observing: false, cancelled: false };
    this.setLive(live);
    recordLiveRun({ threadId: this.settings.threadId, runId, rosInvocationId: this.settings.rosInvocationId });
    this.shown.save();
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
      (event, id) => {
        const record = event as unknown as EventRecord;
        if (record.type === 'RUN_STARTED') {
          admitted = true;
          this.admitted(runId);
        }
        this.apply(live, record, id);
        if (record.type === 'RUN_FINISHED' || record.type === 'RUN_ERROR') terminal = record;
      },
    );
    // The page is going away (a reload): the next page reattaches from the records.
    if (this.leaving) return;
    let end: RunEnd;
    if (terminal) end = { kind: 'terminal', terminal };
    else if (!admitted && thrown !== undefined && failureOf(thrown).kind === 'unauthorized') {
      this.takeBack(live, attempt, failureOf(thrown));
      return;
    } else if (!admitted) end = { kind: 'not-run', failure: thrown === undefined ? streamEnded() : failureOf(thrown) };
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
    if (end.kind === 'not-run' && end.failure.holder) this.offerHolder(end.failure.holder);
  }

  /**
   * THREAD_BUSY named the run holding the thread (docs/protocol.md §2.2): open it here (through
   * subscribe, from its start) or stop it (the cancel route), then send again.
   */
  private offerHolder(holder: ThreadHolder): void {
    const offer = this.shown.offer('This thread is held by another run. Open it to follow it here, or stop it.', [
      {
        label: 'Open that run',
        act: () => {
          if (this.live) return;
          offer.remove();
          this.executionId = holder.executionId;
          this.lastRunId = holder.runId;
          void this.follow(holder.runId, holder.executionId, 'elsewhere');
        },
      },
      { label: 'Stop that run', act: () => void this.stopHolder(holder, offer) },
    ]);
  }

  private async stopHolder(holder: ThreadHolder, offer: HTMLElement): Promise<void> {
    const result = await cancelExecution({ executionId: holder.executionId, threadId: this.settings.threadId, rosInvocationId: this.settings.rosInvocationId }, adapter);
    if ('failure' in result) {
      if (result.failure.kind === 'unauthorized') this.hooks.unauthorized(result.failure);
      this.hooks.say(`Stop failed: ${result.failure.message} (${result.failure.code})`);
      return;
    }
    offer.remove();
    const said =
      result.status === 'cancelled'
        ? 'Stopped the run that held this thread. Send your message again.'
        : `Nothing to stop: that run had already ended (${result.status}). Send your message again.`;
    this.shown.note(said);
    this.hooks.say(said);
    this.hooks.changed();
  }

  /**
   * The token was refused before the run was admitted: nothing reached the adapter, so the message
   * (or answer) and its run leave the transcript, and `retry` sends them again once the person has
   * given the token (docs/architecture.md §4.7).
   */
  private takeBack(live: LiveRun, attempt: Attempt, failure: Failure): void {
    this.setLive(undefined);
    clearLiveRun(live.runId);
    this.shown.takeBack(live, attempt);
    if (attempt.logged.kind === 'answer') this.interrupts.setBusy(false);
    this.hooks.changed();
    this.hooks.unauthorized(failure, attempt.retry, attempt.logged.kind === 'user' ? attempt.logged.text : undefined);
  }

  /** Reattaches to a run this page did not start streaming: after a reload, to check what still waits, or opened from another tab. */
  private async follow(runId: string, executionId: string, reason: FollowReason): Promise<void> {
    const shown = this.interrupted ?? this.shown.newRun(runId, RUN_LABELS[reason]);
    this.interrupted = undefined;
    const live: LiveRun = { runId, abort: new AbortController(), ...shown, executionId, observing: true, cancelled: false };
    this.setLive(live);
    if (reason === 'check') this.interrupts.setBusy(true, 'Checking with the adapter…');
    this.hooks.changed();
    const end = await this.observe(live, executionId, reason);
    if (this.leaving) return;
    this.finish(live, end, reason);
  }

  private observe(live: LiveRun, executionId: string, reason: 'dropped' | FollowReason): Promise<ReattachEnd> {
    const target = { executionId, threadId: this.settings.threadId, runId: live.runId, rosInvocationId: this.settings.rosInvocationId };
    // A check and a run from another tab start from nothing shown: the run from its start.
    const continues = reason === 'dropped' || reason === 'reload';
    if (reason === 'dropped') live.logged.awaySince ??= Date.now();
    let opened = false;
    let replaying = false;
    return reattach(target, {
      connection: adapter,
      signal: live.abort.signal,
      // A dropped stream waits a moment (the network may be switching); a reload has waited enough.
      firstDelayMs: reason === 'dropped' ? BASE_DELAY_MS : 0,
      // Interrupts that merely wait have no stream to catch up on: one look is enough.
      maxAttempts: reason === 'check' ? 1 : MAX_ATTEMPTS,
      lastEventId: () => (continues ? live.logged.lastEventId : undefined),
      forgetEventId: () => {
        delete live.logged.lastEventId;
      },
      attempting: (attempt, max) => {
        if (reason === 'check') return;
        // An attempt after one that streamed: the stream was lost again.
        if (opened && continues) live.logged.awaySince ??= Date.now();
        const first = attempt === 1 && reason === 'reload';
        this.apply(live, consoleState(first ? 'Reattaching…' : `Reconnecting… (attempt ${attempt} of ${max})`, 'reconnecting'));
        this.hooks.say(first ? 'Reattaching to the run that was streaming…' : 'The connection to the run was lost — reconnecting…');
      },
      opened: () => {
        const since = live.logged.awaySince;
        const first = !opened;
        opened = true;
        if (continues && since !== undefined) {
          delete live.logged.awaySince;
          this.apply(live, consoleNote(awayLine(reason === 'reload' ? 'reload' : 'dropped', since, Date.now(), live.logged.lastEventId !== undefined), 'away'));
        } else if (first) {
          this.apply(live, consoleNote(REATTACHED[reason]));
        }
        if (reason !== 'check') {
          this.apply(live, consoleState('Running… (reattached)', 'running'));
          this.hooks.say('Reattached: the run goes on.');
        }
        this.shown.save();
      },
      event: (event, id) => {
        // A check without an id gets the run that asked from its start: the page shows it above.
        if (event.type === 'RUN_STARTED') replaying = reason === 'check' && str(event, 'runId') === live.runId;
        if (replaying && event.type !== 'RUN_FINISHED' && event.type !== 'RUN_ERROR') return;
        this.apply(live, event, id);
      },
    });
  }

  /** Applies what the end of a run's stream means (run/run-endings.ts) to the records, the forms and the page. */
  private finish(live: LiveRun, end: RunEnd, origin: RunOrigin): void {
    this.setLive(undefined);
    const plan = planEnding(end, origin, live);
    if (plan.forget) clearLiveRun(live.runId);
    if (plan.pending) this.setPending(plan.pending);
    if (plan.footer) this.apply(live, consoleState(plan.footer.text, plan.footer.state ?? 'error', plan.footer.failure));
    // One footer at a time says it waits for an answer: a refused answer's run asks again.
    if (plan.panel && origin === 'resume') this.shown.setWaiting('Waiting for your answer', 'interrupt');
    else if (live.view.state === 'interrupt' && origin !== 'check') this.shown.waitingOn(live);
    else if (plan.pending?.length === 0) this.shown.waitingOn(undefined);
    if (plan.forget) this.remember(this.hasPending ? 'waiting' : 'idle');
    if (plan.panel) this.interrupts.showFailure(plan.panel);
    if (plan.panelUsable) this.interrupts.setBusy(false);
    if (plan.say) this.hooks.say(plan.say);
    // "Reattached: the run goes on" no longer holds once it ended; its footer says how.
    else if (live.observing && !live.cancelled && origin !== 'check') this.hooks.say('');
    if (plan.watchAgain) this.watched = false;
    if ('failure' in end && end.failure.kind === 'unauthorized') this.hooks.unauthorized(end.failure);
    this.shown.save();
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

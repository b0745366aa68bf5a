/**
 * What a thread shows, and what this tab keeps of it for a reload (docs/architecture.md §4.7): the
 * transcript element with the person's messages and answers, notes, and one RunView per run; the
 * thread's pipeline tree and tool cards, shared by its runs; the transcript log in session storage
 * (threads/transcript-log.ts). It also keeps the one run whose footer says it waits for an answer.
 * Sending and streaming are run/conversation.ts's; this file only shows and keeps.
 */
import { el } from '../dom.js';
import { type LoggedEntry, type LoggedRun, TranscriptLog } from '../threads/transcript-log.js';
import type { EventRecord } from '../transcript/event-fields.js';
import { PipelineTree } from '../transcript/pipeline-tree.js';
import { consoleState, RunView } from '../transcript/run-view.js';
import type { ToolCardRegistry } from '../transcript/tool-cards.js';
import { answerTurn, userTurn } from '../transcript/user-turns.js';

/** A run as shown and as kept. */
export interface ShownRun {
  view: RunView;
  logged: LoggedRun;
}

/** Something the person sent, as shown and as kept (taken back when the token is refused). */
export interface ShownTurn {
  shown: HTMLElement;
  logged: LoggedEntry;
}

/** A thread this tab has no copy of: what the adapter can and cannot give back. */
const NO_COPY =
  'This tab has no copy of this thread’s earlier messages: only the browser tab that showed them keeps them (the adapter keeps no transcript). What is still running or waiting for an answer is shown below.';

const imagesNote = (count: number) => el('p', { class: 'note', text: `${count} image${count === 1 ? '' : 's'} attached (not kept after a reload).` });

export class ThreadTranscript {
  readonly root: HTMLElement;
  readonly pipeline = new PipelineTree();
  /** Tool cards across the thread's runs: a resume may carry an earlier call's start again, or only its result. */
  private readonly toolCards: ToolCardRegistry = new Map();
  private readonly log: TranscriptLog;
  private runs = 0;
  /** The run whose footer says it waits for the person's answer (one at a time). */
  private waiting: ShownRun | undefined;

  constructor(threadId: string) {
    this.root = el('div', { class: 'transcript', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', 'aria-busy': 'false', tabindex: '0' });
    this.log = new TranscriptLog(threadId);
  }

  /** Nothing of the thread is kept in this tab. */
  get empty(): boolean {
    return this.log.all.length === 0;
  }

  /**
   * Shows again what this tab showed of the thread (a started thread it has no copy of says so),
   * and returns the runs left without an end: a reload interrupted them.
   */
  replay(started: boolean): ShownRun[] {
    if (started && this.empty) this.root.append(el('p', { class: 'note', text: NO_COPY }));
    const unended: ShownRun[] = [];
    for (const entry of this.log.all) {
      if (entry.kind === 'user') {
        this.newTurn();
        this.root.append(userTurn(entry.text, [entry.images > 0 ? imagesNote(entry.images) : null], entry.at ?? Date.now()));
      } else if (entry.kind === 'answer') {
        this.root.append(answerTurn(entry.text, entry.at ?? Date.now()));
      } else if (entry.kind === 'note') {
        this.root.append(el('p', { class: 'note', text: entry.text }));
      } else if (entry.kind === 'run') {
        this.runs += 1;
        const view = new RunView(entry.label, this.pipeline, this.toolCards);
        for (const event of entry.events) view.apply(event);
        this.root.append(view.root);
        if (view.state === 'interrupt') this.waiting = { view, logged: entry };
        if (view.state === 'running' || view.state === 'reconnecting') unended.push({ view, logged: entry });
      }
    }
    return unended;
  }

  /** A message the person sent: a new turn, which starts a new execution (the last pipeline's picture stays where it ended). */
  message(text: string, previews: HTMLElement[]): ShownTurn {
    this.newTurn();
    const at = Date.now();
    const shown = userTurn(text, previews, at);
    this.root.append(shown);
    return { shown, logged: this.log.user('user', text, previews.length, at) };
  }

  /** An answer the person gave to the forms: the run that asked no longer waits. */
  answer(said: string): ShownTurn {
    const at = Date.now();
    const shown = answerTurn(said, at);
    this.root.append(shown);
    this.setWaiting('Answered', 'answered');
    return { shown, logged: this.log.user('answer', said, 0, at) };
  }

  note(text: string): void {
    this.root.append(el('p', { class: 'note', text }));
    this.log.note(text);
    this.log.save();
  }

  /**
   * Something the person may do now (open or stop the run holding the thread): a line and its
   * buttons, not kept for a reload — what it offers may be gone by then. Returns the element, which
   * the caller removes once it is acted on.
   */
  offer(text: string, actions: Array<{ label: string; act: () => void }>): HTMLElement {
    const buttons = actions.map(({ label, act }) => el('button', { type: 'button', text: label, on: { click: act } }));
    const offer = el(
      'div',
      { class: 'offer', role: 'group', 'aria-label': 'What to do about the run holding this thread' },
      el('p', { text }),
      el('div', { class: 'offer-buttons' }, ...buttons),
    );
    this.root.append(offer);
    return offer;
  }

  /** A new run's view, numbered; `label` says what it is ("your answer", "reattached"…). */
  newRun(runId: string, label?: string): ShownRun {
    this.runs += 1;
    const title = label ? `Run ${this.runs} (${label})` : `Run ${this.runs}`;
    const view = new RunView(title, this.pipeline, this.toolCards);
    this.root.append(view.root);
    return { view, logged: this.log.startRun(runId, title) };
  }

  /** Shows an event in a run and keeps it for a reload, with its SSE id when it had one (a reattach continues after it). */
  record(run: ShownRun, event: EventRecord, id?: string): void {
    run.view.apply(event);
    this.log.record(run.logged, event);
    if (id !== undefined) run.logged.lastEventId = id;
  }

  /** Takes back a run and what it was sent for: nothing of it reached the adapter. */
  takeBack(run: ShownRun, turn: ShownTurn): void {
    this.runs -= 1;
    run.view.root.remove();
    turn.shown.remove();
    this.log.forget(run.logged, turn.logged);
    if (turn.logged.kind === 'answer') this.setWaiting('Waiting for your answer', 'interrupt');
    this.save();
  }

  /** Sets the footer of the run that waits for an answer, and keeps it for a reload. */
  setWaiting(text: string, state: string): void {
    if (this.waiting) this.record(this.waiting, consoleState(text, state));
  }

  /** The run that waits for an answer from now on; undefined when nothing waits. */
  waitingOn(run: ShownRun | undefined): void {
    this.waiting = run;
  }

  /** A run streams: screen readers wait for it instead of announcing each piece. */
  busy(streaming: boolean): void {
    this.root.setAttribute('aria-busy', String(streaming));
  }

  save(): void {
    this.log.save();
  }

  private newTurn(): void {
    const picture = this.pipeline.archive();
    if (picture) this.root.append(picture);
  }
}

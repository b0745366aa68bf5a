/**
 * One thread on screen (docs/architecture.md §4.7): sends turns and resumes through run-client.ts, renders each run,
 * keeps the thread's pipeline tree and its pending interrupts, and cancels its execution.
 *
 * While a run streams, `{threadId, runId, rosInvocationId, executionId}` is kept in session
 * storage (threads/run-records.ts); a stream that ends without its terminal event leaves it there,
 * which is what a reconnect through the subscribe route will start from.
 */
import type { Interrupt, ResumeEntry } from '@ag-ui/client';
import type { Outgoing } from '../composer/composer.js';
import { type Failure, failureOf } from '../connection/failures.js';
import { readToken } from '../connection/session-token.js';
import { el } from '../dom.js';
import { InterruptPanel } from '../interrupts/interrupt-panel.js';
import { rememberThread } from '../threads/recent-threads.js';
import { clearLiveRun, pendingOf, recordLiveRun, savePending } from '../threads/run-records.js';
import { iacCodeOf, newId, type ThreadSettings } from '../threads/thread-settings.js';
import { CUSTOM_SESSION, type EventRecord, obj, str } from '../transcript/event-fields.js';
import { PipelineTree } from '../transcript/pipeline-tree.js';
import { RunView } from '../transcript/run-view.js';
import { cancelExecution } from './cancel-execution.js';
import { streamRun } from './run-client.js';

/** RUN_ERROR codes after which the interrupts are still pending and may be answered again (docs/protocol.md §2, §5). */
const RETRYABLE_RESUME_CODES = new Set(['RESUME_PAYLOAD_INVALID', 'UNKNOWN_INTERRUPT', 'INCOMPLETE_RESUME', 'RESUME_ALREADY_APPLIED', 'SESSION_BACKUP_NOT_READY']);

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
}

export class Conversation {
  readonly pipeline = new PipelineTree();
  readonly interrupts: InterruptPanel;
  readonly transcript: HTMLElement;
  private live: LiveRun | undefined;
  private executionId: string | undefined;
  private runs = 0;

  constructor(
    readonly settings: ThreadSettings,
    private readonly hooks: ConversationHooks,
  ) {
    this.transcript = el('div', { class: 'transcript', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: '0' });
    this.interrupts = new InterruptPanel((entries) => void this.resume(entries));
    const pending = pendingOf(settings.threadId);
    this.executionId = pending.executionId;
    if (settings.started) {
      this.transcript.append(el('p', { class: 'note', text: 'Thread reopened. Earlier messages are not kept in this browser; new runs appear below.' }));
    }
    this.interrupts.show(pending.interrupts);
  }

  get busy(): boolean {
    return this.live !== undefined;
  }

  get hasPending(): boolean {
    return this.interrupts.pending.length > 0;
  }

  /** Something can be cancelled: a live run whose execution is known, or an execution waiting on answers. */
  get cancellable(): boolean {
    return this.executionId !== undefined && (this.busy || this.hasPending);
  }

  send(message: Outgoing): Promise<void> {
    this.transcript.append(
      el('article', { class: 'turn user', 'aria-label': 'You' }, message.text ? el('p', { class: 'message-text', text: message.text }) : null, ...message.previews),
    );
    return this.run({ content: message.content });
  }

  async cancel(): Promise<void> {
    const executionId = this.executionId;
    if (!executionId) return;
    const target = { executionId, threadId: this.settings.threadId, rosInvocationId: this.settings.rosInvocationId };
    const result = await cancelExecution(target, readToken());
    if ('failure' in result) {
      if (result.failure.kind === 'unauthorized') this.hooks.unauthorized(result.failure);
      this.hooks.say(`Cancel failed: ${result.failure.message} (${result.failure.code})`);
      return;
    }
    this.hooks.say(result.status === 'cancelled' ? 'Cancelled.' : `Nothing to cancel: the execution had already ended (${result.status}).`);
    // A live stream ends by itself with RUN_ERROR CANCELLED; answers owed are cleared by the cancel.
    if (!this.busy) {
      this.setPending([]);
      this.transcript.append(el('p', { class: 'note', text: `Execution cancelled (${result.status}).` }));
    }
    this.hooks.changed();
  }

  private resume(entries: ResumeEntry[]): Promise<void> {
    this.interrupts.setBusy(true);
    return this.run({ resume: entries });
  }

  private async run(input: { content?: Outgoing['content']; resume?: ResumeEntry[] }): Promise<void> {
    if (this.live) return;
    const runId = newId('console-run');
    this.runs += 1;
    const view = new RunView(input.resume ? `Run ${this.runs} (your answer)` : `Run ${this.runs}`, this.pipeline);
    this.transcript.append(view.root);
    this.live = { runId, abort: new AbortController(), view };
    const record = { threadId: this.settings.threadId, runId, rosInvocationId: this.settings.rosInvocationId };
    recordLiveRun(record);
    this.hooks.changed();

    let terminal: EventRecord | undefined;
    let admitted = false;
    const { thrown } = await streamRun(
      {
        threadId: this.settings.threadId,
        runId,
        token: readToken(),
        iacCode: iacCodeOf(this.settings),
        abort: this.live.abort,
        ...(input.content !== undefined ? { content: input.content } : {}),
        ...(input.resume ? { resume: input.resume } : {}),
      },
      (event) => {
        const record_ = event as unknown as EventRecord;
        view.apply(record_);
        if (record_.type === 'RUN_STARTED') admitted = true;
        if (record_.type === 'CUSTOM' && str(record_, 'name') === CUSTOM_SESSION) {
          this.executionId = str(obj(record_, 'value'), 'executionId') ?? this.executionId;
          recordLiveRun({ ...record, ...(this.executionId ? { executionId: this.executionId } : {}) });
          this.hooks.changed();
        }
        if (record_.type === 'RUN_FINISHED' || record_.type === 'RUN_ERROR') terminal = record_;
      },
    );
    this.live = undefined;
    if (admitted && !this.settings.started) {
      this.settings.started = true;
      rememberThread(this.settings);
    }
    if (terminal || !admitted) clearLiveRun(runId);
    this.settle(terminal, thrown, view, input.resume !== undefined);
    this.hooks.changed();
  }

  /** What the end of a run means for the interrupts and the page. */
  private settle(terminal: EventRecord | undefined, thrown: unknown, view: RunView, wasResume: boolean): void {
    if (terminal?.type === 'RUN_FINISHED') {
      const outcome = obj(terminal, 'outcome');
      const interrupts = str(outcome, 'type') === 'interrupt' && Array.isArray(outcome?.['interrupts']) ? (outcome['interrupts'] as Interrupt[]) : [];
      this.setPending(interrupts);
      return;
    }
    if (terminal?.type === 'RUN_ERROR') {
      const code = str(terminal, 'code') ?? '';
      if (wasResume && RETRYABLE_RESUME_CODES.has(code)) this.interrupts.showFailure({ kind: 'run', code, message: str(terminal, 'message') ?? code, details: [] });
      else this.setPending([]);
      return;
    }
    const failure: Failure = thrown
      ? failureOf(thrown)
      : { kind: 'unreachable', code: 'STREAM_ENDED', message: 'The stream ended before the run did. The run may still be going on.', details: [] };
    view.footer.setState(thrown ? 'Not run' : 'Connection lost', 'error');
    view.footer.showFailure(failure);
    if (wasResume) this.interrupts.showFailure(failure);
    if (failure.kind === 'unauthorized') this.hooks.unauthorized(failure);
  }

  private setPending(interrupts: Interrupt[]): void {
    this.interrupts.show(interrupts);
    savePending(this.settings.threadId, { interrupts, ...(this.executionId ? { executionId: this.executionId } : {}) });
    const candidates = interrupts
      .map((interrupt) => (interrupt.metadata as Record<string, unknown> | undefined)?.['subPipelineId'])
      .filter((id): id is string => typeof id === 'string');
    this.pipeline.markWaiting(candidates);
  }
}

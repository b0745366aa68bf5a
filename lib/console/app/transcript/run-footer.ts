/**
 * The end of a run as people read it (docs/protocol.md §4): its state, token usage, the session
 * ids on demand, and a RUN_ERROR (or an error before the stream) as its message exactly as the
 * adapter gave it (translated; a kernel failure's own reason), its code, and the next step the
 * code calls for (transcript/next-steps.ts). A cancel is no failure: it is said without an alert.
 */
import type { Failure, ThreadHolder } from '../../../client/failures.js';
import { el } from '../dom.js';
import { num, str } from './event-fields.js';
import { nextStepFor } from './next-steps.js';

const SESSION_FIELDS: Array<[string, string]> = [
  ['threadId', 'Thread'],
  ['aguiRunId', 'Run'],
  ['executionId', 'Execution'],
  ['rosInvocationId', 'ROS invocation'],
  ['contextId', 'A2A context'],
  ['taskId', 'A2A task'],
  ['sessionId', 'iac-code session'],
];

const clock = (at: number) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** Which run holds a busy thread, and how (docs/protocol.md §2.2). */
export function holderWords(holder: ThreadHolder): string {
  const how =
    holder.state === 'detached'
      ? `its client left; the adapter keeps it${holder.detachedUntil === undefined ? '' : ` until ${clock(holder.detachedUntil)}`} for a reader to come back, then cancels it`
      : 'it is streaming to another client';
  return `Held by run ${holder.runId} (execution ${holder.executionId}): ${how}.`;
}

function holderLine(holder: ThreadHolder): HTMLElement {
  return el('p', { class: 'thread-holder', 'data-state': holder.state, text: holderWords(holder) });
}

export class RunFooter {
  readonly root: HTMLElement;
  private readonly state: HTMLElement;
  private readonly usage: HTMLElement;
  private readonly session: HTMLElement;
  private readonly error: HTMLElement;

  constructor() {
    this.state = el('p', { class: 'run-state', text: 'Starting…' });
    this.usage = el('p', { class: 'usage', hidden: true });
    this.session = el('div', { class: 'session', hidden: true });
    this.error = el('div', { class: 'run-error', role: 'alert', hidden: true });
    this.root = el('footer', { class: 'run-footer' }, this.state, this.error, this.usage, this.session);
  }

  setState(text: string, state: string): void {
    this.state.textContent = text;
    this.root.dataset['state'] = state;
  }

  showSession(value: Record<string, unknown>): void {
    const rows = SESSION_FIELDS.flatMap(([key, label]) => {
      const text = str(value, key);
      return text ? [el('dt', { text: label }), el('dd', {}, el('code', { text }))] : [];
    });
    this.session.replaceChildren(el('details', {}, el('summary', { text: 'Session ids' }), el('dl', {}, ...rows)));
    this.session.hidden = false;
  }

  showUsage(usage: unknown): void {
    if (!Array.isArray(usage) || usage.length === 0) return;
    const lines = usage.map((entry: Record<string, unknown>) => {
      const who = [str(entry, 'model'), str(entry, 'provider') ? `(${str(entry, 'provider')})` : undefined].filter(Boolean).join(' ') || 'model';
      const counts = [
        [num(entry, 'inputTokens'), 'in'],
        [num(entry, 'outputTokens'), 'out'],
        [num(entry, 'cachedInputTokens'), 'cached'],
        [num(entry, 'totalTokens'), 'total'],
      ]
        .filter(([count]) => count !== undefined)
        .map(([count, label]) => `${count} ${label}`)
        .join(' · ');
      return `${who}: ${counts}`;
    });
    this.usage.textContent = `Usage — ${lines.join('; ')}`;
    this.usage.hidden = false;
  }

  showFailure(failure: Failure): void {
    this.error.className = 'run-error';
    this.error.setAttribute('role', 'alert');
    this.error.replaceChildren(
      el('p', {}, el('strong', { text: failure.message }), ' ', el('code', { class: 'error-code', text: failure.code })),
      ...(failure.details.length > 0 ? [el('ul', {}, ...failure.details.map((detail) => el('li', {}, el('code', { text: detail.path }), ` ${detail.message}`)))] : []),
      ...(failure.holder ? [holderLine(failure.holder)] : []),
      el('p', { class: 'next-step', text: nextStepFor(failure.code) }),
    );
    this.error.hidden = false;
  }

  /** What the adapter said about a cancel: a line in the footer's own colour, no alert. */
  showNotice(message: string): void {
    this.error.className = 'run-notice';
    this.error.removeAttribute('role');
    this.error.replaceChildren(el('p', { text: message }));
    this.error.hidden = false;
  }

  clearFailure(): void {
    this.error.replaceChildren();
    this.error.hidden = true;
  }
}

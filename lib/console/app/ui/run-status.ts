/**
 * The run's status, right above the message box (docs/architecture.md §4.7): what the run is doing
 * in words ("writing the answer", "running read_file"), how long it has run, how long the kernel
 * has been quiet when it is, and the Stop button (Esc does the same). While interrupts wait it
 * says so, and Stop cancels the execution they belong to. Not a live region: it changes every
 * second; the page's status line announces the changes that matter.
 */
import { el } from '../dom.js';
import { CONSOLE_STATE, CUSTOM_PIPELINE, type EventRecord, str } from '../transcript/event-fields.js';

/** Quiet this long, the status says the kernel is quiet and for how long. */
const QUIET_AFTER_MS = 3_000;

function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** What an event says the run is doing, or undefined when it says nothing new. */
export function activityOf(event: EventRecord, toolNames: ReadonlyMap<string, string>): string | undefined {
  switch (event.type) {
    case 'RUN_STARTED':
      return 'started';
    case 'TEXT_MESSAGE_START':
    case 'TEXT_MESSAGE_CONTENT':
      return 'writing the answer';
    case 'REASONING_MESSAGE_START':
    case 'REASONING_MESSAGE_CONTENT':
      return 'thinking';
    case 'TOOL_CALL_START':
    case 'TOOL_CALL_ARGS':
    case 'TOOL_CALL_END':
      return `running ${toolNames.get(str(event, 'toolCallId') ?? '') ?? str(event, 'toolCallName') ?? 'a tool'}`;
    case 'TOOL_CALL_RESULT':
      return `${toolNames.get(str(event, 'toolCallId') ?? '') ?? 'a tool'} finished`;
    case 'STEP_STARTED':
      return `step ${str(event, 'stepName') ?? ''}`.trim();
    case 'CUSTOM':
      return str(event, 'name') === CUSTOM_PIPELINE ? 'pipeline at work' : undefined;
    case CONSOLE_STATE:
      return str(event, 'state') === 'reconnecting' ? (str(event, 'text') ?? 'reconnecting').toLowerCase() : undefined;
    default:
      return undefined;
  }
}

export class RunStatus {
  readonly root: HTMLElement;
  readonly stop: HTMLButtonElement;
  private readonly state: HTMLElement;
  private readonly elapsed: HTMLElement;
  private readonly activity: HTMLElement;
  private readonly toolNames = new Map<string, string>();
  private startedAt = 0;
  private lastEventAt = 0;
  private doing = '';
  private timer: number | undefined;

  constructor(onStop: () => void) {
    this.state = el('span', { class: 'run-status-state' });
    this.elapsed = el('span', { class: 'run-status-elapsed' });
    this.activity = el('span', { class: 'run-status-activity' });
    this.stop = el('button', {
      type: 'button',
      class: 'danger stop',
      text: 'Stop',
      title: 'Stop the run (Esc)',
      'aria-keyshortcuts': 'Escape',
      on: { click: onStop },
    });
    this.root = el('div', { class: 'run-status', hidden: true }, el('span', { class: 'pulse', 'aria-hidden': 'true' }), this.state, this.elapsed, this.activity, this.stop);
  }

  /** A run streams, since `startedAt`. */
  running(startedAt: number, stoppable: boolean): void {
    if (this.root.dataset['state'] !== 'running' || this.startedAt !== startedAt) {
      this.startedAt = startedAt;
      this.lastEventAt = Date.now();
      this.doing = 'waiting for the adapter';
      this.toolNames.clear();
    }
    this.show('running', 'Running');
    this.stop.disabled = !stoppable;
    this.timer ??= window.setInterval(() => this.tick(), 1000);
    this.tick();
  }

  /** Interrupts wait for the person's answer. */
  waiting(stoppable: boolean): void {
    this.halt();
    this.show('waiting', 'Waiting for your answer');
    this.elapsed.textContent = '';
    this.activity.textContent = 'answer the request above, or stop the run';
    this.stop.disabled = !stoppable;
  }

  idle(): void {
    this.halt();
    this.root.hidden = true;
    delete this.root.dataset['state'];
  }

  observe(event: EventRecord): void {
    if (event.type === 'TOOL_CALL_START') this.toolNames.set(str(event, 'toolCallId') ?? '', str(event, 'toolCallName') ?? 'a tool');
    this.lastEventAt = Date.now();
    this.doing = activityOf(event, this.toolNames) ?? this.doing;
    if (this.root.dataset['state'] === 'running') this.tick();
  }

  private show(state: string, words: string): void {
    this.root.dataset['state'] = state;
    this.root.hidden = false;
    this.state.textContent = words;
  }

  private halt(): void {
    window.clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const now = Date.now();
    this.elapsed.textContent = clock(now - this.startedAt);
    const quiet = now - this.lastEventAt;
    this.activity.textContent = quiet >= QUIET_AFTER_MS ? `${this.doing} · the kernel has been quiet for ${Math.floor(quiet / 1000)} s` : this.doing;
  }
}

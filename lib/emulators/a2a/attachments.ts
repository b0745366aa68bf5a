/**
 * The SubscribeToTask streams that attached to one task (docs/architecture.md §9.2). Scenarios that
 * are watched, or that go on after an answer whose own stream ended, wait here for their readers
 * (bounded), so what each reader sees does not depend on how fast it attached.
 */
export class Attachments {
  private count = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly signal: AbortSignal) {}

  /** How many streams attached so far (each counts once, even after it left). */
  get attached(): number {
    return this.count;
  }

  add(): void {
    this.count += 1;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves once `count` streams attached in all, or `timeoutMs` passed, or the task was cancelled. */
  async until(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count < count && Date.now() < deadline && !this.signal.aborted) {
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.signal.removeEventListener('abort', wake);
          resolve();
        };
        const timer = setTimeout(wake, deadline - Date.now());
        this.signal.addEventListener('abort', wake, { once: true });
        this.waiters.push(wake);
      });
    }
  }
}

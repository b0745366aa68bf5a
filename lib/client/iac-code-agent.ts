/**
 * `IacCodeAgent`: @ag-ui/client 1.0's HttpAgent for the iac-code adapter. Use it where an HttpAgent
 * goes (a CopilotKit runtime's `agents`, or `runAgent` directly). Over a plain HttpAgent it:
 *
 * - adds `forwardedProps.iacCode` (docs/protocol.md §3.5) with the thread's `rosInvocationId`
 *   (iac-code-props.ts: one per thread, repeated by every resume) and asks for a detach grace
 *   (`X-Iac-Code-Detach-Grace-Ms`, §6.15 "Whose grace"), so that a dropped connection does not stop
 *   the run;
 * - reattaches by itself when the stream drops before its terminal event, with `Last-Event-ID`
 *   (follow-run.ts): subscribers see one valid run, nothing twice, nothing missing;
 * - implements `connect()`: the thread's current run from its start, or, when idle, its
 *   conversation as a `MESSAGES_SNAPSHOT` (connect-thread.ts, §6.16);
 * - stops a run with the cancel route (§6.7) before it drops the connection, so Stop stops on
 *   every instance and the thread takes the next message at once;
 * - turns an error the adapter answers before the stream (§2.3) into a `RUN_ERROR` with its code
 *   and message, which a UI shows like any other run error.
 */
import { type BaseEvent, enforceOutgoingInput, HttpAgent, type HttpAgentConfig, type RunAgentInput } from '@ag-ui/client';
import type { Observable } from 'rxjs';
import { cancelExecution } from './cancel-execution.js';
import { connectThread } from './connect-thread.js';
import type { Connection, FetchFn } from './connection.js';
import { followRun, type RunSession } from './follow-run.js';
import { DEFAULT_DETACH_GRACE_MS, DETACH_GRACE_HEADER, type IacCodeProps, iacCodeOf, rosInvocationIdFor } from './iac-code-props.js';
import { readThread } from './thread-client.js';

export interface IacCodeAgentConfig extends Omit<HttpAgentConfig, 'url'>, IacCodeProps {
  /** The adapter's base URL (`https://…`, or '' for the page's own origin); runs are `POST {url}/`. */
  url: string;
  /** The detach grace to ask for, in ms (§6.15; the server caps it). 0 asks for none: a dropped connection cancels. Default 60,000. */
  detachGraceMs?: number;
  /** Reattach attempts in a row without progress before the run ends `RUN_ERROR` (default 8, doubling from 0.5 s to 8 s). */
  maxReattachAttempts?: number;
}

export class IacCodeAgent extends HttpAgent {
  readonly props: IacCodeProps;
  readonly detachGraceMs: number;
  readonly maxReattachAttempts: number | undefined;
  /** The thread's rosInvocationId (per threadId): computed once, or learnt from a session event (a run this agent reconnected to). */
  private readonly invocations = new Map<string, string>();
  /** The run this agent streams now, as its session event named it: what abortRun cancels. */
  private current: RunSession | undefined;

  constructor(config: IacCodeAgentConfig) {
    const { cwd, rosInvocationId, iacCode, detachGraceMs, maxReattachAttempts, ...http } = config;
    super({ ...http, url: config.url });
    this.props = { cwd, ...(rosInvocationId !== undefined ? { rosInvocationId } : {}), ...(iacCode ? { iacCode } : {}) };
    this.detachGraceMs = detachGraceMs ?? DEFAULT_DETACH_GRACE_MS;
    this.maxReattachAttempts = maxReattachAttempts;
  }

  /** The rosInvocationId this agent sends for `threadId`. */
  rosInvocationIdOf(threadId: string): string {
    let id = this.invocations.get(threadId);
    if (id === undefined) {
      id = rosInvocationIdFor(this.props, threadId);
      this.invocations.set(threadId, id);
    }
    return id;
  }

  /** The adapter as lib/client reaches it: this agent's base URL, headers and fetch. */
  get connection(): Connection {
    const fetch: FetchFn = (url, init) => this.fetch(url, init);
    return { baseUrl: this.url.replace(/\/+$/, ''), headers: () => ({ ...this.headers }), fetch };
  }

  protected override requestInit(input: RunAgentInput): RequestInit {
    const init = super.requestInit(input);
    const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
    if (this.detachGraceMs > 0) headers[DETACH_GRACE_HEADER] = String(this.detachGraceMs);
    return { ...init, headers };
  }

  override run(input: RunAgentInput): Observable<BaseEvent> {
    const threadId = input.threadId;
    const forwarded = (input.forwardedProps ?? {}) as Record<string, unknown>;
    const iacCode = iacCodeOf(this.props, this.rosInvocationIdOf(threadId), forwarded['iacCode']);
    const rosInvocationId = String(iacCode['rosInvocationId']);
    const body: RunAgentInput = { ...input, forwardedProps: { ...forwarded, iacCode } };
    this.current = undefined;
    return followRun((fetch) => fetch(`${this.connection.baseUrl}/`, this.requestInit(enforceOutgoingInput(body))), {
      connection: this.connection,
      threadId,
      runId: input.runId,
      rosInvocationId,
      signal: this.abortController.signal,
      ...(this.maxReattachAttempts !== undefined ? { maxAttempts: this.maxReattachAttempts } : {}),
      session: (session) => this.learn(session),
    });
  }

  /** AbstractAgent 1.0's connect (`connectAgent`): the thread's current run from its start, else its conversation. */
  protected override connect(input: RunAgentInput): Observable<BaseEvent> {
    this.abortController = new AbortController();
    this.current = undefined;
    return connectThread({
      connection: this.connection,
      threadId: input.threadId,
      runId: input.runId,
      rosInvocationId: this.rosInvocationIdOf(input.threadId),
      signal: this.abortController.signal,
      session: (session) => this.learn(session),
    });
  }

  /** Opens the thread the way connect() does, for callers outside @ag-ui/client's pipeline (the runner). */
  connectThread(threadId: string, runId: string): Observable<BaseEvent> {
    return this.connect({ threadId, runId, messages: [], tools: [], context: [], state: {}, forwardedProps: {} });
  }

  /**
   * Stop: the cancel route first (§6.7), then the connection is dropped. Dropping alone would leave
   * the run going for its detach grace and the thread busy (§6.15). Returns the cancel's outcome.
   */
  override abortRun(): void {
    void this.cancelRun().finally(() => super.abortRun());
  }

  /** Cancels the thread's live run (this agent's, or the one the thread read names); `undefined` when nothing runs. */
  async cancelRun(threadId: string = this.threadId): Promise<{ status: string } | { failure: { code: string; message: string } } | undefined> {
    let target = this.current?.threadId === threadId ? this.current : undefined;
    if (!target) {
      const run = await readThread(this.connection, threadId).catch(() => null);
      if (!run) return undefined;
      target = { threadId, runId: run.runId, executionId: run.executionId, rosInvocationId: this.rosInvocationIdOf(threadId) };
    }
    return cancelExecution(target, this.connection);
  }

  override clone(): IacCodeAgent {
    const cloned = super.clone() as IacCodeAgent;
    // HttpAgent.clone copies its own fields; these are IacCodeAgent's (clone() builds on the prototype, not the constructor).
    Object.assign(cloned, {
      props: this.props,
      detachGraceMs: this.detachGraceMs,
      maxReattachAttempts: this.maxReattachAttempts,
      invocations: new Map(this.invocations),
      current: undefined,
    });
    return cloned;
  }

  private learn(session: RunSession): void {
    this.current = session;
    this.invocations.set(session.threadId, session.rosInvocationId);
  }
}

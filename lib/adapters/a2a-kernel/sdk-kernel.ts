/**
 * The A2A kernel over @a2a-js/sdk 1.x (JSON-RPC transport) plus fetch for iac-code's two HTTP
 * endpoints (docs/protocol.md §7.1, §7.8, §7.9). The client is built on the configured kernel URL, not on the
 * URL an agent card advertises (a remote kernel may advertise an internal address). Every call
 * carries `A2A-Version: 1.0` (set by the SDK) and the bearer token when one is configured.
 *
 * The core speaks wire JSON; this file converts to and from the SDK's types and translates every
 * SDK or network error into KernelUnavailableError / KernelRpcError.
 *
 * The module, and the SDK with it, is loaded on the first kernel call, not at start-up
 * (`LazyKernel`, lib/adapters/lazy-ports.ts; docs/architecture.md §6.3).
 */
import { type AgentCard, Message, SendMessageRequest, StreamResponse, Task, TaskState } from '@a2a-js/sdk';
import { Client, JsonRpcTransportFactory, type Transport } from '@a2a-js/sdk/client';
import type { JsonObject, WireSendParams, WireStreamItem, WireTask } from '../../core/a2a/wire-types.js';
import { type A2AKernel, type KernelCallOptions, KernelRpcError, KernelUnavailableError, type SessionRestoreResult } from '../../core/ports.js';
import type { Secret } from '../../core/secret.js';
import { fetchEventStream } from './kernel-event-stream.js';

export interface KernelOptions {
  /** The kernel's base URL; normalised to end in "/" (docs/protocol.md §7.1). */
  url: string;
  token: Secret | undefined;
}

export function normaliseKernelUrl(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

function cardFor(url: string): AgentCard {
  return {
    name: 'iac-code',
    description: 'iac-code A2A kernel',
    version: '1.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    securitySchemes: {},
    securityRequirements: [],
    signatures: [],
  } as unknown as AgentCard;
}

export class SdkA2AKernel implements A2AKernel {
  private readonly baseUrl: string;
  private readonly client: Promise<Client>;
  /**
   * The Client's own transport, driven directly for the two streaming calls: the Client's
   * generator around each stream would otherwise stay on every idle run for its whole life
   * (docs/architecture.md §9.6). `streamingSend` keeps the request on the wire the Client's.
   */
  private readonly transport: Promise<Transport>;
  /**
   * A stream call's `onTaskId`, found again in the fetch the SDK makes for it: the SDK hands each
   * call's own signal to fetch unchanged, so the signal is the key.
   */
  private readonly taskIdWatchers = new WeakMap<AbortSignal, (taskId: string) => void>();

  constructor(private readonly options: KernelOptions) {
    this.baseUrl = normaliseKernelUrl(options.url);
    const card = cardFor(this.baseUrl);
    this.transport = new JsonRpcTransportFactory({ fetchImpl: this.authorisedFetch }).create(this.baseUrl, card);
    this.client = this.transport.then((transport) => new Client(transport, card, {}));
  }

  private readonly authorisedFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (this.options.token) headers.set('authorization', `Bearer ${this.options.token.reveal()}`);
    headers.set('a2a-version', '1.0');
    // The SDK's streaming calls ask for an event stream: read straight from the socket into the
    // history trim, without Node's fetch layers held for the run's life (kernel-event-stream.ts).
    // Every other call answers JSON and goes through fetch as it is.
    if (headers.get('accept') === 'text/event-stream' && (init.body === undefined || typeof init.body === 'string')) {
      const onTaskId = init.signal ? this.taskIdWatchers.get(init.signal) : undefined;
      return fetchEventStream(new URL(input instanceof Request ? input.url : input), { method: init.method, headers, body: init.body, signal: init.signal }, onTaskId);
    }
    return fetch(input, { ...init, headers });
  };

  /**
   * The key of this call's `onTaskId`: the caller's own signal while no other call of it is
   * watched (a run makes one such call at a time), which costs an idle run nothing more. Otherwise
   * a signal of this call's own, following the caller's through one listener that `stop` removes
   * when the stream ends (lighter than AbortSignal.any).
   */
  private watchTaskId(options: KernelCallOptions): { signal: AbortSignal | undefined; stop: () => void } {
    const { onTaskId, signal: caller } = options;
    if (!onTaskId) return { signal: caller, stop: () => undefined };
    if (caller && !this.taskIdWatchers.has(caller)) {
      this.taskIdWatchers.set(caller, onTaskId);
      return { signal: caller, stop: () => this.taskIdWatchers.delete(caller) };
    }
    const own = new AbortController();
    const follow = (): void => own.abort(caller?.reason);
    if (caller?.aborted) follow();
    else caller?.addEventListener('abort', follow, { once: true });
    this.taskIdWatchers.set(own.signal, onTaskId);
    return { signal: own.signal, stop: () => caller?.removeEventListener('abort', follow) };
  }

  async *sendStreamingMessage(params: WireSendParams, options: KernelCallOptions = {}): AsyncIterable<WireStreamItem> {
    const transport = await this.transport;
    const { signal, stop } = this.watchTaskId(options);
    try {
      for await (const event of transport.sendMessageStream(streamingSend(params), { signal })) {
        yield StreamResponse.toJSON(event) as WireStreamItem;
      }
    } catch (error) {
      throw kernelError(error, options.signal);
    } finally {
      stop();
    }
  }

  async sendMessage(params: WireSendParams, options: KernelCallOptions = {}): Promise<WireStreamItem> {
    const client = await this.client;
    try {
      const result = await client.sendMessage(SendMessageRequest.fromJSON(params), { signal: options.signal });
      return 'messageId' in result ? { message: Message.toJSON(result) as WireStreamItem['message'] } : { task: Task.toJSON(result) as WireTask };
    } catch (error) {
      throw kernelError(error, options.signal);
    }
  }

  async getTask(taskId: string, historyLength: number, options: KernelCallOptions = {}): Promise<WireTask> {
    const client = await this.client;
    try {
      return Task.toJSON(await client.getTask({ tenant: '', id: taskId, historyLength }, { signal: options.signal })) as WireTask;
    } catch (error) {
      throw kernelError(error, options.signal);
    }
  }

  async listTasks(contextId: string, historyLength: number, maxTasks: number, options: KernelCallOptions = {}): Promise<WireTask[] | undefined> {
    const client = await this.client;
    const tasks: WireTask[] = [];
    let pageToken = '';
    try {
      do {
        const page = await client.listTasks(
          {
            tenant: '',
            contextId,
            status: TaskState.TASK_STATE_UNSPECIFIED,
            pageSize: Math.min(100, maxTasks - tasks.length),
            pageToken,
            historyLength,
            statusTimestampAfter: undefined,
            includeArtifacts: false,
          },
          { signal: options.signal },
        );
        tasks.push(...page.tasks.map((task) => Task.toJSON(task) as WireTask));
        pageToken = page.nextPageToken;
      } while (pageToken !== '' && tasks.length < maxTasks);
    } catch (error) {
      const failure = kernelError(error, options.signal);
      if (failure instanceof KernelRpcError && failure.rpcCode === METHOD_NOT_FOUND) return undefined;
      throw failure;
    }
    return tasks;
  }

  async cancelTask(taskId: string, options: KernelCallOptions = {}): Promise<void> {
    const client = await this.client;
    try {
      await client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal: options.signal });
    } catch (error) {
      throw kernelError(error, options.signal);
    }
  }

  async *subscribeToTask(taskId: string, options: KernelCallOptions = {}): AsyncIterable<WireStreamItem> {
    const transport = await this.transport;
    try {
      for await (const event of transport.resubscribeTask({ tenant: '', id: taskId }, { signal: options.signal })) {
        yield StreamResponse.toJSON(event) as WireStreamItem;
      }
    } catch (error) {
      throw kernelError(error, options.signal);
    }
  }

  /**
   * docs/protocol.md §7.8: a 404 whose JSON body has an `error` object, or `status: "not_found"`
   * (what the newest kernel sends), means the session is missing; any other 404, or a 405, means
   * the kernel predates the route (v0.13.1) and the step is skipped.
   */
  async ensureSessionRestored(request: { cwd: string; sessionId: string; taskId: string }, options: KernelCallOptions = {}): Promise<SessionRestoreResult> {
    const response = await this.http(
      'iac-code/session/ensure-restored',
      { method: 'POST', body: JSON.stringify(request), headers: { 'content-type': 'application/json' } },
      options,
    );
    const body = await response.json().catch(() => undefined);
    const error = isObject(body) && isObject(body['error']) ? body['error'] : undefined;
    if (response.status === 200 && isObject(body) && typeof body['status'] === 'string') return { outcome: 'ok', status: body['status'] };
    if (response.status === 404 && (error || (isObject(body) && body['status'] === 'not_found'))) return { outcome: 'missing' };
    if (response.status === 404 || response.status === 405) return { outcome: 'unsupported' };
    if (response.status === 409 && error?.['code'] === 'SESSION_BACKUP_NOT_READY') return { outcome: 'backupNotReady' };
    throw new KernelUnavailableError(`ensure-restored answered HTTP ${response.status}`, { status: response.status });
  }

  async pipelineState(taskId: string, afterSequence: number, options: KernelCallOptions = {}): Promise<JsonObject | undefined> {
    const query = new URLSearchParams({ taskId, afterSequence: String(afterSequence) });
    const response = await this.http(`iac-code/pipeline/state?${query}`, { method: 'GET' }, options);
    if (response.status === 404) return undefined;
    const body = await response.json().catch(() => undefined);
    if (response.status !== 200 || !isObject(body)) throw new KernelUnavailableError(`pipeline state answered HTTP ${response.status}`, { status: response.status });
    return body;
  }

  private async http(path: string, init: RequestInit, options: KernelCallOptions): Promise<Response> {
    try {
      return await this.authorisedFetch(new URL(path, this.baseUrl), { ...init, signal: options.signal });
    } catch (error) {
      throw kernelError(error, options.signal);
    }
  }
}

/**
 * The streaming send as the SDK's Client hands it to its transport (its client configuration
 * applied, with none configured): the configuration's accepted output modes and
 * `returnImmediately` given their defaults. The Client adds nothing else to a stream: no
 * interceptors are configured, and its `A2A-Version` header is set by `authorisedFetch` too.
 */
function streamingSend(params: WireSendParams): SendMessageRequest {
  const request = SendMessageRequest.fromJSON(params);
  const configuration = request.configuration;
  return {
    ...request,
    configuration: {
      ...configuration,
      acceptedOutputModes: configuration?.acceptedOutputModes ?? [],
      taskPushNotificationConfig: configuration?.taskPushNotificationConfig,
      returnImmediately: configuration?.returnImmediately ?? false,
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One place that knows what the SDK throws (docs/architecture.md §4): vendor errors stop here and
 * leave as the port's errors, keeping the SDK's error as the cause and the JSON-RPC code or HTTP
 * status they met as plain fields for the log (docs/architecture.md §5).
 */
/** JSON-RPC's code for a method the server does not have. */
const METHOD_NOT_FOUND = -32601;

function kernelError(error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
  const rpc = rpcErrorOf(error) ?? rpcErrorOf((error as { cause?: unknown })?.cause);
  if (rpc) return rpc;
  return new KernelUnavailableError(error instanceof Error ? error.message : String(error), { cause: error, status: httpStatusOf(error) });
}

function rpcErrorOf(error: unknown): KernelRpcError | undefined {
  if (!isObject(error)) return undefined;
  const envelopeCode = (error as { envelopeCode?: unknown }).envelopeCode;
  if (typeof envelopeCode !== 'number') return undefined;
  const message = error instanceof Error ? error.message : 'JSON-RPC error';
  return new KernelRpcError(message, envelopeCode, (error as { data?: unknown }).data, { cause: error });
}

/**
 * The SDK reports a non-2xx answer without a JSON-RPC error only in its message:
 * "HTTP error for SendMessage! Status: 502 …" or "HTTP error establishing stream for …: 502 …".
 */
const SDK_HTTP_ERROR = /^HTTP error (?:for \S+! Status: |establishing stream for \S+: )(\d{3})\b/;

function httpStatusOf(error: unknown): number | undefined {
  const match = error instanceof Error ? SDK_HTTP_ERROR.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

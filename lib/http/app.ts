/**
 * The adapter as a Web `Request → Response` function (docs/protocol.md §1). Runtime shells (the
 * local Node server, the FC web function) only convert sockets to Requests; tests call `fetch`
 * in-process. Every answer passes through the opt-in CORS decoration (cors.ts).
 */
import { errorFields } from '../core/error-fields.js';
import { AdapterError } from '../core/errors.js';
import type { Language } from '../core/i18n/catalogue.js';
import { languageFromAcceptLanguage } from '../core/i18n/language.js';
import { onceUntilFailure } from '../core/once-until-failure.js';
import type { A2AKernel, ImageCodec, Logger, ThreadStore, TokenVerifier } from '../core/ports.js';
// Type only: the event logs' code loads with the POST routes (docs/architecture.md §6.3).
import type { ExecutionLogs } from '../core/reattach/execution-logs.js';
import type { Secret } from '../core/secret.js';
// Type only: the console's code is loaded by the start-up path only when it is enabled.
import type { ConsoleRoute } from './console-route.js';
import { type CorsOrigins, preflightResponse, withCors } from './cors.js';
import { JSON_HEADERS, jsonResponse } from './json-response.js';
import { LiveStreamGate } from './live-stream-gate.js';
import { handlePreStop, isPreStopCall, logUnmarkedPreStop, PRE_STOP_PATH, type PreStopDrain } from './pre-stop-route.js';

/**
 * The POST routes and everything behind them — validation (zod), the core's runs, the kernel's
 * SDK, the store's OSS client — load on the first request that needs them, never at start-up: FC's
 * health check and whoever arrives first after a cold start are not kept waiting for code
 * `GET /health` never runs (docs/architecture.md §6.3). The three POST routes are one module
 * (post-routes.ts); each import is made once and kept.
 */
// Each import is made once and kept: `import()` of a loaded module still resolves it again on
// every call (under tsx's loader, about a millisecond per request).
const postRoutes = onceUntilFailure(() => import('./post-routes.js'));

/** The POST routes, and the instance's event logs made with them on the first POST (they load with the routes). */
async function routesWithLogs(deps: RouteDeps): Promise<Awaited<ReturnType<typeof postRoutes>>> {
  const routes = await postRoutes();
  deps.logs ??= routes.instanceLogs(deps.clock);
  return routes;
}
const errorModule = onceUntilFailure(() => import('./error-response.js'));

/** The error envelope, with the message catalogue behind it: loaded by the first error answer. */
async function errorResponse(error: AdapterError, language: Language, headers?: Record<string, string>): Promise<Response> {
  return (await errorModule()).errorResponse(error, language, headers);
}

export interface AppConfig {
  authToken: Secret | undefined;
  allowedRoots: string[];
  defaultLanguage: Language;
  heartbeatMs: number;
  leaseTtlMs: number;
  leaseRenewMs: number;
  /** IAC_CODE_AGUI_CORS_ORIGINS: exact origins allowed by CORS; absent or empty = CORS off (docs/protocol.md §1.5). */
  corsOrigins?: CorsOrigins;
  /** IAC_CODE_AGUI_BODY_TIMEOUT_MS: time for a whole request body to arrive, else 408 (default 30 s). */
  bodyTimeoutMs?: number;
  /** IAC_CODE_AGUI_MAX_ACTIVE_RUNS: live runs of this instance before 503 SERVER_BUSY (default 1,000). */
  maxActiveRuns?: number;
  /**
   * IAC_CODE_AGUI_DETACH_GRACE_MS: the longest detach grace a request may ask for — how long a run
   * whose last reader left goes on for a reader to come back (docs/protocol.md §6.15 "Whose grace");
   * 0 (default): none, the caller leaving cancels the run (§6.8).
   */
  detachGraceMs?: number;
}

export interface AppDeps {
  config: AppConfig;
  /** The thread store for this request (OSS credentials may arrive per request in FC, docs/protocol.md §9.4). */
  storeFor: (request: Request) => ThreadStore;
  /** The store of the instance's own credentials, for the sweeper (docs/protocol.md §6.15); absent = no sweeper. */
  backgroundStore?: () => ThreadStore;
  storeKind: ThreadStore['kind'];
  /**
   * Why the store can no longer be used by this instance — e.g. OSS refusing its credentials
   * (lib/adapters/oss-store/credentials.ts) — or undefined: GET /health then answers 503 with it,
   * so Function Compute's health check replaces the instance (docs/protocol.md §1.7).
   */
  storeHealth?: () => string | undefined;
  kernel: A2AKernel;
  /**
   * The identity provider's verifier (IAC_CODE_AGUI_OIDC_*, docs/protocol.md §1.2): a bearer token
   * that is not the shared token is checked as a person's JWT. Absent = no per-user identity.
   */
  tokens?: TokenVerifier;
  /** Decodes and re-encodes images for downsampling (docs/protocol.md §3.4). */
  images: ImageCodec;
  logger: Logger;
  clock: () => number;
  versions: { serverVersion: string; protocolPackageVersion: string };
  /** The web console under /console, when IAC_CODE_AGUI_CONSOLE=1 (docs/protocol.md §1.1; docs/architecture.md §6); absent = 404 there. */
  console?: ConsoleRoute;
  /**
   * FC's PreStop hook drains the instance through this (docs/architecture.md §6.6); given only inside
   * Function Compute (FC_SERVER_PORT set). Absent = no /pre-stop route.
   */
  preStop?: PreStopDrain;
}

export interface App {
  /**
   * `signal`: the shell's abort signal for this request (the client left, or the instance stops);
   * `request.signal` when absent. A live stream follows this one, so a shell that passes it need not
   * keep the Request alive for the stream's whole life (docs/architecture.md §6).
   */
  fetch(request: Request, signal?: AbortSignal): Promise<Response>;
  /**
   * The answer to a request that needs no Fetch API, or undefined: exactly `GET /health` while
   * CORS is off. A shell may write it without building a `Request` — Node loads its fetch
   * implementation (undici) on the first `Request`, which would more than double a cold start's
   * time to FC's first health check (docs/architecture.md §6.3). The same answer `fetch` gives.
   */
  plain?(method: string, target: string): PlainResponse | undefined;
  /**
   * The instance is stopping (a shell's graceful shutdown, at its drain deadline): every resumable
   * run live here hands itself over (docs/protocol.md §6.15), also one whose caller is long gone.
   */
  stopping?(): void;
}

/** A complete answer as plain data. */
export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What the route handlers get: the app's dependencies, the instance's live-stream gate and the event logs it produces. */
export interface RouteDeps extends AppDeps {
  liveStreams: LiveStreamGate;
  logs: ExecutionLogs;
}

const CANCEL_PATH = /^\/extensions\/iac-code\/v1\/executions\/([^/]+)\/cancel$/;
const SUBSCRIBE_PATH = /^\/extensions\/iac-code\/v1\/executions\/([^/]+)\/subscribe$/;
/** The thread reads (docs/protocol.md §6.16): the thread, its subscribe, its messages. */
const THREAD_PATH = /^\/extensions\/iac-code\/v1\/threads\/([^/]+)(\/subscribe|\/messages)?$/;

export function createApp(appDeps: AppDeps): App {
  const deps: RouteDeps = { ...appDeps, liveStreams: new LiveStreamGate(appDeps.config.maxActiveRuns), logs: undefined as unknown as ExecutionLogs };
  const corsOrigins = deps.config.corsOrigins ?? [];
  return {
    async fetch(request: Request, signal: AbortSignal = request.signal): Promise<Response> {
      return withCors(await dispatch(request, signal, deps, corsOrigins), request, corsOrigins);
    },
    stopping(): void {
      (deps.logs as ExecutionLogs | undefined)?.stopping();
    },
    plain(method: string, target: string): PlainResponse | undefined {
      // With CORS on, every answer carries `vary: origin` (cors.ts): those go through fetch.
      if (corsOrigins.length > 0 || method !== 'GET' || target.split('?')[0] !== '/health') return undefined;
      const { status, body } = healthOf(deps);
      return { status, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
    },
  };
}

/** The routes a browser may call across origins and so preflight: not the console (same origin), not FC's /pre-stop. */
function isPreflightRoute(pathname: string): boolean {
  return pathname === '/health' || pathname === '/' || CANCEL_PATH.test(pathname) || SUBSCRIBE_PATH.test(pathname) || THREAD_PATH.test(pathname);
}

async function dispatch(request: Request, signal: AbortSignal, deps: RouteDeps, corsOrigins: CorsOrigins): Promise<Response> {
  const url = new URL(request.url);
  const logger = deps.logger.child({ requestId: request.headers.get('x-fc-request-id') ?? crypto.randomUUID(), method: request.method, path: url.pathname });
  const language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
  const notFound = () => errorResponse(new AdapterError('NOT_FOUND', 'notFound'), language);
  // OPTIONS is named only where a preflight is answered: CORS on and one of the preflight routes
  // (not the console, not /pre-stop), docs/protocol.md §1.1, §1.5.
  const preflights = corsOrigins.length > 0 && isPreflightRoute(url.pathname);
  const methodNotAllowed = (methods: string) =>
    errorResponse(new AdapterError('METHOD_NOT_ALLOWED', 'methodNotAllowed'), language, { allow: preflights ? `${methods}, OPTIONS` : methods });
  const route = async (allowed: string, handle: () => Promise<Response> | Response): Promise<Response> => (request.method === allowed ? handle() : methodNotAllowed(allowed));
  // HEAD is GET without the body (docs/protocol.md §1.1).
  const readRoute = async (handle: () => Promise<Response> | Response): Promise<Response> => {
    if (request.method === 'HEAD') return withoutBody(await handle());
    return request.method === 'GET' ? handle() : methodNotAllowed('GET, HEAD');
  };
  try {
    // Preflights are open (no bearer token: browsers never send one on OPTIONS), docs/protocol.md §1.5.
    if (request.method === 'OPTIONS' && preflights) return preflightResponse(request, corsOrigins);
    if (url.pathname === '/health') return await readRoute(() => health(deps));
    if (url.pathname === '/') return await route('POST', async () => (await routesWithLogs(deps)).handleRun(request, signal, deps, logger));
    const consoleRoute = deps.console;
    if (consoleRoute && (url.pathname === '/console' || url.pathname.startsWith('/console/'))) return await readRoute(async () => (await consoleRoute(url.pathname)) ?? notFound());
    const cancel = CANCEL_PATH.exec(url.pathname);
    if (cancel) {
      const executionId = safeDecode(cancel[1] as string);
      return executionId === undefined ? await notFound() : await route('POST', async () => (await routesWithLogs(deps)).handleCancel(request, executionId, deps, logger));
    }
    const subscribe = SUBSCRIBE_PATH.exec(url.pathname);
    if (subscribe) {
      const executionId = safeDecode(subscribe[1] as string);
      return executionId === undefined
        ? await notFound()
        : await route('POST', async () => (await routesWithLogs(deps)).handleSubscribe(request, signal, executionId, deps, logger));
    }
    const thread = THREAD_PATH.exec(url.pathname);
    if (thread) {
      const threadId = safeDecode(thread[1] as string);
      if (threadId === undefined) return await notFound();
      if (thread[2] === '/subscribe') return await route('POST', async () => (await routesWithLogs(deps)).handleThreadSubscribe(request, signal, threadId, deps, logger));
      if (thread[2] === '/messages') return await readRoute(async () => (await routesWithLogs(deps)).handleThreadMessages(request, signal, threadId, deps, logger));
      return await readRoute(async () => (await routesWithLogs(deps)).handleThreadState(request, threadId, deps, logger));
    }
    // Only FC's own lifecycle call sees this path, and only inside FC (pre-stop-route.ts); to anyone
    // else it does not exist.
    const { preStop } = deps;
    if (url.pathname === PRE_STOP_PATH && preStop) {
      if (isPreStopCall(request)) return await route('GET', () => handlePreStop(signal, preStop, logger));
      if (request.method === 'GET') logUnmarkedPreStop(request, logger);
    }
    return await notFound();
  } catch (error) {
    logger.error('request failed', { error: errorFields(error) });
    return errorResponse(new AdapterError('INTERNAL_ERROR', 'internalError'), language);
  }
}

function withoutBody(response: Response): Response {
  return new Response(null, { status: response.status, headers: response.headers });
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * `GET /health` reveals versions and the store kind, never a URL, token or bucket (docs/protocol.md
 * §1.7): 200 `ok`, or 503 `unavailable` with the reason once the store can no longer be used by this
 * instance (its credentials refused), so Function Compute's health check replaces it.
 */
function healthOf(deps: AppDeps): { status: 200 | 503; body: Record<string, string> } {
  const problem = deps.storeHealth?.();
  const body: Record<string, string> = {
    status: problem ? 'unavailable' : 'ok',
    protocol: 'ag-ui',
    protocolPackageVersion: deps.versions.protocolPackageVersion,
    executionKernel: 'a2a-1.0',
    serverVersion: deps.versions.serverVersion,
    store: deps.storeKind,
  };
  if (problem) body['reason'] = problem;
  return { status: problem ? 503 : 200, body };
}

function health(deps: AppDeps): Response {
  const { status, body } = healthOf(deps);
  return jsonResponse(status, body);
}

/**
 * The adapter as a Web `Request → Response` function (SPEC §2). Runtime shells (the local Node
 * server, the FC web function) only convert sockets to Requests; tests call `fetch` in-process.
 */
import { randomUUID } from 'node:crypto';
import { errorFields } from '../core/error-fields.js';
import { AdapterError } from '../core/errors.js';
import type { Language } from '../core/i18n/catalogue.js';
import { languageFromAcceptLanguage } from '../core/i18n/language.js';
import type { A2AKernel, Logger, ThreadStore } from '../core/ports.js';
import type { Secret } from '../core/secret.js';
import { handleCancel } from './cancel-route.js';
import { errorResponse, jsonResponse } from './json-response.js';
import { LiveStreamGate } from './live-stream-gate.js';
import { handleRun } from './run-route.js';

export interface AppConfig {
  authToken: Secret | undefined;
  allowedRoots: string[];
  defaultLanguage: Language;
  heartbeatMs: number;
  leaseTtlMs: number;
  leaseRenewMs: number;
  /** IAC_CODE_AGUI_BODY_TIMEOUT_MS: time for a whole request body to arrive, else 408 (default 30 s). */
  bodyTimeoutMs?: number;
  /** IAC_CODE_AGUI_MAX_ACTIVE_RUNS: live runs of this instance before 503 SERVER_BUSY (default 1,000). */
  maxActiveRuns?: number;
}

export interface AppDeps {
  config: AppConfig;
  /** The thread store for this request (OSS credentials may arrive per request in FC, SPEC §6). */
  storeFor: (request: Request) => ThreadStore;
  storeKind: ThreadStore['kind'];
  kernel: A2AKernel;
  logger: Logger;
  clock: () => number;
  versions: { serverVersion: string; protocolPackageVersion: string };
}

export interface App {
  fetch(request: Request): Promise<Response>;
}

/** What the route handlers get: the app's dependencies and the instance's live-stream gate. */
export interface RouteDeps extends AppDeps {
  liveStreams: LiveStreamGate;
}

const CANCEL_PATH = /^\/extensions\/iac-code\/v1\/executions\/([^/]+)\/cancel$/;

export function createApp(appDeps: AppDeps): App {
  const deps: RouteDeps = { ...appDeps, liveStreams: new LiveStreamGate(appDeps.config.maxActiveRuns) };
  return {
    async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      const logger = deps.logger.child({ requestId: request.headers.get('x-fc-request-id') ?? randomUUID(), method: request.method, path: url.pathname });
      const language = languageFromAcceptLanguage(request.headers.get('accept-language'), deps.config.defaultLanguage);
      const notFound = () => errorResponse(new AdapterError('NOT_FOUND', 'notFound'), language);
      const route = (allowed: string, handle: () => Promise<Response> | Response): Promise<Response> | Response =>
        request.method === allowed ? handle() : errorResponse(new AdapterError('METHOD_NOT_ALLOWED', 'methodNotAllowed'), language, { allow: allowed });
      try {
        // HEAD is GET without the body (docs/protocol.md §1.1).
        if (url.pathname === '/health') {
          if (request.method === 'HEAD') return withoutBody(health(deps));
          return request.method === 'GET' ? health(deps) : errorResponse(new AdapterError('METHOD_NOT_ALLOWED', 'methodNotAllowed'), language, { allow: 'GET, HEAD' });
        }
        if (url.pathname === '/') return await route('POST', () => handleRun(request, deps, logger));
        const cancel = CANCEL_PATH.exec(url.pathname);
        if (cancel) {
          const executionId = safeDecode(cancel[1] as string);
          return executionId === undefined ? notFound() : await route('POST', () => handleCancel(request, executionId, deps, logger));
        }
        return notFound();
      } catch (error) {
        logger.error('request failed', { error: errorFields(error) });
        return errorResponse(new AdapterError('INTERNAL_ERROR', 'internalError'), language);
      }
    },
  };
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

/** `GET /health` reveals versions and the store kind, never a URL, token or bucket (SPEC §2). */
function health(deps: AppDeps): Response {
  return jsonResponse(200, {
    status: 'ok',
    protocol: 'ag-ui',
    protocolPackageVersion: deps.versions.protocolPackageVersion,
    executionKernel: 'a2a-1.0',
    serverVersion: deps.versions.serverVersion,
    store: deps.storeKind,
  });
}

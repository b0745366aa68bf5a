/**
 * A loopback FC 3.0 control-plane emulator (API 2023-03-30) for `npm run verify`'s tests: a real
 * HTTP server that the real @alicloud/fc20230330 client talks to, as the OSS emulator is for
 * ali-oss. Every request's V3 signature (ACS3-HMAC-SHA256) is recomputed and checked
 * (authenticate.ts); answers and errors have FC's JSON shapes (resources.ts, errors.ts). It serves
 * GetFunction, ListTriggers and GetTrigger for the functions a test seeds, STS GetCallerIdentity
 * (the account id), and records each request's action and outcome so tests can see what the
 * client asked.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenHttp, readBoundedBody } from '../http-server.js';
import { authenticate, type FcApiCredential } from './authenticate.js';
import { errorBody, FcApiError, fcApiErrors, newFcRequestId } from './errors.js';
import { type FcAccount, type FcFunctionSeed, functionArn, renderFunction, renderTrigger } from './resources.js';
import { type FcOperation, route, versionOf } from './routes.js';

export type { FcApiCredential } from './authenticate.js';
export type { FcFunctionSeed, FcTriggerSeed } from './resources.js';

export interface FcApiEmulatorOptions {
  /** Default one: { accessKeyId: 'test-ak', accessKeySecret: 'test-secret' }. */
  credentials?: FcApiCredential[];
  /** Default '1234567890123456' / 'cn-hangzhou': used in ARNs. */
  accountId?: string;
  region?: string;
  functions?: FcFunctionSeed[];
}

export interface FcApiRequestRecord {
  action: string;
  path: string;
  status: number;
  code?: string;
}

export interface FcApiEmulator {
  /** 'http://127.0.0.1:PORT' */
  endpoint: string;
  requests: FcApiRequestRecord[];
  seedFunction(seed: FcFunctionSeed): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_LIST_LIMIT = 20;

export async function startFcApiEmulator(options: FcApiEmulatorOptions = {}): Promise<FcApiEmulator> {
  const credentials = options.credentials ?? [{ accessKeyId: 'test-ak', accessKeySecret: 'test-secret' }];
  const account: FcAccount = { accountId: options.accountId ?? '1234567890123456', region: options.region ?? 'cn-hangzhou' };
  const functions = new Map<string, FcFunctionSeed>();
  for (const seed of options.functions ?? []) functions.set(seed.functionName, seed);
  const requests: FcApiRequestRecord[] = [];

  function answer(operation: FcOperation, query: URLSearchParams, requestId: string): unknown {
    if (operation.action === 'GetCallerIdentity') {
      return { AccountId: account.accountId, Arn: `acs:ram::${account.accountId}:user/verify`, IdentityType: 'RAMUser', RequestId: requestId };
    }
    const seed = functions.get(operation.functionName);
    if (seed === undefined) throw fcApiErrors.functionNotFound(operation.functionName);
    const triggers = seed.triggers ?? [];
    if (operation.action === 'GetFunction') return renderFunction(account, seed);
    if (operation.action === 'GetTrigger') {
      const trigger = triggers.find((candidate) => candidate.triggerName === operation.triggerName);
      if (trigger === undefined) throw fcApiErrors.triggerNotFound(operation.functionName, operation.triggerName);
      return renderTrigger(account, seed.functionName, trigger);
    }
    // ListTriggers: `prefix` filters, `limit` pages, `nextToken` is the name to resume from.
    const prefix = query.get('prefix') ?? '';
    const limit = Number(query.get('limit') ?? DEFAULT_LIST_LIMIT);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw fcApiErrors.invalidArgument('limit must be an integer from 1 to 100');
    const next = query.get('nextToken') ?? '';
    const matching = triggers.filter((trigger) => trigger.triggerName.startsWith(prefix) && trigger.triggerName >= next).sort((a, b) => (a.triggerName < b.triggerName ? -1 : 1));
    const page = matching.slice(0, limit);
    const rest = matching[limit];
    return { triggers: page.map((trigger) => renderTrigger(account, seed.functionName, trigger)), ...(rest ? { nextToken: rest.triggerName } : {}) };
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newFcRequestId();
    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const rawPath = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    const rawQuery = queryAt === -1 ? '' : rawUrl.slice(queryAt + 1);
    const action = String(req.headers['x-acs-action'] ?? '');
    let status = 200;
    let body: string;
    try {
      const requestBody = await readBoundedBody(req, MAX_BODY_BYTES, () => fcApiErrors.invalidArgument('request body too large'));
      const credential = authenticate(credentials, { method, rawPath, rawQuery, headers: req.headers, body: requestBody });
      const operation = route(method, rawPath, action);
      if (action !== operation.action) throw fcApiErrors.invalidArgument(`x-acs-action ${action} does not name ${method} ${rawPath} (${operation.action})`);
      if (req.headers['x-acs-version'] !== versionOf(operation)) throw fcApiErrors.invalidArgument(`x-acs-version must be ${versionOf(operation)}`);
      // GetCallerIdentity needs no permission (STS "GetCallerIdentity": no authorization).
      if (operation.action !== 'GetCallerIdentity' && credential.allowedActions !== undefined && !credential.allowedActions.includes(operation.action)) {
        throw fcApiErrors.accessDenied(operation.action, functionArn(account, operation.functionName));
      }
      body = JSON.stringify(answer(operation, new URLSearchParams(rawQuery), requestId));
    } catch (error) {
      const fcError = error instanceof FcApiError ? error : new FcApiError(500, 'InternalServerError', 'an internal error has occurred. Please retry.');
      status = fcError.status;
      body = errorBody(fcError, requestId);
      requests.push({ action, path: rawPath, status, code: fcError.code });
    }
    if (status === 200) requests.push({ action, path: rawPath, status });
    res.writeHead(status, { 'content-type': 'application/json', 'x-fc-request-id': requestId, 'x-acs-request-id': requestId });
    res.end(body);
  }

  const server = await listenHttp(serve);
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    requests,
    seedFunction: (seed) => functions.set(seed.functionName, seed),
    close: () => server.close(),
  };
}

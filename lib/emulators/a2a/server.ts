/**
 * The iac-code A2A emulator (docs/architecture.md §9.2): a real A2A 1.0 JSON-RPC server made with @a2a-js/sdk that
 * speaks the iac-code wire contract, plus iac-code's two HTTP endpoints. It records every request
 * it receives so tests can assert the exact A2A traffic, and checks an optional bearer token.
 * The adapter never knows it is talking to an emulator.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express, { type NextFunction, type Request, type Response } from 'express';
import { type EmulatorControls, EmulatorExecutor } from './executor.js';
import { EXPLORE_SCENARIO, exploreScenario } from './explore-scenario.js';
import { interruptScenarios } from './interrupt-scenarios.js';
import { mountKernelRoutes } from './kernel-routes.js';
import { messageGuard } from './message-guard.js';
import { observationScenarios } from './observation-scenarios.js';
import { pipelineLongScenario } from './pipeline-long-scenario.js';
import { floatsInMetadata } from './protobuf-numbers.js';
import { RESOURCE_SELECTION_SCENARIOS } from './resource-selection-scenarios.js';
import { rpcGuard } from './rpc-guard.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import type { HistoryMode } from './task-script.js';

export interface RecordedCall {
  /** JSON-RPC method, or "HTTP <METHOD> <path>" for the custom endpoints. */
  method: string;
  params: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface A2AEmulatorOptions {
  port?: number;
  host?: string;
  token?: string;
  silenceMs?: number;
  /** False: behave like v0.13.1, which has no /iac-code/session/ensure-restored (docs/protocol.md §7.8). */
  restoreRoute?: boolean;
  /** How a missing session is answered (EmulatorControls.missingSessionAnswer; default `status`). */
  missingSessionAnswer?: 'status' | 'error';
  /** How tasks keep streamed text in their history (EmulatorControls.historyMode; default `perDelta`, the kernel's way). */
  historyMode?: HistoryMode;
}

export interface A2AEmulator {
  url: string;
  calls: RecordedCall[];
  controls: EmulatorControls;
  executor: EmulatorExecutor;
  /** Calls of one JSON-RPC method, in order. */
  callsOf(method: string): RecordedCall[];
  close(): Promise<void>;
}

/** The kernel's metadata numbers are protobuf doubles (`1200.0`): every answer is written so (protobuf-numbers.ts). */
function protobufNumbers(_req: Request, res: Response, next: NextFunction): void {
  const asText = (chunk: unknown): string | undefined => (typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined);
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = asText(chunk);
    return write(text === undefined ? chunk : floatsInMetadata(text), ...rest);
  }) as Response['write'];
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => Response;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'function' ? undefined : asText(chunk);
    if (text === undefined) return end(chunk, ...rest);
    const floats = floatsInMetadata(text);
    // A JSON answer declared its length before it was rewritten.
    if (floats.length !== text.length && !res.headersSent) res.removeHeader('content-length');
    return end(floats, ...rest);
  }) as Response['end'];
  next();
}

function agentCard(url: string): AgentCard {
  return {
    name: 'iac-code emulator',
    description: 'Plays documented iac-code scenarios over A2A 1.0',
    version: '1.0.0',
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

export async function startA2AEmulator(options: A2AEmulatorOptions = {}): Promise<A2AEmulator> {
  const calls: RecordedCall[] = [];
  const controls: EmulatorControls = {
    scenarios: new Map<string, Scenario>(Object.entries(SCENARIOS)),
    nextScenario: undefined,
    silenceMs: options.silenceMs ?? 20_000,
    sessions: new Map(),
    restoreRoute: options.restoreRoute ?? true,
    missingSessionAnswer: options.missingSessionAnswer ?? 'status',
    watch: { observers: 1, timeoutMs: 10_000 },
    rpcFaults: [],
    snapshotInputs: 'full',
    historyMode: options.historyMode ?? 'perDelta',
  };
  for (const [name, scenario] of Object.entries(interruptScenarios(controls))) controls.scenarios.set(name, scenario);
  for (const [name, scenario] of Object.entries({ ...RESOURCE_SELECTION_SCENARIOS, 'pipeline-long': pipelineLongScenario })) controls.scenarios.set(name, scenario);
  for (const [name, scenario] of Object.entries(observationScenarios(controls))) controls.scenarios.set(name, scenario);
  controls.scenarios.set(EXPLORE_SCENARIO, exploreScenario);
  const executor = new EmulatorExecutor(controls);
  const app = express();
  let url = '';

  app.use(express.json({ limit: '64mb' }));
  app.use((req, res, next) => {
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.status(401).json({ error: { code: 'UNAUTHORIZED', message: 'A valid bearer token is required.' } });
      return;
    }
    const body = req.body as { method?: string; params?: unknown } | undefined;
    const isRpc = req.method === 'POST' && req.path === '/' && typeof body?.method === 'string';
    calls.push({
      method: isRpc ? (body?.method as string) : `HTTP ${req.method} ${req.path}`,
      params: isRpc ? body?.params : req.method === 'GET' ? req.query : req.body,
      headers: { ...req.headers },
    });
    next();
  });
  app.use(protobufNumbers);
  app.use(rpcGuard(controls, executor.scripts));
  app.use(messageGuard(controls, executor.scripts));
  mountKernelRoutes(app, controls, executor.scripts);

  const handler = new DefaultRequestHandler(agentCard('http://placeholder/'), new InMemoryTaskStore(), executor);
  app.get('/.well-known/agent-card.json', (_req, res) => {
    res.json(agentCard(url));
  });
  app.post('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve(listening));
  });
  const address = server.address() as AddressInfo;
  url = `http://${options.host ?? '127.0.0.1'}:${address.port}/`;

  return {
    url,
    calls,
    controls,
    executor,
    callsOf: (method) => calls.filter((call) => call.method === method),
    close: () =>
      new Promise<void>((resolve) => {
        for (const script of executor.scripts.values()) script.controller.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

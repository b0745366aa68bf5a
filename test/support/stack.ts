/**
 * A real local stack for integration tests: the A2A emulator (real A2A server), the adapter app
 * behind a real loopback HTTP server, and a thread store. Logs are captured for secret checks.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { createLogger } from '../../lib/adapters/logger.js';
import { listen, type RunningServer } from '../../lib/adapters/node-server/node-server.js';
import { versions } from '../../lib/adapters/versions.js';
import { type BuiltConsole, buildConsole } from '../../lib/console/build/build-console.js';
import type { A2AKernel, ThreadStore, TokenVerifier } from '../../lib/core/ports.js';
import { secretFrom } from '../../lib/core/secret.js';
import { type A2AEmulator, type A2AEmulatorOptions, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type App, type AppConfig, createApp } from '../../lib/http/app.js';
import { type ConsoleSettings, createConsoleRoute } from '../../lib/http/console-route.js';
import { MemoryThreadStore } from './memory-store.js';
import { readSse, type SseRecord } from './sse.js';

export interface StackOptions {
  store?: ThreadStore | 'memory' | 'file';
  config?: Partial<Omit<AppConfig, 'authToken'>> & { authToken?: string };
  emulator?: A2AEmulatorOptions;
  /** Token the adapter sends to the kernel. */
  kernelToken?: string;
  /** Wraps the real kernel (fault injection a real emulator cannot produce). */
  wrapKernel?: (kernel: A2AKernel) => A2AKernel;
  kernelUrl?: string;
  /** Share an emulator between stacks (an adapter restart keeps the kernel running). */
  emulatorInstance?: A2AEmulator;
  /** Use the file store in this directory (an adapter restart keeps its state). */
  stateDir?: string;
  /** The store per request (e.g. the OSS provider, bound to each request's credentials); `store` stays the stack's own handle. */
  storeFor?: (request: Request) => ThreadStore;
  /** The identity provider's verifier (docs/protocol.md §1.2): bearer tokens other than the shared one are checked as people's JWTs. */
  tokens?: TokenVerifier;
  /** Serve the web console at /console, as `npm start` does (authRequired follows the token and the verifier). */
  console?: Omit<ConsoleSettings, 'authRequired'>;
  /**
   * false: the store keeps no event journal (a driver without one, or runs from before it): runs have
   * ids but nothing to reattach to, and subscribe observes from the kernel (docs/protocol.md §6.15).
   */
  journal?: false;
}

/** The store without its journal (StackOptions.journal). */
function withoutJournal(store: ThreadStore): ThreadStore {
  return {
    kind: store.kind,
    load: (threadId) => store.load(threadId),
    save: (threadId, document, expected) => store.save(threadId, document, expected),
    ...(store.cached ? { cached: (threadId: string) => store.cached?.(threadId) } : {}),
  };
}

/** One console build per test process: the app under test is the same for every stack. */
let consoleBuild: Promise<BuiltConsole> | undefined;

export interface Stack {
  emulator: A2AEmulator;
  app: App;
  server: RunningServer;
  url: string;
  store: ThreadStore;
  stateDir: string | undefined;
  logs: string[];
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  run(body: unknown, headers?: Record<string, string>): Promise<{ status: number; sse: SseRecord; json: unknown }>;
  close(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const emulator = options.emulatorInstance ?? (await startA2AEmulator({ silenceMs: 1_500, ...options.emulator }));
  let stateDir: string | undefined;
  let store: ThreadStore;
  if (options.store === 'file' || options.stateDir) {
    stateDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'agui-state-')));
    store = new FileThreadStore(stateDir);
  } else if (options.store && options.store !== 'memory') {
    store = options.store;
  } else {
    store = new MemoryThreadStore();
  }
  if (options.journal === false) store = withoutJournal(store);
  const logs: string[] = [];
  const logger = createLogger((line) => logs.push(line));
  const realKernel = new SdkA2AKernel({ url: options.kernelUrl ?? emulator.url, token: secretFrom(options.kernelToken) });
  const kernel = options.wrapKernel ? options.wrapKernel(realKernel) : realKernel;
  const { authToken, ...config } = options.config ?? {};
  const app = createApp({
    config: {
      authToken: secretFrom(authToken),
      allowedRoots: [],
      defaultLanguage: 'en',
      heartbeatMs: 15_000,
      leaseTtlMs: 30_000,
      leaseRenewMs: 10_000,
      ...config,
    },
    storeFor: options.storeFor ?? (() => store),
    backgroundStore: () => store,
    storeKind: store.kind,
    kernel,
    ...(options.tokens ? { tokens: options.tokens } : {}),
    images: new SharpImageCodec(),
    logger,
    clock: Date.now,
    versions,
    ...(options.console
      ? { console: createConsoleRoute(() => (consoleBuild ??= buildConsole()), { ...options.console, authRequired: Boolean(authToken) || Boolean(options.tokens) }) }
      : {}),
  });
  const server = await listen(app, logger, '127.0.0.1', 0, { bodyTimeoutMs: config.bodyTimeoutMs });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    emulator,
    app,
    server,
    url: server.url,
    store,
    stateDir,
    logs,
    post,
    async run(body, headers) {
      const response = await post('/', body, headers);
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
        return { status: response.status, sse: await readSse(response), json: undefined };
      }
      return { status: response.status, sse: { events: [], raw: '' }, json: await response.json() };
    },
    async close() {
      await server.close();
      if (!options.emulatorInstance) await emulator.close();
    },
  };
}

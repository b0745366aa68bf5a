/**
 * The one start-up path of every entry point (docs/architecture.md §6): `npm start` and
 * `npm run start:oss` (scripts/local-stack.ts) and the Function Compute function
 * (functions/agui/index.ts, which `npm run local:fc` runs as FC would).
 *
 * 1. Parse the configuration (lib/adapters/config.ts). Locally the emulators the configuration
 *    calls for start first and hand their addresses back as configuration.
 * 2. Build the app (compose.ts) and listen.
 * 3. On SIGTERM or SIGINT: drain, abort, clean up (node-server/graceful-shutdown.ts) — so a live
 *    run's client gets RUN_ERROR CANCELLED, the kernel gets CancelTask and the lease is released —
 *    then close the emulators (after the CancelTask calls reached them), then exit.
 * 4. On FC's PreStop hook (GET /pre-stop, lib/http/pre-stop-route.ts; wired in only when
 *    FC_SERVER_PORT is set): the same drain, abort and clean-up with the same deadlines, answered
 *    once done; the process keeps running (FC stops the instance itself after the hook), so a later
 *    signal finds nothing left to drain.
 *
 * A start-up failure stops the process with one line: `configuration error: <message naming the
 * variable>` on a terminal, one JSON log line in FC, where only log lines are collected.
 *
 * The emulators are handed in by the local entry and never imported here, so lib/emulators (and
 * express) stay out of the function bundle.
 */
import { errorFields } from '../core/error-fields.js';
import type { Logger } from '../core/ports.js';
import type { ConsoleRoute, ConsoleSettings } from '../http/console-route.js';
import { composeApp, consoleSettingsOf, identityProviderOf } from './compose.js';
import {
  ConfigError,
  type EntryConfig,
  type Env,
  envWithEmulators,
  instanceLogFields,
  type LocalEmulatorPlan,
  loadConfig,
  localEmulatorPlan,
  type Platform,
  type StartedEmulators,
} from './config.js';
import { createLogger, type LogSink } from './logger.js';
import { exitOnSignals, type ShutdownReport, type SignalOptions, shutDown } from './node-server/graceful-shutdown.js';
import { listen, type RunningServer } from './node-server/node-server.js';

/** Emulators the local stack started: where they listen, and how to stop them. */
export interface RunningEmulators extends StartedEmulators {
  close(): Promise<void>;
}

interface CommonOptions {
  /** Default: process.env. */
  env?: Env;
  /** Where log lines go (default: stdout). */
  logSink?: LogSink;
  /** Where a start-up failure's one line goes (default: stderr). */
  errorSink?: (line: string) => void;
  /** Default: process.exit. */
  exit?: (code: number) => void;
  /** Where SIGTERM/SIGINT come from (default: the process; tests pass an emitter). */
  signals?: SignalOptions['signals'];
  /**
   * The web console's route, asked for only when IAC_CODE_AGUI_CONSOLE=1: the local stack builds it
   * in memory, the FC entry reads the copy `npm run build` put beside the bundle. Either way the
   * console's code is loaded by a dynamic import inside this callback, never at start-up otherwise.
   * `settings`: what the page is told of authentication (compose.ts, consoleSettingsOf).
   */
  loadConsole?: (settings: ConsoleSettings, logger: Logger) => Promise<ConsoleRoute>;
}

export interface LocalStartOptions<E extends RunningEmulators> extends CommonOptions {
  platform: 'local';
  /** Starts what the plan asks for (nothing, the A2A emulator, the OSS emulator or both). */
  startEmulators: (plan: LocalEmulatorPlan) => Promise<E>;
  /** Once listening: the local stack prints its URL and a curl example. */
  onListening?: (adapter: RunningAdapter<E>) => void;
}

export interface FunctionComputeStartOptions extends CommonOptions {
  platform: 'function-compute';
}

export interface RunningAdapter<E extends RunningEmulators | undefined = undefined> {
  config: EntryConfig;
  server: RunningServer;
  logger: Logger;
  emulators: E;
}

/** One line for a JSON log (FC); a terminal also gets the stack of anything but a configuration error. */
function describeFailure(error: unknown, platform: Platform): string {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  if (platform === 'local' && error instanceof Error && error.stack) return error.stack;
  return `start-up failed: ${error instanceof Error ? error.message : String(error)}`;
}

export async function startAdapter<E extends RunningEmulators>(options: LocalStartOptions<E>): Promise<RunningAdapter<E> | undefined>;
export async function startAdapter(options: FunctionComputeStartOptions): Promise<RunningAdapter | undefined>;
export async function startAdapter<E extends RunningEmulators>(options: LocalStartOptions<E> | FunctionComputeStartOptions): Promise<RunningAdapter<E | undefined> | undefined> {
  const env = options.env ?? process.env;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const errorSink = options.errorSink ?? ((line: string) => process.stderr.write(`${line}\n`));
  // FC_FUNCTION_NAME / FC_INSTANCE_ID: on every line, the line of a configuration error included.
  const fields = instanceLogFields(env);
  let emulators: E | undefined;
  try {
    if (options.platform === 'local') emulators = await options.startEmulators(localEmulatorPlan(env));
    const config = loadConfig(emulators ? envWithEmulators(env, emulators) : env, { platform: options.platform });
    const logger = createLogger(options.logSink, fields, config.logLevel);
    // One identity provider for the routes and the console's sign-in: one cache of its keys and endpoints.
    const identity = identityProviderOf(config, logger);
    const consoleRoute = config.console ? await options.loadConsole?.(consoleSettingsOf(config, identity), logger) : undefined;
    // The app is built before the server exists; the PreStop drain reaches the server once it listens.
    let running: RunningServer | undefined;
    let preStopDrain: Promise<ShutdownReport> | undefined;
    // The hook's own requests are not drained: a repeated call waits for the same drain. Known by
    // the signal the app got, held weakly: a hook request that has ended is nothing to remember.
    const hookRequests = new WeakSet<AbortSignal>();
    const preStop = (signal: AbortSignal): Promise<ShutdownReport> => {
      if (!running) return Promise.reject(new Error('pre-stop before the server listens'));
      hookRequests.add(signal);
      preStopDrain ??= shutDown(running, config.shutdown, logger, { exempt: (live) => hookRequests.has(live), keepListening: true });
      return preStopDrain;
    };
    // The hook exists only where FC can call it (FC_SERVER_PORT set): anywhere else anyone could drain the instance.
    const extras = { console: consoleRoute, ...(identity ? { identity } : {}), ...(config.preStopHook ? { preStop } : {}) };
    const server = await listen(composeApp(config, logger, extras), logger, config.host, config.port, { bodyTimeoutMs: config.bodyTimeoutMs });
    running = server;
    exitOnSignals(server, config.shutdown, logger, { exit, signals: options.signals, afterShutdown: async () => emulators?.close() });
    // The Node release is on the line so a deployment shows which one FC's layer gave it (docs/deploy.md).
    logger.info('listening', { url: server.url, host: config.host, port: config.port, store: config.store, node: process.version });
    const adapter = { config, server, logger, emulators };
    if (options.platform === 'local') options.onListening?.(adapter as RunningAdapter<E>);
    return adapter;
  } catch (error) {
    await emulators?.close().catch(() => undefined);
    const reason = describeFailure(error, options.platform);
    if (options.platform === 'function-compute') createLogger(errorSink, fields).error(reason, error instanceof ConfigError ? undefined : { error: errorFields(error) });
    else errorSink(reason);
    exit(1);
    return undefined;
  }
}

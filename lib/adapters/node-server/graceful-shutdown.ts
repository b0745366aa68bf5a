/**
 * Graceful shutdown of an adapter instance (SIGTERM in Function Compute, Ctrl-C locally):
 *
 * 1. stop accepting connections;
 * 2. let live requests — streaming runs included — finish, up to the drain deadline;
 * 3. abort the requests still live: aborting a request's signal makes the app run its disconnect
 *    policy (docs/protocol.md §6.8: cancel the A2A task when no interrupt is pending) and release
 *    the thread lease in the same write (docs/protocol.md §6.6);
 * 4. wait for that clean-up, up to the clean-up deadline, and only then let the process exit.
 *
 * So a lease is never left held without reason: the only one left is a run whose clean-up could
 * not finish in time (e.g. an unreachable store), and that lease expires by itself after its TTL
 * and is taken over by the next run (docs/protocol.md §6.6).
 */
import { errorFields } from '../../core/error-fields.js';
import type { Logger } from '../../core/ports.js';
import { InstanceShuttingDown } from '../../http/shutdown.js';
import type { Exempt, RunningServer } from './node-server.js';

/** IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS / _CLEANUP_MS, read by the configuration (lib/adapters/config.ts). */
export interface ShutdownPolicy {
  /** How long live requests may go on after the signal before they are aborted. */
  drainMs: number;
  /** How long aborted runs get to finish their clean-up (CancelTask, lease release). */
  cleanupMs: number;
}

export interface ShutdownReport {
  /** Every request finished on its own within the drain deadline. */
  drained: boolean;
  /** Requests aborted at the drain deadline. */
  aborted: number;
  /** Requests whose clean-up had not finished at the clean-up deadline. */
  abandoned: number;
}

/** True when `work` settled within `ms`. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * FC's PreStop hook (GET /pre-stop, docs/architecture.md §6) drains the same way from inside a
 * request: the hook's requests are exempt — neither waited for nor aborted — and the server keeps
 * listening and stays open, because FC stops the instance itself once the hook has answered
 * (its health check keeps an answer meanwhile; a later SIGTERM then finds nothing in flight).
 */
export interface DrainScope {
  exempt?: Exempt;
  keepListening?: boolean;
}

export async function shutDown(server: RunningServer, policy: ShutdownPolicy, logger: Logger, scope: DrainScope = {}): Promise<ShutdownReport> {
  const { exempt } = scope;
  if (!scope.keepListening) server.stopAccepting();
  logger.info(scope.keepListening ? 'draining for pre-stop' : 'shutting down', {
    inFlight: server.inFlight.sizeExcept(exempt),
    drainMs: policy.drainMs,
    cleanupMs: policy.cleanupMs,
  });
  const drained = await settlesWithin(server.inFlight.idle(exempt), policy.drainMs);
  let aborted = 0;
  let abandoned = 0;
  if (!drained) {
    // Resumable runs hand themselves over first — those whose caller already left included, whose
    // request's signal aborted long ago (docs/protocol.md §6.15).
    server.stopping();
    aborted = server.inFlight.abortAll(new InstanceShuttingDown(), exempt);
    logger.warn('drain deadline passed; aborting live requests (their runs cancel and release their threads)', { aborted });
    if (!(await settlesWithin(server.inFlight.idle(exempt), policy.cleanupMs))) {
      abandoned = server.inFlight.sizeExcept(exempt);
      logger.error('clean-up deadline passed; their leases expire by themselves', { abandoned });
    }
  }
  if (!scope.keepListening) await server.close();
  logger.info(scope.keepListening ? 'drained for pre-stop' : 'shut down', { drained, aborted, abandoned });
  return { drained, aborted, abandoned };
}

/**
 * Shuts down on SIGTERM or SIGINT, then exits (0 when every clean-up finished). A second signal
 * exits at once: whoever sends it has decided not to wait. Returns a function removing the handlers.
 *
 * Except the same signal once more within RELAYED_REPEAT_MS of the first: that is the first one
 * relayed, not a second decision. A signal sent to the whole process group of `npm start` — a
 * terminal's Ctrl-C (SIGINT), systemd's default `KillMode=control-group`, a process manager or
 * `kill -TERM -<pgid>` (SIGTERM) — reaches the adapter directly, and npm forwards it to its child
 * once more within a millisecond. Only one repeat is taken so: a third signal, or one after the
 * window, exits at once (docs/architecture.md §6.4).
 */
export const RELAYED_REPEAT_MS = 1_000;

export interface SignalOptions {
  exit?: (code: number) => void;
  /**
   * Runs after the shutdown, before the exit: the local stack closes the emulators it started
   * there, only once the aborted runs' CancelTask calls have reached them (docs/architecture.md §6).
   */
  afterShutdown?: () => Promise<void>;
  /** Where the signals come from (tests pass their own emitter). */
  signals?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Milliseconds clock, to tell a relayed repeat from a second signal (tests pass their own). */
  now?: () => number;
}

export function exitOnSignals(server: RunningServer, policy: ShutdownPolicy, logger: Logger, options: SignalOptions = {}): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? process;
  const now = options.now ?? Date.now;
  let first: { signal: NodeJS.Signals; at: number; relayed: boolean } | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (first) {
      if (!first.relayed && signal === first.signal && now() - first.at < RELAYED_REPEAT_MS) {
        first.relayed = true;
        logger.info('signal repeated by a parent process; still shutting down', { signal });
        return;
      }
      logger.warn('second signal; exiting without waiting', { signal });
      exit(1);
      return;
    }
    first = { signal, at: now(), relayed: false };
    logger.info('signal received', { signal });
    shutDown(server, policy, logger)
      .then(async (report) => {
        await options.afterShutdown?.();
        return report;
      })
      .then(
        (report) => exit(report.abandoned === 0 ? 0 : 1),
        (error: unknown) => {
          logger.error('shutdown failed', { error: errorFields(error) });
          exit(1);
        },
      );
  };
  signals.on('SIGTERM', onSignal);
  signals.on('SIGINT', onSignal);
  return () => {
    signals.off('SIGTERM', onSignal);
    signals.off('SIGINT', onSignal);
  };
}

/**
 * Runs the sweeper (lib/core/reattach/sweeper.ts; docs/protocol.md §6.15) on this instance, from its
 * first POST on — never at start-up, which stays light (docs/architecture.md §6.3) — on the store
 * of the instance's own credentials (AppDeps.backgroundStore). Every instance sweeps; each entry is
 * settled by a compare-and-swap, so two sweeps of one entry do no harm.
 */
import { errorFields } from '../core/error-fields.js';
import { JOURNAL_RETENTION_MS } from '../core/reattach/execution-logs.js';
import { sweep } from '../core/reattach/sweeper.js';
import type { AppDeps } from './app.js';

const started = new WeakSet<object>();

/** The interval: a quarter of the grace (1–5 s), so a detached run ends close to its deadline; else every 30 s, for expired journals. */
export function sweepInterval(graceMs: number): number {
  return graceMs > 0 ? Math.min(5_000, Math.max(1_000, Math.floor(graceMs / 4))) : 30_000;
}

export function startSweeper(deps: AppDeps): void {
  if (started.has(deps) || !deps.backgroundStore) return;
  started.add(deps);
  const backgroundStore = deps.backgroundStore;
  let running = false;
  const timer = setInterval(
    () => {
      if (running) return;
      running = true;
      void (async () => {
        try {
          await sweep({
            store: backgroundStore(),
            kernel: deps.kernel,
            clock: deps.clock,
            logger: deps.logger,
            language: deps.config.defaultLanguage,
            retentionMs: JOURNAL_RETENTION_MS,
          });
        } catch (error) {
          deps.logger.warn('sweep failed; the next one tries again', { error: errorFields(error) });
        } finally {
          running = false;
        }
      })();
    },
    sweepInterval(deps.config.detachGraceMs ?? 0),
  );
  timer.unref?.();
}

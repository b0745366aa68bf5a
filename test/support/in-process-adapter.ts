/**
 * The local entry's start-up path (lib/adapters/start-adapter.ts, docs/architecture.md §6) run in the
 * test's own process: a free port, a fresh state directory, the emulators `startEmulators` gives,
 * and the process edges — log lines, signals, the exit — in the test's hands.
 */
import { EventEmitter } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env, LocalEmulatorPlan } from '../../lib/adapters/config.js';
import { type RunningAdapter, type RunningEmulators, startAdapter } from '../../lib/adapters/start-adapter.js';
import { freePort } from './adapter-process.js';

export interface InProcessAdapter<E extends RunningEmulators> {
  /** Undefined when start-up failed (its line is in `logs`, its exit code in `exitCode`). */
  adapter: RunningAdapter<E> | undefined;
  logs: string[];
  /** Emit 'SIGTERM' / 'SIGINT' here to signal the adapter. */
  signals: EventEmitter;
  /** What the adapter passed to `exit`. */
  exitCode: Promise<number>;
}

/** `env` adds to the port and state directory (IAC_CODE_AGUI_PORT, IAC_CODE_AGUI_STATE_DIR) given here. */
export async function startInProcessAdapter<E extends RunningEmulators>(env: Env, startEmulators: (plan: LocalEmulatorPlan) => Promise<E>): Promise<InProcessAdapter<E>> {
  const logs: string[] = [];
  const signals = new EventEmitter();
  let exited!: (code: number) => void;
  const exitCode = new Promise<number>((resolve) => (exited = resolve));
  const adapter = await startAdapter({
    platform: 'local',
    env: {
      IAC_CODE_AGUI_PORT: String(await freePort()),
      IAC_CODE_AGUI_STATE_DIR: await mkdtemp(join(tmpdir(), 'agui-in-process-')),
      ...env,
    },
    startEmulators,
    logSink: (line) => logs.push(line),
    signals,
    exit: exited,
  });
  return { adapter, logs, signals, exitCode };
}

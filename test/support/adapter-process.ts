/**
 * A real adapter process (`scripts/start-local.ts`, as `npm start` runs it) for multi-instance
 * tests: its own Node process, port and memory, sharing only what docs/protocol.md §6.12 lets
 * instances share — the thread store (an OSS bucket) and the A2A kernel. Nothing of this shell's
 * IAC_CODE_* or ALIBABA_CLOUD_* environment leaks in (scripts/support/adapter-process.ts). With
 * `viaNpm` it is `npm start` itself in a process group of its own, signalled as a group.
 */
import { type SpawnedAdapter, type SpawnOptions, spawnAdapter } from '../../scripts/support/adapter-process.js';

export { freePort } from '../../scripts/support/adapter-process.js';

export interface AdapterProcess extends SpawnedAdapter {
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startAdapterProcess(env: Record<string, string>, options: SpawnOptions | number = {}): Promise<AdapterProcess> {
  const spawned = await spawnAdapter(env, options);
  const { child, exited } = spawned;
  return {
    ...spawned,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      // A group is signalled even when npm is gone: node may outlive it.
      if (typeof options === 'object' && options.viaNpm) spawned.signal(signal);
      else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

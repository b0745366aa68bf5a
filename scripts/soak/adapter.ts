/**
 * The adapter under soak: its own process, started as `npm start` starts it (scripts/start-local.ts)
 * against a kernel the soak controls, so its memory is measured alone. Its log lines are kept and
 * its resident memory can be read at any moment.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { spawnAdapter } from '../support/adapter-process.js';

export interface SoakAdapter {
  url: string;
  pid: number;
  /** The adapter's JSON log lines so far. */
  lines(): Array<Record<string, unknown>>;
  /** Resident set size in bytes. */
  rss(): Promise<number>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

async function residentBytes(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    if (kib) return Number(kib) * 1024;
  } catch {
    // not Linux: ask ps
  }
  const { stdout } = await promisify(execFile)('ps', ['-o', 'rss=', '-p', String(pid)]);
  return Number(stdout.trim()) * 1024;
}

export async function startSoakAdapter(env: Record<string, string>): Promise<SoakAdapter> {
  const { url, child, output, exited } = await spawnAdapter(env);
  return {
    url,
    pid: child.pid as number,
    lines: () =>
      output
        .join('')
        .split('\n')
        .flatMap((line) => {
          if (!line.startsWith('{')) return [];
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            // a line still being written
            return [];
          }
        }),
    rss: () => residentBytes(child.pid as number),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

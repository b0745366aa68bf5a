/**
 * The adapter under soak: its own process, started as `npm start` starts it (scripts/start-local.ts)
 * against a kernel the soak controls, so its memory is measured alone. Its log lines are kept and
 * its resident memory can be read at any moment.
 */
import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '../..');

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
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
  const port = await freePort();
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('IAC_CODE_') && !name.startsWith('ALIBABA_CLOUD_')) clean[name] = value;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts'], {
    cwd: ROOT,
    env: { ...clean, IAC_CODE_AGUI_HOST: '127.0.0.1', IAC_CODE_AGUI_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let pending = '';
  const collect = (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    output.push(...complete);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const found = output.map((line) => /listening on (http:\/\/\S+)/.exec(line)?.[1]).find(Boolean);
      if (found) {
        clearInterval(timer);
        resolve(found);
      }
    }, 50);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`the adapter exited during start-up:\n${output.join('\n')}`));
    });
  });
  return {
    url,
    pid: child.pid as number,
    lines: () =>
      output.flatMap((line) => {
        if (!line.startsWith('{')) return [];
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
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

/**
 * A real adapter process (`scripts/start-local.ts`, as `npm start` runs it) for multi-instance
 * tests: its own Node process, port and memory, sharing only what docs/protocol.md §6.12 lets instances share —
 * the thread store (an OSS bucket) and the A2A kernel. Nothing of this shell's IAC_CODE_* or
 * ALIBABA_CLOUD_* environment leaks in.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

export interface AdapterProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far. */
  output: string[];
  exited: Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A port that was free a moment ago (the OS hands out a fresh one for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('IAC_CODE_') || name.startsWith('ALIBABA_CLOUD_') || name === 'FC_SERVER_PORT') continue;
    env[name] = value;
  }
  return env;
}

export async function startAdapterProcess(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<AdapterProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts'], {
    cwd: ROOT,
    env: { ...cleanEnvironment(), IAC_CODE_AGUI_HOST: '127.0.0.1', IAC_CODE_AGUI_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`adapter did not start:\n${output.join('')}`)), readyTimeoutMs);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'));
      const found = /listening on (http:\/\/\S+)/.exec(output.join(''));
      if (found) {
        clearTimeout(timer);
        resolve(found[1] as string);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`adapter exited before listening:\n${output.join('')}`));
    });
  });
  return {
    url,
    child,
    output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

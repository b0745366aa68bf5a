/**
 * The adapter in a process of its own, started as `npm start` starts it (scripts/start-local.ts) on
 * a free loopback port, with none of this shell's IAC_CODE_*, ALIBABA_CLOUD_* or FC_SERVER_PORT
 * settings: only what `env` says. The soak (scripts/soak) and the multi-instance and `npm start`
 * tests (test/support/adapter-process.ts) start it through here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/** A loopback port that was free a moment ago (the OS hands out a fresh one for port 0). */
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

export interface SpawnedAdapter {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr), chunk by chunk. */
  output: string[];
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** Starts the adapter and resolves once it printed the URL it listens on. */
export async function spawnAdapter(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<SpawnedAdapter> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts'], {
    cwd: ROOT,
    env: { ...cleanEnvironment(), IAC_CODE_AGUI_HOST: '127.0.0.1', IAC_CODE_AGUI_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let listening: ((url: string) => void) | undefined;
  const onData = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    // Searched only until found: a soak's adapter prints for hours.
    const found = listening && /listening on (http:\/\/\S+)/.exec(output.join(''));
    if (found) listening?.(found[1] as string);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`adapter did not start:\n${output.join('')}`)), readyTimeoutMs);
    listening = (found) => {
      listening = undefined;
      clearTimeout(timer);
      resolve(found);
    };
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`adapter exited before listening:\n${output.join('')}`));
    });
  });
  return { url, child, output, exited };
}

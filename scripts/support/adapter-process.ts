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
  /** The process started: node itself, or with `viaNpm` npm, the leader of its own process group. */
  child: ChildProcess;
  /**
   * Sends `signal` as the adapter's supervisor would: to node itself, or with `viaNpm` to the whole
   * process group (`kill -TERM -<pgid>`, systemd's `KillMode=control-group`) — npm and node both.
   */
  signal(signal: NodeJS.Signals): void;
  /** Everything it printed so far (stdout and stderr), chunk by chunk. */
  output: string[];
  /** Its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

export interface SpawnOptions {
  readyTimeoutMs?: number;
  /**
   * Start it as a user or a service unit does, `npm start`, in a process group of its own: npm
   * relays the signals it gets to node, so a signal to the group reaches node twice.
   */
  viaNpm?: boolean;
}

/** npm's own CLI when this process runs under npm (npm test), else the npm on PATH. */
function npmCommand(): { command: string; args: string[] } {
  const cli = process.env['npm_execpath'];
  return cli?.endsWith('.js') ? { command: process.execPath, args: [cli] } : { command: 'npm', args: [] };
}

/** Starts the adapter and resolves once it printed the URL it listens on. */
export async function spawnAdapter(env: Record<string, string>, options: SpawnOptions | number = {}): Promise<SpawnedAdapter> {
  const { readyTimeoutMs = 30_000, viaNpm = false } = typeof options === 'number' ? { readyTimeoutMs: options } : options;
  const port = await freePort();
  const npm = npmCommand();
  const [command, args] = viaNpm ? [npm.command, [...npm.args, 'start', '--silent']] : [process.execPath, ['--import', 'tsx', 'scripts/start-local.ts']];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...cleanEnvironment(), IAC_CODE_AGUI_HOST: '127.0.0.1', IAC_CODE_AGUI_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: viaNpm,
  });
  const signal = (name: NodeJS.Signals): void => {
    if (!viaNpm || child.pid === undefined) {
      child.kill(name);
      return;
    }
    try {
      process.kill(-child.pid, name);
    } catch (error) {
      // The group is gone: everything in it exited already.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
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
  return { url, child, signal, output, exited };
}

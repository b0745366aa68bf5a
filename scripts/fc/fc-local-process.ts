/**
 * The built bundle as a child process, started the way FC's custom runtime starts it
 * (docs/architecture.md §6): s.yaml's command and args (render-s-yaml.ts) in the code folder, FC's
 * own variables (FC_SERVER_PORT, FC_FUNCTION_NAME, FC_INSTANCE_ID…), s.yaml's environment, and
 * nothing inherited from this shell but PATH. FC's Node (/var/fc/lang/nodejs20/bin/node) is this
 * machine's node when that path is absent. `npm run local:fc`, the FC tests and the FC bench start
 * the bundle through `startFcLocal`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { FcRuntime } from './render-s-yaml.js';

export type LocalStore = 'file' | 'oss';

/** Where the bundle finds OSS locally, and the role credentials FC would hand it. */
export interface LocalOss {
  endpoint: string;
  bucket: string;
  region: string;
  /** FC sets ALIBABA_CLOUD_* for the function's role; omit them to rely on the per-request x-fc-* headers. */
  credentials?: { accessKeyId: string; accessKeySecret: string; securityToken?: string };
}
type Env = Record<string, string>;

/** The store settings the bundle gets locally: the file store in stateDir, or OSS at `oss`. */
function storeEnvironment(store: LocalStore, stateDir: string, oss: LocalOss | undefined): Env {
  if (store === 'file') return { IAC_CODE_AGUI_STATE_STORE: 'file', IAC_CODE_AGUI_STATE_DIR: stateDir };
  if (!oss) throw new Error('local:fc with the OSS store needs the OSS endpoint (options.oss)');
  const env: Env = { IAC_CODE_AGUI_STATE_STORE: 'oss', IAC_CODE_AGUI_OSS_ENDPOINT: oss.endpoint, IAC_CODE_AGUI_OSS_BUCKET: oss.bucket, IAC_CODE_AGUI_OSS_REGION: oss.region };
  if (oss.credentials) {
    env['ALIBABA_CLOUD_ACCESS_KEY_ID'] = oss.credentials.accessKeyId;
    env['ALIBABA_CLOUD_ACCESS_KEY_SECRET'] = oss.credentials.accessKeySecret;
    if (oss.credentials.securityToken) env['ALIBABA_CLOUD_SECURITY_TOKEN'] = oss.credentials.securityToken;
  }
  return env;
}

/** FC's own variables for a custom-runtime instance (FC 3.0 "environment variables" reference). */
function functionComputeVariables(runtime: FcRuntime, port: number): Env {
  return {
    FC_SERVER_PORT: String(port),
    FC_CUSTOM_LISTEN_PORT: String(port),
    FC_FUNCTION_NAME: runtime.functionName,
    FC_REGION: runtime.region,
    FC_ACCOUNT_ID: '1000000000000000',
    FC_INSTANCE_ID: `local-${randomUUID()}`,
    FC_FUNCTION_MEMORY_SIZE: String(runtime.memorySize),
    FC_FUNC_CODE_PATH: runtime.codeDir,
  };
}

/** FC's Node 20 when it exists (it does inside FC), else this machine's node. */
export function localCommand(command: string[]): { command: string[]; substituted: boolean } {
  const [program, ...rest] = command;
  if (!program) throw new Error('customRuntimeConfig.command is empty');
  if (program.startsWith('/var/fc/lang/') && !existsSync(program)) return { command: [process.execPath, ...rest], substituted: true };
  return { command, substituted: false };
}

export interface StartOptions {
  runtime: FcRuntime;
  a2aUrl: string;
  a2aToken?: string;
  authToken?: string;
  stateDir: string;
  store?: LocalStore;
  oss?: LocalOss;
  /** Defaults to the port s.yaml declares. */
  port?: number;
  /** Code folder to run instead of the one s.yaml names (tests run a build made elsewhere). */
  codeDir?: string;
  /** Extra variables for the bundle (e.g. shutdown deadlines in tests). */
  env?: Env;
  /** Called with every line the bundle writes (stdout and stderr). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Own process group: a terminal's Ctrl-C reaches only this script, which then forwards one SIGTERM. */
  detached?: boolean;
  readyTimeoutMs?: number;
  /** How often /health is polled while the function starts (the FC bench polls tightly). */
  healthPollMs?: number;
}

export interface RunningFunction {
  url: string;
  child: ChildProcess;
  /** Every line the bundle wrote so far. */
  lines: string[];
  commandLine: string[];
  substitutedNode: boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (FC's stop), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function forwardLines(stream: NodeJS.ReadableStream, name: 'stdout' | 'stderr', lines: string[], onLine?: StartOptions['onLine']): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      lines.push(line);
      onLine?.(line, name);
    }
  });
}

async function waitForHealth(url: string, exited: Promise<unknown>, timeoutMs: number, pollMs: number): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error('the function exited during start-up');
    try {
      const response = await fetch(`${url}/health`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, pollMs));
  }
  throw new Error(`no /health 200 within ${timeoutMs} ms`);
}

export async function startFcLocal(options: StartOptions): Promise<RunningFunction> {
  const { runtime } = options;
  const port = options.port ?? runtime.port;
  const codeDir = options.codeDir ?? runtime.codeDir;
  const { command, substituted } = localCommand(runtime.command);
  const env: Env = {
    // FC starts the runtime with a fresh environment: s.yaml's variables and its own, nothing from this shell.
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    ...runtime.environmentVariables,
    ...functionComputeVariables({ ...runtime, codeDir }, port),
    IAC_CODE_AGUI_A2A_URL: options.a2aUrl,
    IAC_CODE_AGUI_A2A_TOKEN: options.a2aToken ?? '',
    IAC_CODE_AGUI_AUTH_TOKEN: options.authToken ?? '',
    ...storeEnvironment(options.store ?? (options.oss ? 'oss' : 'file'), options.stateDir, options.oss),
    ...options.env,
  };
  const [program, ...rest] = [...command, ...runtime.args];
  const child = spawn(program as string, rest, { cwd: codeDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  const lines: string[] = [];
  // stdio is 'pipe' for both, so Node always creates these streams.
  forwardLines(child.stdout as NodeJS.ReadableStream, 'stdout', lines, options.onLine);
  forwardLines(child.stderr as NodeJS.ReadableStream, 'stderr', lines, options.onLine);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, exited, options.readyTimeoutMs ?? 15_000, options.healthPollMs ?? 25);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    throw new Error(`${error instanceof Error ? error.message : String(error)}; its output:\n${lines.join('\n')}`);
  }
  return {
    url,
    child,
    lines,
    commandLine: [program as string, ...rest],
    substitutedNode: substituted,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

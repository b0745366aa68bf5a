/**
 * One real iac-code kernel and its scripted model on two ports of their own (docs/architecture.md
 * §9.7). The kernel is started by the shared folder's `start.sh` and ended by its `stop.sh`; the
 * model is the project's copy of `fake-llm.py` (beside this file), run with the chroot's Python.
 *
 * The project's model binds its port first, so the model `start.sh` starts on the same port finds
 * it taken and exits at once (its log says so): the kernel talks to the project's model, whose
 * behaviours the suite and the recordings depend on, whatever the shared copy becomes.
 *
 * `start.sh` copies the launcher and its shims into the chroot every time, where kernels already
 * starting import them; `stop.sh` unmounts the chroot's /proc when it sees no kernel's pid file,
 * which a kernel still starting may not have written; and a kernel takes seconds of CPU to start.
 * So the project's starts and stops take turns (`flock -o` on one lock file: the kernels a start
 * leaves running must not inherit the lock), and a start that fails is tried once more.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastLines, type RealKernelPlace, realKernelPlace } from './real-kernel-place.js';

export interface PairPorts {
  kernel: number;
  model: number;
}

export interface KernelPairOptions {
  ports: PairPorts;
  /** More `iac-code a2a` flags, e.g. `--thinking-exposure raw-thinking`. */
  args?: string;
  place?: RealKernelPlace;
}

/** One call the kernel made to the model, as the model received it. */
export interface ModelRequest {
  path: string;
  body: { messages?: Array<{ role?: string; content?: unknown }>; stream?: boolean; [key: string]: unknown };
}

/**
 * A folder of its own in the kernel's workspace: `cwd` is its path inside the chroot. It starts
 * with the files setup.sh puts in the shared workspace (README.md, main.tf), so `read` and `files`
 * find something. `remove` takes it away with the kernel's sessions kept for it.
 */
export interface KernelWorkspace {
  cwd: string;
  /** The same folder seen from this machine. */
  outside: string;
  remove(): Promise<void>;
}

export interface KernelPair {
  url: string;
  ports: PairPorts;
  place: RealKernelPlace;
  modelRequests(): Promise<ModelRequest[]>;
  workspace(name: string): Promise<KernelWorkspace>;
  /** SIGKILL to the kernel's process group: a crash, not a shutdown. */
  killKernel(): Promise<void>;
  /** start.sh again after killKernel (same ports, same arguments). */
  startKernel(): Promise<void>;
  stop(): Promise<void>;
}

/** The folder of the kernel's workspace the project's tests and recordings create things in. */
export const WORKSPACE_FOLDER = 'agui-kernel-tests';
const WORKSPACE_INSIDE = '/opt/iac-code/workspace';
const PROJECTS_INSIDE = '/opt/iac-code/config/projects';
const MODEL_SOURCE = join(import.meta.dirname, 'fake-llm.py');
const READY_TIMEOUT_MS = 15_000;

function run(command: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: { ...process.env, ...env }, timeout: 150_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${[command, ...args].join(' ')} failed: ${lastLines(`${stdout}\n${stderr}`)}`));
      else resolve(stdout.trim());
    });
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

async function readPid(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export async function startKernelPair(options: KernelPairOptions): Promise<KernelPair> {
  const place = options.place ?? realKernelPlace();
  const { kernel: kernelPort, model: modelPort } = options.ports;
  const runDir = join(place.root, 'run');
  const model = {
    script: join(runDir, `agui-fake-llm-${modelPort}.py`),
    pid: join(runDir, `agui-fake-llm-${modelPort}.pid`),
    log: join(runDir, `agui-fake-llm-${modelPort}.log`),
    requests: join(runDir, `agui-llm-requests-${modelPort}.jsonl`),
  };
  const scriptEnv = {
    IAC_CODE_REAL_KERNEL_ROOT: place.root,
    REAL_KERNEL_PORT: String(kernelPort),
    FAKE_LLM_PORT: String(modelPort),
    REAL_KERNEL_ARGS: options.args ?? '',
  };
  const lock = join(runDir, 'agui-kernel-start.lock');
  const inTurn = (script: string) => run('flock', scriptEnv, ['-o', lock, join(place.dir, script)]);
  const stopKernel = () => inTurn('stop.sh').catch(() => '');
  const stopModel = async () => {
    const pid = await readPid(model.pid);
    if (pid) killGroup(pid, 'SIGTERM');
    await rm(model.pid, { force: true });
  };
  const startOnce = () => inTurn('start.sh');
  const startKernel = async () => {
    try {
      await startOnce();
    } catch (first) {
      await stopKernel();
      await startOnce().catch((second: unknown) => {
        throw new Error(`the kernel did not start twice: ${(first as Error).message}; then ${(second as Error).message}`);
      });
    }
  };

  await mkdir(runDir, { recursive: true });
  // Whatever an interrupted earlier run left on these ports goes first.
  await stopKernel();
  await stopModel();
  await copyFile(MODEL_SOURCE, model.script);
  await rm(model.requests, { force: true });
  const log = await open(model.log, 'w');
  try {
    const child = spawn(
      'chroot',
      [place.root, 'env', `FAKE_LLM_LOG=/run/agui-llm-requests-${modelPort}.jsonl`, 'python3', `/run/agui-fake-llm-${modelPort}.py`, String(modelPort)],
      { detached: true, stdio: ['ignore', log.fd, log.fd] },
    );
    child.unref();
    if (child.pid) await writeFile(model.pid, String(child.pid));
  } finally {
    await log.close();
  }
  const url = `http://127.0.0.1:${kernelPort}/`;
  try {
    await until(`the scripted model on port ${modelPort}`, () => answers(`http://127.0.0.1:${modelPort}/v1/models`));
    await startKernel();
  } catch (error) {
    await stopKernel();
    await stopModel();
    await rm(model.script, { force: true });
    throw error;
  }

  return {
    url,
    ports: options.ports,
    place,
    async modelRequests() {
      const text = await readFile(model.requests, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ModelRequest);
    },
    async workspace(name) {
      const relative = join(WORKSPACE_FOLDER, name);
      const outside = join(place.root, WORKSPACE_INSIDE, relative);
      await mkdir(outside, { recursive: true });
      await writeFile(join(outside, 'README.md'), '# demo workspace\n');
      await writeFile(join(outside, 'main.tf'), 'resource "alicloud_vpc" "main" {}\n');
      const cwd = join(WORKSPACE_INSIDE, relative);
      // The kernel keeps its sessions for a workspace in a project folder named after the path.
      const project = join(place.root, PROJECTS_INSIDE, cwd.replace(/\//g, '-'));
      // The kernel may still be writing a session file of a task it has just cancelled while the
      // folder goes (CI saw ENOTEMPTY): rm's own retries absorb that late write.
      const gone = { recursive: true, force: true, maxRetries: 10, retryDelay: 50 };
      const remove = async () => {
        await rm(outside, gone);
        await rm(project, gone);
      };
      return { cwd, outside, remove };
    },
    async killKernel() {
      const pid = await readPid(join(runDir, `kernel-${kernelPort}.pid`));
      if (!pid) throw new Error(`no kernel is running on port ${kernelPort}`);
      killGroup(pid, 'SIGKILL');
      await until(`the kernel on port ${kernelPort} to go away`, async () => !(await answers(`${url}.well-known/agent-card.json`)));
    },
    startKernel,
    async stop() {
      await stopKernel();
      await stopModel();
      await rm(model.script, { force: true });
    },
  };
}

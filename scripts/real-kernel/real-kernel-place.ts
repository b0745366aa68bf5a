/**
 * Where the real iac-code kernel lives (docs/architecture.md §9.7): the shared folder that builds and
 * starts it — `../shared/real-kernel` beside the checkout, as its README says, or
 * `IAC_CODE_REAL_KERNEL_DIR` — and the chroot it builds (`IAC_CODE_REAL_KERNEL_ROOT`, default
 * `/var/tmp/iac-code-real-kernel`). `setUpRealKernel` runs the folder's `setup.sh` (once per
 * machine; later calls return at once) and says why the kernel is unavailable when it cannot be set
 * up: the kernel suite then reports its tests skipped, never passed.
 */
import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const PROJECT_ROOT = resolve(import.meta.dirname, '../..');
/** The first setup debootstraps Debian and installs the kernel's packages: minutes, not hours. */
const SETUP_TIMEOUT_MS = 20 * 60_000;

export interface RealKernelPlace {
  /** The folder with setup.sh, start.sh and stop.sh. */
  dir: string;
  /** The chroot setup.sh builds. */
  root: string;
}

export function realKernelPlace(env: NodeJS.ProcessEnv = process.env): RealKernelPlace {
  return {
    dir: env['IAC_CODE_REAL_KERNEL_DIR'] || resolve(PROJECT_ROOT, '..', 'shared', 'real-kernel'),
    root: env['IAC_CODE_REAL_KERNEL_ROOT'] || '/var/tmp/iac-code-real-kernel',
  };
}

export type Availability = { available: true } | { available: false; reason: string };

/** The last non-empty lines a failed command printed, on one line: its own account of the failure. */
export function lastLines(output: string, count = 3): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.slice(-count).join(' | ') || 'no output';
}

/**
 * Whether the kernel is set up on this machine already (setup.sh's marker), without setting it up:
 * the bench measures it only then (a first setup takes minutes).
 */
export async function realKernelReady(place: RealKernelPlace = realKernelPlace()): Promise<Availability> {
  try {
    await access(join(place.dir, 'start.sh'));
  } catch {
    return { available: false, reason: `no ${join(place.dir, 'start.sh')}` };
  }
  try {
    await access(join(place.root, '.iac-code-real-kernel-ready'));
    return { available: true };
  } catch {
    return { available: false, reason: `not set up in ${place.root} (run ${join(place.dir, 'setup.sh')})` };
  }
}

/** Runs setup.sh; `available: false` with the reason when the folder is missing or the setup fails. */
export async function setUpRealKernel(place: RealKernelPlace = realKernelPlace()): Promise<Availability> {
  const setup = join(place.dir, 'setup.sh');
  try {
    await access(setup);
  } catch {
    return { available: false, reason: `no ${setup} (the real-kernel folder belongs at ../shared/real-kernel beside the checkout, or set IAC_CODE_REAL_KERNEL_DIR)` };
  }
  return new Promise((done) => {
    execFile(setup, [], { env: { ...process.env, IAC_CODE_REAL_KERNEL_ROOT: place.root }, timeout: SETUP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) done({ available: true });
      else done({ available: false, reason: `setup.sh failed (${error.killed ? 'timed out' : `exit ${String(error.code)}`}): ${lastLines(`${stdout}\n${stderr}`)}` });
    });
  });
}

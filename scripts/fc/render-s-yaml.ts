/**
 * s.yaml as FC would see it (docs/deploy.md): rendered by the real Serverless Devs CLI
 * (`s preview -o raw`), and the function's custom-runtime settings read from it — command, args,
 * port, environment variables, code folder. Used by `npm run local:fc`, its tests and the FC bench.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../build.js';

type Env = Record<string, string>;

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
 * CLI starts no background process and needs no network); `template` renders another description
 * file of the project instead (`s preview -t`). `env` is the whole environment s sees:
 * never this shell's, so no real secret reaches s's log files.
 */
export async function renderServerlessYaml(env: Env, options: { root?: string; template?: string } = {}): Promise<Record<string, unknown>> {
  const root = options.root ?? PROJECT_ROOT;
  const home = await mkdtemp(join(tmpdir(), 'agui-s-home-'));
  try {
    await mkdir(join(home, '.s', 'config'), { recursive: true });
    await writeFile(join(home, '.s', 'config', 'update-notifier.json'), JSON.stringify({ lastUpdateCheck: Date.now() }));
    const s = join(root, 'node_modules', '.bin', 's');
    // -t: another description file (s.local.yaml, s.domain.yaml extend s.yaml; docs/deploy.md).
    const template = options.template ? ['-t', options.template] : [];
    const result = spawnSync(s, ['preview', ...template, '-o', 'raw', '--silent'], {
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

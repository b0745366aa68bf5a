/**
 * `npm run local:s` (scripts/local-s.ts, docs/deploy.md "s local") on a machine without Docker: the
 * exact `s local start` command line and environment it would run (scripts/fc/local-s-plan.ts) —
 * on Linux and on Docker Desktop — rendered through s.local.yaml by the real Serverless Devs CLI into
 * s.yaml's own function pointed at the emulators; and the script's one clear message when no Docker
 * engine answers (this machine has a docker client but no engine).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../scripts/build.js';
import { dockerUnavailableMessage, type LocalSInput, localSPlan, UNUSED_ROLE_ARN } from '../../scripts/fc/local-s-plan.js';
import { renderServerlessYaml } from '../../scripts/fc/render-s-yaml.js';

const credentials = { accessKeyId: 'local-s-key-1', accessKeySecret: 'local-s-secret-2' };
const callerEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/dev',
  DOCKER_HOST: 'unix:///var/run/docker.sock',
  // The caller's production settings and own cloud key must not reach the local function.
  IAC_CODE_AGUI_OSS_ENDPOINT: 'https://oss-cn-shanghai-internal.aliyuncs.com',
  IAC_CODE_AGUI_A2A_URL: 'https://kernel.example.com/',
  ALIBABA_CLOUD_ACCESS_KEY_ID: 'LTAI-the-callers-own-key',
  ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'the-callers-own-secret',
  IAC_CODE_AGUI_FC_REGION: 'cn-shanghai',
};

function input(overrides: Partial<LocalSInput> = {}): LocalSInput {
  return {
    platform: 'linux',
    bridgeGateway: '172.17.0.1',
    a2a: { port: 41_001, token: 'a2a-token-3' },
    oss: { port: 41_002, bucket: 'agui-state', region: 'cn-shanghai', credentials },
    authToken: 'auth-token-4',
    env: callerEnv,
    root: '/repo',
    ...overrides,
  };
}

describe('the local:s plan', () => {
  it('on Linux: binds the emulators to the docker bridge gateway and runs `s local start -t s.local.yaml` with the function’s variables pointing there', () => {
    const plan = localSPlan(input());
    expect(plan.bindHost).toBe('172.17.0.1');
    expect(plan.command).toEqual(['/repo/node_modules/.bin/s', 'local', 'start', '-t', 's.local.yaml']);
    expect(plan.env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/dev',
      DOCKER_HOST: 'unix:///var/run/docker.sock',
      IAC_CODE_AGUI_FC_REGION: 'cn-shanghai',
      IAC_CODE_AGUI_FC_FUNCTION_NAME: 'iac-code-agui',
      IAC_CODE_AGUI_FC_ROLE_ARN: UNUSED_ROLE_ARN,
      IAC_CODE_AGUI_A2A_URL: 'http://172.17.0.1:41001/',
      IAC_CODE_AGUI_A2A_TOKEN: 'a2a-token-3',
      IAC_CODE_AGUI_AUTH_TOKEN: 'auth-token-4',
      IAC_CODE_AGUI_OSS_BUCKET: 'agui-state',
      IAC_CODE_AGUI_OSS_ENDPOINT: 'http://172.17.0.1:41002',
      IAC_CODE_AGUI_OSS_REGION: 'cn-shanghai',
      IAC_CODE_AGUI_OSS_PREFIX: 'agui',
      IAC_CODE_AGUI_OSS_INTERNAL: '0',
      IAC_CODE_AGUI_LOG_LEVEL: 'info',
      IAC_CODE_AGUI_LOCAL_OSS_ACCESS_KEY_ID: credentials.accessKeyId,
      IAC_CODE_AGUI_LOCAL_OSS_ACCESS_KEY_SECRET: credentials.accessKeySecret,
    });
    expect(() => localSPlan(input({ bridgeGateway: undefined }))).toThrow(/bridge gateway/);
  });

  it('on Docker Desktop (macOS, Windows): the container reaches the host as host.docker.internal', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const plan = localSPlan(input({ platform, bridgeGateway: undefined }));
      expect(plan.hostForContainer).toBe('host.docker.internal');
      expect(plan.bindHost).toBe('0.0.0.0');
      expect(plan.env['IAC_CODE_AGUI_A2A_URL']).toBe('http://host.docker.internal:41001/');
      expect(plan.env['IAC_CODE_AGUI_OSS_ENDPOINT']).toBe('http://host.docker.internal:41002');
    }
  });

  it('renders, through s.local.yaml and the real CLI, into s.yaml’s own function whose role credentials are the OSS emulator’s', async () => {
    const plan = localSPlan(input({ env: { ...callerEnv, PATH: process.env['PATH'] ?? '' } }));
    const { PATH, HOME: _home, ...functionEnv } = plan.env;
    const [local, deployed] = await Promise.all([
      renderServerlessYaml(functionEnv, { template: 's.local.yaml' }),
      renderServerlessYaml({ ...functionEnv, IAC_CODE_AGUI_FC_ROLE_ARN: 'acs:ram::1:role/r' }),
    ]);
    type Props = Record<string, unknown> & { environmentVariables: Record<string, string> };
    const localProps = (local['resources'] as Record<string, { props: Props }>)['agui']?.props as Props;
    const deployedProps = (deployed['resources'] as Record<string, { props: Props }>)['agui']?.props as Props;
    // The same function: runtime, layer, command, port, health check, lifecycle, trigger.
    for (const key of ['runtime', 'layers', 'customRuntimeConfig', 'instanceLifecycleConfig', 'triggers', 'code', 'timeout'])
      expect(localProps[key], key).toEqual(deployedProps[key]);
    expect(localProps.environmentVariables).toEqual({
      ...deployedProps.environmentVariables,
      IAC_CODE_AGUI_A2A_TOKEN: 'a2a-token-3',
      IAC_CODE_AGUI_A2A_ALLOW_INSECURE: '1',
      IAC_CODE_AGUI_OSS_ENDPOINT: 'http://172.17.0.1:41002',
      IAC_CODE_AGUI_OSS_ALLOW_INSECURE: '1',
      IAC_CODE_AGUI_OSS_PATH_STYLE: '1',
      ALIBABA_CLOUD_ACCESS_KEY_ID: credentials.accessKeyId,
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: credentials.accessKeySecret,
      ALIBABA_CLOUD_SECURITY_TOKEN: '',
    });
    expect(localProps.environmentVariables['IAC_CODE_AGUI_OSS_ENDPOINT']).toBe('http://172.17.0.1:41002');
    expect(JSON.stringify(localProps)).not.toContain('callers-own');
  }, 60_000);
});

describe('npm run local:s without a Docker engine', () => {
  it('exits 1 with one explanation pointing at npm run local:fc, before building or starting anything', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join('scripts', 'local-s.ts')], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env['PATH'] ?? '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^local:s needs a running Docker engine, and this machine has none: (docker info failed: .+|the docker command is not installed)\n/);
    expect(run.stderr).toContain('npm run local:fc');
    expect(run.stderr.trim()).toBe(dockerUnavailableMessage(/none: (.*)\n/.exec(run.stderr)?.[1] ?? '').trim());
  });
});

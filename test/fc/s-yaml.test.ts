/**
 * s.yaml as Serverless Devs itself renders it (`s preview -o raw`, the real CLI from
 * devDependencies, offline, in a throwaway config home): the fields FC needs for a streaming web
 * function, with every secret and account value taken from the deployer's environment.
 */
import { copyFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/adapters/config.js';
import { BUNDLE_FILE, PROJECT_ROOT } from '../../scripts/build.js';
import { deployCommand, deployEnv, deployFile } from '../../scripts/fc/deploy-command.js';
import { LAYER_NODE } from '../../scripts/fc/fc-local-process.js';
import { DEPLOY_DESCRIPTION, deployDescription, OPTIONAL_FUNCTION_ENV } from '../../scripts/fc/optional-env.js';
import { fcRuntimeOf, renderServerlessYaml, requiredEnvNames } from '../../scripts/fc/render-s-yaml.js';

/** Distinct values, so each rendered field can be traced to the variable it came from. */
const DEPLOY_ENV = {
  IAC_CODE_AGUI_FC_REGION: 'cn-shanghai',
  IAC_CODE_AGUI_FC_ROLE_ARN: 'acs:ram::1234567890123456:role/agui-oss-role',
  IAC_CODE_AGUI_A2A_URL: 'https://kernel.example.test/',
  IAC_CODE_AGUI_AUTH_TOKEN: 'auth-token-value',
  IAC_CODE_AGUI_OSS_BUCKET: 'agui-state-bucket',
  IAC_CODE_AGUI_OSS_PREFIX: 'agui-prod',
};
/** Two of the optional variables, as a deploying shell might set them. */
const OPTIONAL_SET = { IAC_CODE_AGUI_A2A_TOKEN: 'a2a-token-value', IAC_CODE_AGUI_CORS_ORIGINS: 'https://console.example.test' };

/**
 * What `npm run deploy` deploys for `env`, rendered: in a copy of the project's description files
 * (the real CLI through a link to node_modules), the description it writes when optional variables are set.
 */
async function renderDeployed(env: Record<string, string>): Promise<Record<string, unknown>> {
  const root = await mkdtemp(join(tmpdir(), 'agui-deploy-'));
  try {
    for (const file of ['s.yaml', 's.domain.yaml']) await copyFile(join(PROJECT_ROOT, file), join(root, file));
    await symlink(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'));
    const file = deployFile(env);
    if (file === DEPLOY_DESCRIPTION) {
      const domain = env['IAC_CODE_AGUI_DOMAIN_NAME'] ? await readFile(join(root, 's.domain.yaml'), 'utf8') : undefined;
      await writeFile(join(root, file), deployDescription(env, domain));
    }
    return await renderServerlessYaml(env, { root, template: file });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function fc3Props(rendered: Record<string, unknown>): Props {
  return (rendered['resources'] as Record<string, { props: Props }>)['agui']?.props as Props;
}

type Props = Record<string, unknown> & {
  layers: string[];
  customRuntimeConfig: { command: string[]; args: string[]; port: number; healthCheckConfig: Record<string, unknown> };
  instanceLifecycleConfig: { preStop: { handler: string; timeout: number } };
  environmentVariables: Record<string, string>;
  triggers: Array<{ triggerType: string; triggerConfig: { authType: string; methods: string[] } }>;
};

let yaml: string;
let rendered: Record<string, unknown>;
let resource: { component: string; actions: Record<string, Array<{ run: string; path: string }>>; props: Props };

beforeAll(async () => {
  yaml = await readFile(join(PROJECT_ROOT, 's.yaml'), 'utf8');
  rendered = await renderServerlessYaml(DEPLOY_ENV);
  resource = (rendered['resources'] as Record<string, typeof resource>)['agui'] as typeof resource;
}, 60_000);

describe('s.yaml rendered by Serverless Devs', () => {
  it('defines one fc3 web function on custom.debian12, started with Node 22 from FC’s official Nodejs22 layer on port 9000', () => {
    expect(rendered['edition']).toBe('3.0.0');
    expect(resource.component).toBe('fc3');
    const { props } = resource;
    expect(props['region']).toBe('cn-shanghai');
    // The default runtime (IAC_CODE_AGUI_FC_RUNTIME unset).
    expect(props['runtime']).toBe('custom.debian12');
    // The layer of the function's own region (awesome-fc/awesome-layers docs/Nodejs22: custom.debian11/12, /opt/nodejs22/bin).
    expect(props.layers).toEqual(['acs:fc:cn-shanghai:official:layers/Nodejs22/versions/3']);
    expect(props.customRuntimeConfig.command).toEqual([LAYER_NODE]);
    expect(props.customRuntimeConfig.args.at(-1)).toBe(BUNDLE_FILE);
    expect(props.customRuntimeConfig.args).toContain('--enable-source-maps');
    expect(props.customRuntimeConfig.port).toBe(9000);
  });

  it('lets FC probe GET /health and drain the instance through GET /pre-stop within a timeout covering drain and clean-up', () => {
    const { props } = resource;
    expect(props.customRuntimeConfig.healthCheckConfig).toMatchObject({ httpGetUrl: '/health', failureThreshold: expect.any(Number), periodSeconds: expect.any(Number) });
    const { preStop } = props.instanceLifecycleConfig;
    // fc3 keeps a hook only when it names a handler; a custom runtime is called on GET /pre-stop instead.
    expect(preStop.handler).toEqual(expect.any(String));
    const { shutdown } = loadConfig({});
    expect(preStop.timeout * 1000).toBeGreaterThan(shutdown.drainMs + shutdown.cleanupMs);
    // The function's own timeout bounds a hook too; keep the hook well inside it.
    expect(preStop.timeout).toBeLessThan(props['timeout'] as number);
  });

  it('deploys the bundle folder that `npm run build` writes, and builds it before every deploy', () => {
    const runtime = fcRuntimeOf(rendered);
    expect(runtime.codeDir).toBe(join(PROJECT_ROOT, 'dist', 'agui'));
    expect(resource.actions['pre-deploy']).toEqual([{ run: 'npm run build', path: './' }]);
  });

  it('sets an explicit timeout long enough for streams, memory, CPU and instance concurrency', () => {
    const { props } = resource;
    expect(props['timeout']).toBeGreaterThanOrEqual(600);
    expect(props['timeout']).toBeLessThanOrEqual(86_400);
    expect(props['memorySize']).toBeGreaterThanOrEqual(512);
    // FC 3.0: vCPU : memory (GB) between 1:1 and 1:4.
    const ratio = (props['memorySize'] as number) / 1024 / (props['cpu'] as number);
    expect(ratio).toBeGreaterThanOrEqual(1);
    expect(ratio).toBeLessThanOrEqual(4);
    expect(props['instanceConcurrency']).toBeGreaterThan(1);
  });

  it('runs under the RAM role and with the environment taken from the deployer’s variables', () => {
    const { props } = resource;
    expect(props['role']).toBe(DEPLOY_ENV.IAC_CODE_AGUI_FC_ROLE_ARN);
    expect(props.environmentVariables).toEqual({
      IAC_CODE_AGUI_A2A_URL: DEPLOY_ENV.IAC_CODE_AGUI_A2A_URL,
      IAC_CODE_AGUI_AUTH_TOKEN: DEPLOY_ENV.IAC_CODE_AGUI_AUTH_TOKEN,
      IAC_CODE_AGUI_STATE_STORE: 'oss',
      IAC_CODE_AGUI_OSS_BUCKET: DEPLOY_ENV.IAC_CODE_AGUI_OSS_BUCKET,
      // Not given: the OSS region defaults to the function's region.
      IAC_CODE_AGUI_OSS_REGION: 'cn-shanghai',
      IAC_CODE_AGUI_OSS_PREFIX: DEPLOY_ENV.IAC_CODE_AGUI_OSS_PREFIX,
      IAC_CODE_AGUI_OSS_INTERNAL: '1',
      IAC_CODE_AGUI_LOG_LEVEL: 'info',
      IAC_CODE_AGUI_DETACH_GRACE_MS: '60000',
    });
    // FC reserves FC_* and allows letters, digits and underscores in names.
    for (const name of Object.keys(props.environmentVariables)) expect(name).toMatch(/^(?!FC_)[A-Za-z][A-Za-z0-9_]*$/);
  });

  it('renders no empty value: the optional variables are left out while the deploying shell leaves them unset', () => {
    for (const [name, value] of Object.entries(resource.props.environmentVariables)) expect(value, name).not.toBe('');
    for (const name of OPTIONAL_FUNCTION_ENV) expect(resource.props.environmentVariables, name).not.toHaveProperty(name);
    expect(yaml).not.toMatch(/\$\{env\('[A-Z_]+',\s*''\)\}/);
    expect(deployFile(DEPLOY_ENV)).toBe('s.yaml');
  });

  it('gets from `npm run deploy` exactly the optional variables the shell sets — by name, their values read from the environment, with the domain too', async () => {
    const env = { ...DEPLOY_ENV, ...OPTIONAL_SET, IAC_CODE_AGUI_BODY_TIMEOUT_MS: '' };
    const description = deployDescription(env, undefined);
    expect(description).not.toContain(OPTIONAL_SET.IAC_CODE_AGUI_A2A_TOKEN);
    expect(deployCommand(env, PROJECT_ROOT)).toEqual([`${PROJECT_ROOT}/node_modules/.bin/s`, 'deploy', '-y', '-t', DEPLOY_DESCRIPTION]);
    const deployed = fc3Props(await renderDeployed(env));
    expect(deployed.environmentVariables).toEqual({ ...resource.props.environmentVariables, ...OPTIONAL_SET });
    // Everything else of the function is s.yaml's.
    const { environmentVariables: _deployedEnv, ...deployedRest } = deployed;
    const { environmentVariables: _plainEnv, ...plainRest } = resource.props;
    expect(deployedRest).toEqual(plainRest);

    const domainEnv = { ...env, IAC_CODE_AGUI_DOMAIN_NAME: 'agui.example.test', IAC_CODE_AGUI_DOMAIN_CERT: '/secure/c.pem', IAC_CODE_AGUI_DOMAIN_KEY: '/secure/c.key' };
    const withDomain = await renderDeployed(domainEnv);
    expect(Object.keys(withDomain['resources'] as object)).toEqual(['agui', 'domain']);
    expect(fc3Props(withDomain).environmentVariables).toMatchObject(OPTIONAL_SET);
    expect((withDomain['resources'] as Record<string, { props: Record<string, unknown> }>)['domain']?.props['domainName']).toBe('agui.example.test');
  }, 120_000);

  it('passes the identity provider and the console to the function only when the shell sets them, by name (an IDaaS issuer, docs/deploy.md step 10)', async () => {
    const oidc = {
      IAC_CODE_AGUI_OIDC_ISSUER: 'https://eiam-api-cn-hangzhou.aliyuncs.com/v2/idaas_xyz/app_abc/oidc',
      IAC_CODE_AGUI_OIDC_AUDIENCE: 'app_abc',
      IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID: 'app_abc',
      IAC_CODE_AGUI_CONSOLE: '1',
    };
    const env = { ...DEPLOY_ENV, ...oidc, IAC_CODE_AGUI_OIDC_CLIENTS: '' };
    expect(deployDescription(env, undefined)).not.toContain('eiam-api');
    const deployed = fc3Props(await renderDeployed(env));
    expect(deployed.environmentVariables).toEqual({ ...resource.props.environmentVariables, ...oidc });
    // The shared token is still there for services.
    expect(deployed.environmentVariables['IAC_CODE_AGUI_AUTH_TOKEN']).toBe(DEPLOY_ENV.IAC_CODE_AGUI_AUTH_TOKEN);
  }, 120_000);

  it('deploys with the shell’s environment minus its empty variables, so no default renders empty', () => {
    expect(deployEnv({ A: 'x', IAC_CODE_AGUI_LOG_LEVEL: '', IAC_CODE_AGUI_OSS_INTERNAL: undefined })).toEqual({ A: 'x' });
  });

  it('takes its runtime from IAC_CODE_AGUI_FC_RUNTIME (custom.debian11 where a region lacks custom.debian12), with the same layer and command', async () => {
    const debian11 = fc3Props(await renderServerlessYaml({ ...DEPLOY_ENV, IAC_CODE_AGUI_FC_RUNTIME: 'custom.debian11' }));
    expect(debian11['runtime']).toBe('custom.debian11');
    expect(debian11.layers).toEqual(resource.props.layers);
    expect(debian11.customRuntimeConfig).toEqual(resource.props.customRuntimeConfig);
  }, 60_000);

  it('has an anonymous HTTP trigger for GET, HEAD, POST and OPTIONS (the adapter’s bearer token authenticates; HEAD /health is GET without a body; OPTIONS is the CORS preflight)', () => {
    const http = resource.props.triggers.filter((trigger) => trigger.triggerType === 'http');
    expect(http).toHaveLength(1);
    expect(http[0]?.triggerConfig.authType).toBe('anonymous');
    expect([...(http[0]?.triggerConfig.methods ?? [])].sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    // CORS is off unless the deployer lists origins.
    expect(resource.props.environmentVariables).not.toHaveProperty('IAC_CODE_AGUI_CORS_ORIGINS');
  });

  it('commits no secret: every secret and account value is an env() expression', () => {
    for (const name of ['IAC_CODE_AGUI_A2A_URL', 'IAC_CODE_AGUI_AUTH_TOKEN', 'IAC_CODE_AGUI_OSS_BUCKET']) {
      expect(yaml).toMatch(new RegExp(`\\n\\s+${name}: \\$\\{env\\('${name}'\\)\\}\\n`));
    }
    // The kernel's token is optional: `npm run deploy` adds it by name, never by value.
    expect(deployDescription({ IAC_CODE_AGUI_A2A_TOKEN: 'a2a-token-value' }, undefined)).toMatch(/\n\s+IAC_CODE_AGUI_A2A_TOKEN: \$\{env\('IAC_CODE_AGUI_A2A_TOKEN'\)\}\n/);
    expect(yaml).toMatch(/\n\s+role: \$\{env\('IAC_CODE_AGUI_FC_ROLE_ARN'\)\}\n/);
    expect(yaml).not.toMatch(/acs:ram::\d+/);
    expect(requiredEnvNames(yaml).sort()).toEqual(['IAC_CODE_AGUI_A2A_URL', 'IAC_CODE_AGUI_AUTH_TOKEN', 'IAC_CODE_AGUI_FC_ROLE_ARN', 'IAC_CODE_AGUI_OSS_BUCKET']);
  });

  it('refuses to render without the auth token, so an unauthenticated deploy cannot happen', async () => {
    const { IAC_CODE_AGUI_AUTH_TOKEN: _omitted, ...withoutToken } = DEPLOY_ENV;
    await expect(renderServerlessYaml(withoutToken)).rejects.toThrow(/IAC_CODE_AGUI_AUTH_TOKEN/);
  }, 60_000);
});

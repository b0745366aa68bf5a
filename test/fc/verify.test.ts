/**
 * `npm run verify` end to end against real parts: the FC API emulator (lib/emulators/fc-api, which
 * recomputes every ACS3-HMAC-SHA256 signature) seeded with the function s.yaml declares, whose HTTP
 * trigger URL points at a real adapter stack (app + A2A emulator, bearer token required). The CLI
 * runs as its own process (`node --import tsx scripts/verify.ts`, as `npm run verify` does); the
 * failure cases that need no process of their own call its `verify()` directly.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FcApiEmulator, type FcFunctionSeed, startFcApiEmulator } from '../../lib/emulators/fc-api/server.js';
import { type DeclaredFunction, declaredFunction } from '../../scripts/verify/declared.js';
import { verify } from '../../scripts/verify.js';
import { type Stack, startStack } from '../support/stack.js';

const ROOT = join(import.meta.dirname, '../..');
const AUTH_TOKEN = 'verify-bearer-token-4f1c9a';
const LONG_TERM = { accessKeyId: 'LTAI-verify', accessKeySecret: 'verify-long-term-secret' };
const STS = { accessKeyId: 'STS.verify', accessKeySecret: 'verify-sts-secret', securityToken: 'verify-sts-token-77e2' };
const NO_GET_FUNCTION = { accessKeyId: 'LTAI-limited', accessKeySecret: 'limited-secret', allowedActions: ['ListTriggers'] };

let stack: Stack;
let fcApiEmulator: FcApiEmulator;
let declared: DeclaredFunction;
/** Every environment value GetFunction returns: none of them may ever be printed. */
let deployedValues: string[];

/** The function exactly as s.yaml declares it, as FC 3.0's GetFunction would return it. */
function seedFromServerlessYaml(functionName: string, triggerUrl: string, overrides: Partial<FcFunctionSeed> = {}): FcFunctionSeed {
  const environmentVariables: Record<string, string> = {};
  for (const name of declared.requiredEnv) environmentVariables[name] = `value-of-${name.toLowerCase()}-9d3e`;
  environmentVariables['IAC_CODE_AGUI_AUTH_TOKEN'] = AUTH_TOKEN;
  environmentVariables['IAC_CODE_AGUI_A2A_TOKEN'] = 'kernel-token-b61f';
  deployedValues = Object.values(environmentVariables);
  const seed: FcFunctionSeed = {
    functionName,
    runtime: declared.runtime,
    timeout: declared.timeout ?? 3600,
    role: 'acs:ram::1234567890123456:role/agui-oss',
    handler: 'index.handler',
    layers: declared.layers.map((arn) => ({ arn, size: 1024 })),
    customRuntimeConfig: {
      ...(declared.command ? { command: declared.command } : {}),
      ...(declared.args ? { args: declared.args } : {}),
      port: declared.port ?? 9000,
      ...(declared.healthCheckUrl ? { healthCheckConfig: { httpGetUrl: declared.healthCheckUrl } } : {}),
    },
    instanceLifecycleConfig: {
      ...(declared.preStop ? { preStop: { handler: 'true', timeout: declared.preStop.timeout ?? 30 } } : {}),
      ...(declared.initializer ? { initializer: { handler: 'true', timeout: declared.initializer.timeout ?? 30 } } : {}),
    },
    environmentVariables,
    triggers: [
      {
        triggerName: 'http',
        triggerType: 'http',
        triggerConfig: { authType: declared.trigger?.authType ?? 'anonymous', methods: declared.trigger?.methods ?? ['GET', 'POST'], disableURLInternet: false },
        urlInternet: triggerUrl,
        urlIntranet: 'https://agui-vpc.cn-hangzhou-vpc.fcapp.run',
      },
    ],
    ...overrides,
  };
  return seed;
}

/** A runtime that is certainly not the declared one, whatever s.yaml moves to. */
function anotherRuntime(): string {
  return declared.runtime === 'custom.debian10' ? 'custom.debian12' : 'custom.debian10';
}

function cliEnvironment(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('IAC_CODE_') || name.startsWith('ALIBABA_CLOUD_') || name === 'FC_ACCOUNT_ID') continue;
    env[name] = value;
  }
  return { ...env, IAC_CODE_AGUI_FC_API_ENDPOINT: fcApiEmulator.endpoint, ...extra };
}

/** Runs the CLI as `npm run verify` would, without blocking this process (the stack must answer). */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/verify.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function verifyInProcess(functionName: string, env: Record<string, string>, smoke = false) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await verify({ functionName, region: 'cn-hangzhou', smoke, env: cliEnvironment(env), out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

beforeAll(async () => {
  declared = declaredFunction(await readFile(join(ROOT, 's.yaml'), 'utf8'), {}, 'cn-hangzhou');
  stack = await startStack({ config: { authToken: AUTH_TOKEN } });
  fcApiEmulator = await startFcApiEmulator({ credentials: [LONG_TERM, STS, NO_GET_FUNCTION], accountId: '1234567890123456', region: 'cn-hangzhou' });
  fcApiEmulator.seedFunction(seedFromServerlessYaml('iac-code-agui', stack.url));
  fcApiEmulator.seedFunction(
    seedFromServerlessYaml('agui-drifted', stack.url, { runtime: anotherRuntime(), timeout: 3, environmentVariables: { IAC_CODE_AGUI_AUTH_TOKEN: AUTH_TOKEN } }),
  );
  // Re-seed the main function last so deployedValues describes it.
  fcApiEmulator.seedFunction(seedFromServerlessYaml('iac-code-agui', stack.url));
});

afterAll(async () => {
  await fcApiEmulator?.close();
  await stack?.close();
});

describe('npm run verify', () => {
  it('reads the deployment through the signed FC 3.0 API (STS credentials), reports it against s.yaml and passes the smoke turn on the trigger URL', async () => {
    const callsBefore = stack.emulator.calls.length;
    const result = await runCli(
      ['iac-code-agui', 'cn-hangzhou'],
      cliEnvironment({
        ...{ ALIBABA_CLOUD_ACCESS_KEY_ID: STS.accessKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: STS.accessKeySecret, ALIBABA_CLOUD_SECURITY_TOKEN: STS.securityToken },
        IAC_CODE_AGUI_AUTH_TOKEN: AUTH_TOKEN,
      }),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`FC 3.0 function iac-code-agui in cn-hangzhou (FC API ${fcApiEmulator.endpoint})`);
    expect(out).toContain('arn           acs:fc:cn-hangzhou:1234567890123456:functions/iac-code-agui');
    expect(out).toMatch(new RegExp(`ok\\s+runtime\\s+${declared.runtime.replace('.', '\\.')}`));
    expect(out).toMatch(/ok\s+port\s+9000/);
    expect(out).toMatch(new RegExp(`ok\\s+timeout\\s+${declared.timeout} s`));
    expect(out).toMatch(/ok\s+trigger auth\s+anonymous/);
    expect(out).toMatch(new RegExp(`ok\\s+trigger methods\\s+${[...(declared.trigger?.methods ?? [])].sort().join(' ')}`));
    expect(out).toMatch(new RegExp(`ok\\s+environment names\\s+all ${declared.requiredEnv.length} required present`));
    expect(out).not.toContain('FAIL');
    // Names are listed, values never: not even the bearer token GetFunction handed over.
    expect(out).toContain('IAC_CODE_AGUI_AUTH_TOKEN');
    for (const value of deployedValues) expect(out).not.toContain(value);
    expect(out).not.toContain(STS.securityToken);
    expect(out).not.toContain(STS.accessKeySecret);
    // The smoke turn really ran against the stack behind the trigger URL, with the bearer token.
    expect(out).toContain(`Smoke turn against ${stack.url}`);
    expect(out).toMatch(/GET \/health -> 200/);
    expect(out).toMatch(/POST \/ -> 200 text\/event-stream/);
    expect(out).toContain('RUN_FINISHED');
    expect(out.trim().split('\n').at(-1)).toBe('verify: ok');
    expect(stack.emulator.calls.length).toBeGreaterThan(callsBefore);
    expect(fcApiEmulator.requests.filter((request) => request.status === 200).map((request) => request.action)).toEqual(expect.arrayContaining(['GetFunction', 'ListTriggers']));
  }, 60_000);

  it('stops with one line when FC rejects the signature (wrong secret), printing nothing else', async () => {
    const result = await runCli(['iac-code-agui'], cliEnvironment({ ALIBABA_CLOUD_ACCESS_KEY_ID: LONG_TERM.accessKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'not-the-secret' }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^verify: FC rejected the credentials \(SignatureNotMatch\): check ALIBABA_CLOUD_ACCESS_KEY_ID/);
    expect(result.stderr).toMatch(/request id 1-[0-9a-f]{8}-[0-9a-f]{24}/);
    expect(result.stderr).not.toContain('not-the-secret');
    expect(fcApiEmulator.requests.at(-1)).toMatchObject({ action: 'GetFunction', status: 403, code: 'SignatureNotMatch' });
  }, 30_000);

  it('names an unknown function (404 FunctionNotFound) in one line', async () => {
    const result = await verifyInProcess('no-such-function', LONG_TERM_ENV());
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toMatch(/^verify: function 'no-such-function' does not exist in cn-hangzhou \(FC: FunctionNotFound\) \(request id 1-/);
  });

  it('reports access denied with the action FC refused', async () => {
    const result = await verifyInProcess('iac-code-agui', {
      ALIBABA_CLOUD_ACCESS_KEY_ID: NO_GET_FUNCTION.accessKeyId,
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: NO_GET_FUNCTION.accessKeySecret,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^verify: access denied: the caller is not authorized to perform 'fc:GetFunction' on resource 'acs:fc:cn-hangzhou:1234567890123456:functions\/iac-code-agui'/,
    );
  });

  it('asks for credentials in one line when none are set, before calling FC', async () => {
    const before = fcApiEmulator.requests.length;
    const result = await verifyInProcess('iac-code-agui', {});
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'verify: no Alibaba Cloud credentials: set ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET (and ALIBABA_CLOUD_SECURITY_TOKEN for STS credentials)',
    );
    expect(fcApiEmulator.requests.length).toBe(before);
  });

  it('reports a deployed runtime, timeout and environment that differ from s.yaml as failed checks', async () => {
    const result = await verifyInProcess('agui-drifted', LONG_TERM_ENV());
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`FAIL\\s+runtime\\s+deployed ${anotherRuntime().replace('.', '\\.')}, s\\.yaml ${declared.runtime.replace('.', '\\.')}`));
    expect(result.stdout).toMatch(new RegExp(`FAIL\\s+timeout\\s+3 s, s\\.yaml ${declared.timeout} s — must exceed FC's 3 s default`));
    expect(result.stdout).toMatch(/FAIL\s+environment names\s+missing IAC_CODE_AGUI_A2A_URL, /);
    expect(result.stdout).toMatch(/ok\s+port\s+9000/);
    expect(result.stdout).not.toContain(AUTH_TOKEN);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('verify: FAILED (3 checks failed)');
  });

  it('finds the account id through STS GetCallerIdentity when none is configured', async () => {
    const { discoverAccountId, parseEndpoint } = await import('../../scripts/verify/fc-api-client.js');
    expect(await discoverAccountId(LONG_TERM, parseEndpoint(fcApiEmulator.endpoint, 'test'))).toBe('1234567890123456');
    expect(fcApiEmulator.requests.at(-1)).toMatchObject({ action: 'GetCallerIdentity', status: 200 });
  });
});

function LONG_TERM_ENV(): Record<string, string> {
  return { ALIBABA_CLOUD_ACCESS_KEY_ID: LONG_TERM.accessKeyId, ALIBABA_CLOUD_ACCESS_KEY_SECRET: LONG_TERM.accessKeySecret };
}

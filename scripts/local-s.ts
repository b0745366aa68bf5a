/**
 * `npm run local:s` (docs/deploy.md, "s local"): the function in Function Compute's own runtime
 * container, through Serverless Devs' `s local start` on s.yaml (via s.local.yaml, which extends it),
 * against the A2A and OSS emulators on this machine. It needs Docker; without a running engine it
 * says so and points at `npm run local:fc`, the same bundle and settings without a container. The
 * command line and environment come from scripts/fc/local-s-plan.ts (tested without Docker).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { authTokenFrom } from '../lib/adapters/config.js';
import { errorSummary } from '../lib/core/error-fields.js';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { startOssEmulator } from '../lib/emulators/oss/server.js';
import { buildFunctions, PROJECT_ROOT } from './build.js';
import { demoCurl } from './demo-request.js';
import { type DockerCheck, dockerUnavailableMessage, localSPlan } from './fc/local-s-plan.js';

function checkDocker(): DockerCheck {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 20_000 });
  if (info.error) return { ok: false, reason: (info.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the docker command is not installed' : info.error.message };
  if (info.status !== 0) return { ok: false, reason: `docker info failed: ${(info.stderr || info.stdout).trim().split('\n')[0] ?? ''}` };
  return { ok: true };
}

function bridgeGateway(): string | undefined {
  const inspect = spawnSync('docker', ['network', 'inspect', 'bridge', '--format', '{{(index .IPAM.Config 0).Gateway}}'], { encoding: 'utf8', timeout: 20_000 });
  return inspect.status === 0 ? inspect.stdout.trim() || undefined : undefined;
}

async function main(): Promise<void> {
  const docker = checkDocker();
  if (!docker.ok) {
    process.stderr.write(`${dockerUnavailableMessage(docker.reason)}\n`);
    process.exit(1);
  }
  await buildFunctions();
  const region = process.env['IAC_CODE_AGUI_FC_REGION'] || 'cn-hangzhou';
  const a2aToken = randomBytes(16).toString('hex');
  const authToken = authTokenFrom(process.env)?.reveal() ?? randomBytes(16).toString('hex');
  const credentials = { accessKeyId: `local-s-${randomBytes(6).toString('hex')}`, accessKeySecret: randomBytes(16).toString('hex') };
  const draft = localSPlan({
    platform: process.platform,
    bridgeGateway: process.platform === 'linux' ? bridgeGateway() : undefined,
    a2a: { port: 0, token: a2aToken },
    oss: { port: 0, bucket: 'agui-state', region, credentials },
    authToken,
    env: process.env,
    root: PROJECT_ROOT,
  });
  const a2a = await startA2AEmulator({ host: draft.bindHost, token: a2aToken });
  const oss = await startOssEmulator({ host: draft.bindHost, credentials: [credentials], region });
  const plan = localSPlan({
    platform: process.platform,
    bridgeGateway: process.platform === 'linux' ? draft.hostForContainer : undefined,
    a2a: { port: Number(new URL(a2a.url).port), token: a2aToken },
    oss: { port: Number(new URL(oss.endpoint).port), bucket: 'agui-state', region, credentials },
    authToken,
    env: process.env,
    root: PROJECT_ROOT,
  });
  process.stdout.write(
    [
      `A2A emulator: ${plan.a2aUrl}  OSS emulator: ${plan.ossEndpoint} (bucket agui-state), as the container sees them`,
      `running: ${plan.command.map((part) => part.replace(PROJECT_ROOT, '.')).join(' ')}`,
      `then, once s prints the local port (9000 unless taken), e.g.:`,
      demoCurl('http://127.0.0.1:9000', { threadId: 's-local-demo', withAuth: true }),
      authTokenFrom(process.env) ? '' : `  (IAC_CODE_AGUI_AUTH_TOKEN was unset; this run uses ${authToken})`,
      '',
    ].join('\n'),
  );
  const [program, ...args] = plan.command;
  const child = spawn(program as string, args, { cwd: PROJECT_ROOT, env: plan.env, stdio: 'inherit' });
  const stop = (): void => {
    if (child.exitCode === null) child.kill('SIGINT');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.once('exit', async (code) => {
    await a2a.close();
    await oss.close();
    process.exit(code ?? 1);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`local:s failed: ${errorSummary(error)}\n`);
  process.exit(1);
});

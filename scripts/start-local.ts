/**
 * `npm start` (SPEC §7): the adapter on port 8000 with the file store — or the OSS driver when
 * IAC_CODE_AGUI_STATE_STORE=oss, against IAC_CODE_AGUI_OSS_ENDPOINT, or against a freshly
 * started local OSS emulator when no endpoint is configured — and, unless IAC_CODE_AGUI_A2A_URL
 * points at a real kernel, the built-in iac-code A2A emulator.
 */
import { randomBytes } from 'node:crypto';
import { composeApp } from '../lib/adapters/compose.js';
import { type Config, ConfigError, loadConfig } from '../lib/adapters/config.js';
import { createLogger } from '../lib/adapters/logger.js';
import { listen } from '../lib/adapters/node-server/node-server.js';
import { EMULATOR_CONSOLE_EXAMPLES } from '../lib/emulators/a2a/console-examples.js';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { type OssEmulator, startOssEmulator } from '../lib/emulators/oss/server.js';
import { demoCurl } from './demo-request.js';

type Env = Record<string, string | undefined>;

/**
 * SPEC §7: the local OSS emulator starts only for the OSS store with no endpoint configured. It
 * gets fresh credentials of its own (replacing any ALIBABA_CLOUD_* of this shell, which it would
 * not know) and keeps its objects in memory for the life of this process.
 */
async function ossEmulatorFor(env: Env): Promise<{ emulator: OssEmulator | undefined; env: Env }> {
  if (env['IAC_CODE_AGUI_STATE_STORE'] !== 'oss' || env['IAC_CODE_AGUI_OSS_ENDPOINT']) return { emulator: undefined, env };
  const bucket = env['IAC_CODE_AGUI_OSS_BUCKET'] || 'agui-state';
  const region = env['IAC_CODE_AGUI_OSS_REGION'] || 'cn-hangzhou';
  const credential = { accessKeyId: `local-${randomBytes(6).toString('hex')}`, accessKeySecret: randomBytes(24).toString('base64url') };
  const emulator = await startOssEmulator({ buckets: [bucket], region, credentials: [credential] });
  return {
    emulator,
    env: {
      ...env,
      IAC_CODE_AGUI_OSS_ENDPOINT: emulator.endpoint,
      IAC_CODE_AGUI_OSS_BUCKET: bucket,
      IAC_CODE_AGUI_OSS_REGION: region,
      ALIBABA_CLOUD_ACCESS_KEY_ID: credential.accessKeyId,
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: credential.accessKeySecret,
      ALIBABA_CLOUD_SECURITY_TOKEN: undefined,
    },
  };
}

/** Which store, where — never a credential. */
function describeStore(config: Config, ossEmulator: OssEmulator | undefined): string {
  if (config.store === 'file' || !config.oss) return `file (${config.stateDir})`;
  const where = ossEmulator ? `built-in OSS emulator at ${ossEmulator.endpoint}` : config.oss.endpoint;
  return `oss (bucket ${config.oss.bucket}, prefix ${config.oss.prefix}/, ${where}, ${config.oss.signature.toUpperCase()} signatures)`;
}

/** The web console, built in memory at start-up (SPEC §7); loaded only when enabled, so esbuild stays out otherwise. */
async function localConsole(config: Config, withEmulator: boolean, logger: ReturnType<typeof createLogger>) {
  const { localConsoleRoute } = await import('../lib/console/build/local-console.js');
  const settings = { authRequired: Boolean(config.authToken), ...(withEmulator ? { examples: EMULATOR_CONSOLE_EXAMPLES } : {}) };
  return localConsoleRoute(settings, logger).route;
}

async function main(): Promise<void> {
  const oss = await ossEmulatorFor(process.env);
  // SPEC §6: the web console is on by default under npm start (IAC_CODE_AGUI_CONSOLE=0 turns it off).
  const config = loadConfig({ IAC_CODE_AGUI_CONSOLE: '1', ...oss.env });
  const logger = createLogger();
  const emulator = config.a2aUrl ? undefined : await startA2AEmulator({ token: config.a2aToken?.reveal() });
  const consoleRoute = config.console ? await localConsole(config, Boolean(emulator), logger) : undefined;
  const { app } = composeApp(config, logger, config.a2aUrl ?? (emulator as { url: string }).url, { console: consoleRoute });
  const server = await listen(app, logger, config.host, config.port);
  process.stdout.write(
    [
      '',
      `iac-code AG-UI adapter listening on ${server.url}`,
      `A2A kernel: ${emulator ? `built-in emulator at ${emulator.url}` : 'IAC_CODE_AGUI_A2A_URL'}; thread store: ${describeStore(config, oss.emulator)}`,
      ...(consoleRoute ? ['', `Web console: ${server.url}/console${config.authToken ? ' (it asks for IAC_CODE_AGUI_AUTH_TOKEN)' : ''}`] : []),
      '',
      'Try a streamed turn (change runId for every request):',
      demoCurl(server.url, { threadId: 'demo-thread', withAuth: Boolean(config.authToken) }),
      '',
    ].join('\n'),
  );
  const shutdown = async () => {
    await server.close();
    await emulator?.close();
    await oss.emulator?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? `configuration error: ${error.message}` : String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});

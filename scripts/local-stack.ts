/**
 * The local stack of `npm start` and `npm run start:oss` (README "The two commands"): the adapter
 * through its one start-up path (lib/adapters/start-adapter.ts, docs/architecture.md §6), with the
 * emulators its configuration calls for — the built-in iac-code A2A emulator unless
 * IAC_CODE_AGUI_A2A_URL names a real kernel, and a local OSS emulator for the OSS store when no
 * endpoint is configured. On SIGTERM/Ctrl-C it drains like the FC function, then closes them.
 */
import { randomBytes } from 'node:crypto';
import type { Env, LocalEmulatorPlan } from '../lib/adapters/config.js';
import { type RunningAdapter, type RunningEmulators, startAdapter } from '../lib/adapters/start-adapter.js';
import { EMULATOR_CONSOLE_EXAMPLES } from '../lib/emulators/a2a/console-examples.js';
import { type A2AEmulator, startA2AEmulator } from '../lib/emulators/a2a/server.js';
import { type OssEmulator, startOssEmulator } from '../lib/emulators/oss/server.js';
import { demoCurl } from './demo-request.js';

interface LocalEmulators extends RunningEmulators {
  a2aEmulator: A2AEmulator | undefined;
  ossEmulator: OssEmulator | undefined;
}

/**
 * The OSS emulator gets fresh credentials of its own (they replace any ALIBABA_CLOUD_* of this
 * shell, which it would not know) and keeps its objects in memory for the life of this process.
 */
async function startLocalEmulators(plan: LocalEmulatorPlan): Promise<LocalEmulators> {
  const a2aEmulator = plan.a2a ? await startA2AEmulator({ token: plan.a2a.token?.reveal() }) : undefined;
  let ossEmulator: OssEmulator | undefined;
  let oss: LocalEmulators['oss'];
  if (plan.oss) {
    const credentials = { accessKeyId: `local-${randomBytes(6).toString('hex')}`, accessKeySecret: randomBytes(24).toString('base64url') };
    ossEmulator = await startOssEmulator({ buckets: [plan.oss.bucket], region: plan.oss.region, credentials: [credentials] });
    oss = { endpoint: ossEmulator.endpoint, bucket: plan.oss.bucket, region: plan.oss.region, credentials };
  }
  return {
    a2aEmulator,
    ossEmulator,
    a2aUrl: a2aEmulator?.url,
    oss,
    close: async () => {
      await a2aEmulator?.close();
      await ossEmulator?.close();
    },
  };
}

function consoleAuthNote(config: RunningAdapter<LocalEmulators>['config']): string {
  if (config.oidc?.console) return ` (it signs you in with ${config.oidc.issuer})`;
  return config.authToken ? ' (it asks for IAC_CODE_AGUI_AUTH_TOKEN)' : '';
}

/** Which kernel and which store, where — never a credential. */
function banner({ config, server, emulators }: RunningAdapter<LocalEmulators>): string {
  const kernel = emulators.a2aEmulator ? `built-in emulator at ${emulators.a2aEmulator.url}` : 'IAC_CODE_AGUI_A2A_URL';
  let store = `file (${config.stateDir})`;
  if (config.store === 'oss' && config.oss) {
    const where = emulators.ossEmulator ? `built-in OSS emulator at ${emulators.ossEmulator.endpoint}` : config.oss.endpoint;
    store = `oss (bucket ${config.oss.bucket}, prefix ${config.oss.prefix}/, ${where}, ${config.oss.signature.toUpperCase()} signatures)`;
  }
  return [
    '',
    `iac-code AG-UI adapter listening on ${server.url}`,
    `A2A kernel: ${kernel}; thread store: ${store}`,
    ...(config.console ? ['', `Web console: ${server.url}/console${consoleAuthNote(config)}`] : []),
    '',
    'Try a streamed turn (change runId for every request):',
    demoCurl(server.url, { threadId: 'demo-thread', withAuth: Boolean(config.authToken) }),
    '',
  ].join('\n');
}

export async function startLocalStack(env: Env): Promise<void> {
  await startAdapter({
    platform: 'local',
    // The web console is on by default under npm start (IAC_CODE_AGUI_CONSOLE=0 turns it off), and
    // a run outlives a reload of it by a minute (docs/protocol.md §6.15; IAC_CODE_AGUI_DETACH_GRACE_MS=0 restores the cancel).
    env: { IAC_CODE_AGUI_CONSOLE: '1', IAC_CODE_AGUI_DETACH_GRACE_MS: '60000', ...env },
    startEmulators: startLocalEmulators,
    // Built in memory with esbuild; imported only when the console is on. The emulator's example
    // prompts are offered only when the built-in emulator is the kernel.
    loadConsole: async (settings, logger) => {
      const { localConsoleRoute } = await import('../lib/console/build/local-console.js');
      const withEmulator = !env['IAC_CODE_AGUI_A2A_URL'];
      return localConsoleRoute({ ...settings, ...(withEmulator ? { examples: EMULATOR_CONSOLE_EXAMPLES } : {}) }, logger).route;
    },
    onListening: (adapter) => process.stdout.write(banner(adapter)),
  });
}

/**
 * `npm start` (SPEC §7): the adapter on port 8000 with the file store and, unless
 * IAC_CODE_AGUI_A2A_URL points at a real kernel, the built-in iac-code A2A emulator.
 */
import { composeApp } from '../lib/adapters/compose.js';
import { ConfigError, loadConfig } from '../lib/adapters/config.js';
import { createLogger } from '../lib/adapters/logger.js';
import { listen } from '../lib/adapters/node-server.js';
import { startA2AEmulator } from '../lib/emulators/a2a/server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger();
  const emulator = config.a2aUrl ? undefined : await startA2AEmulator({ token: config.a2aToken?.reveal() });
  const { app } = composeApp(config, logger, config.a2aUrl ?? (emulator as { url: string }).url);
  const server = await listen(app, logger, config.host, config.port);
  const auth = config.authToken ? " -H 'Authorization: Bearer $IAC_CODE_AGUI_AUTH_TOKEN'" : '';
  const body = JSON.stringify({
    threadId: 'demo-thread',
    runId: 'run-1',
    state: {},
    messages: [{ id: 'message-1', role: 'user', content: 'hello, create a VPC template' }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'invocation-1', cwd: '/workspace/demo' } },
  });
  process.stdout.write(
    [
      '',
      `iac-code AG-UI adapter listening on ${server.url}`,
      `A2A kernel: ${emulator ? `built-in emulator at ${emulator.url}` : 'IAC_CODE_AGUI_A2A_URL'}; thread store: ${config.store} (${config.store === 'file' ? config.stateDir : config.oss?.bucket})`,
      '',
      'Try a streamed turn (change runId for every request):',
      `  curl -N ${server.url}/ -H 'Content-Type: application/json' -H 'Accept: text/event-stream'${auth} \\`,
      `    -d '${body}'`,
      '',
    ].join('\n'),
  );
  const shutdown = async () => {
    await server.close();
    await emulator?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? `configuration error: ${error.message}` : String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});

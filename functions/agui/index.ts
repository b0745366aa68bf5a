/**
 * Function Compute web function "agui" (SPEC §1): all three endpoints, served by a Node 20 HTTP
 * server on 0.0.0.0:FC_SERVER_PORT in a custom runtime — only web functions stream SSE on FC 3.0.
 * The A2A kernel must be configured (the emulator never starts in FC); any configuration error
 * stops start-up with one JSON line. SIGTERM drains, aborts and cleans up (graceful-shutdown.ts).
 */
import { fileURLToPath } from 'node:url';
import { composeApp } from '../../lib/adapters/compose.js';
import { ConfigError, loadConfig } from '../../lib/adapters/config.js';
import { createLogger } from '../../lib/adapters/logger.js';
import { exitOnSignals, shutdownPolicyFrom } from '../../lib/adapters/node-server/graceful-shutdown.js';
import { listen } from '../../lib/adapters/node-server/node-server.js';
import { functionComputeEnv, instanceLogFields } from './fc-env.js';

const env = functionComputeEnv(process.env);
const logger = createLogger(undefined, instanceLogFields(env));

/**
 * The web console when IAC_CODE_AGUI_CONSOLE=1 (off by default in FC, SPEC §6): its serving code
 * is imported only then, and its assets are the ones `npm run build` put beside this bundle.
 */
async function prebuiltConsole(authRequired: boolean) {
  const { prebuiltConsoleRoute } = await import('../../lib/console/build/prebuilt-console.js');
  return prebuiltConsoleRoute(fileURLToPath(new URL('./console/', import.meta.url)), { authRequired });
}

async function main(): Promise<void> {
  const config = loadConfig(env);
  if (!config.a2aUrl) throw new ConfigError('IAC_CODE_AGUI_A2A_URL is required in Function Compute (the built-in A2A emulator never starts there)');
  const policy = shutdownPolicyFrom(env);
  const { app } = composeApp(config, logger, config.a2aUrl, { console: config.console ? await prebuiltConsole(Boolean(config.authToken)) : undefined });
  const server = await listen(app, logger, config.host, config.port);
  exitOnSignals(server, policy, logger);
  logger.info('listening', { host: config.host, port: config.port, store: config.store });
}

main().catch((error: unknown) => {
  const reason = error instanceof ConfigError ? `configuration error: ${error.message}` : `start-up failed: ${error instanceof Error ? error.message : String(error)}`;
  createLogger((line) => process.stderr.write(`${line}\n`), instanceLogFields(env)).error(reason);
  process.exit(1);
});

/**
 * Function Compute web function "agui" (SPEC §1): all three endpoints, served by a Node 20 HTTP
 * server on 0.0.0.0:FC_SERVER_PORT in a custom runtime — only web functions stream SSE on FC 3.0.
 * The A2A kernel must be configured (the emulator never starts in FC); any configuration error
 * stops start-up with one JSON line. SIGTERM drains, aborts and cleans up (graceful-shutdown.ts).
 */
import { composeApp } from '../../lib/adapters/compose.js';
import { ConfigError, loadConfig } from '../../lib/adapters/config.js';
import { createLogger } from '../../lib/adapters/logger.js';
import { exitOnSignals, shutdownPolicyFrom } from '../../lib/adapters/node-server/graceful-shutdown.js';
import { listen } from '../../lib/adapters/node-server/node-server.js';
import { errorFields } from '../../lib/core/error-fields.js';
import { functionComputeEnv, instanceLogFields } from './fc-env.js';

const env = functionComputeEnv(process.env);

async function main(): Promise<void> {
  const config = loadConfig(env);
  const logger = createLogger(undefined, instanceLogFields(env), config.logLevel);
  if (!config.a2aUrl) throw new ConfigError('IAC_CODE_AGUI_A2A_URL is required in Function Compute (the built-in A2A emulator never starts there)');
  const policy = shutdownPolicyFrom(env);
  const { app } = composeApp(config, logger, config.a2aUrl);
  const server = await listen(app, logger, config.host, config.port);
  exitOnSignals(server, policy, logger);
  logger.info('listening', { host: config.host, port: config.port, store: config.store });
}

main().catch((error: unknown) => {
  const stderr = createLogger((line) => process.stderr.write(`${line}\n`), instanceLogFields(env));
  if (error instanceof ConfigError) stderr.error(`configuration error: ${error.message}`);
  else stderr.error(`start-up failed: ${error instanceof Error ? error.message : String(error)}`, { error: errorFields(error) });
  process.exit(1);
});

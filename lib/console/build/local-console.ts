/**
 * The console as `npm start` serves it (docs/architecture.md §4.7: no build step): built in memory with esbuild as
 * soon as this is called, and served once the build is done — the first request simply waits for
 * it. A failed build is logged at once with its reason.
 */
import { errorFields } from '../../core/error-fields.js';
import type { Logger } from '../../core/ports.js';
import { type ConsoleRoute, type ConsoleSettings, createConsoleRoute } from '../../http/console-route.js';
import { type BuiltConsole, buildConsole } from './build-console.js';

export function localConsoleRoute(settings: ConsoleSettings, logger: Logger): { route: ConsoleRoute; built: Promise<BuiltConsole> } {
  const built = buildConsole();
  built.catch((error: unknown) => logger.error('web console build failed', { error: errorFields(error) }));
  return { route: createConsoleRoute(() => built, settings), built };
}

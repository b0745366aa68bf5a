/**
 * The console as the FC function serves it when IAC_CODE_AGUI_CONSOLE=1 (docs/protocol.md §1.1; docs/architecture.md §4.7): read once
 * at start-up from the code folder, where `npm run build` put it. A missing build stops start-up
 * with a line saying so. The FC entry imports this file only when the console is enabled.
 */
import { type ConsoleRoute, type ConsoleSettings, createConsoleRoute } from '../../http/console-route.js';
import { readConsoleAssets } from './console-files.js';

export async function prebuiltConsoleRoute(dir: string, settings: ConsoleSettings): Promise<ConsoleRoute> {
  const assets = await readConsoleAssets(dir);
  return createConsoleRoute(() => Promise.resolve(assets), settings);
}

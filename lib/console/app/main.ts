/**
 * The console's entry (docs/architecture.md §4.7): reads /console/config.json, asks for the token when the adapter
 * needs one and this tab has none, and shows the page ready for a first message.
 */

import { Composer } from './composer/composer.js';
import { loadConsoleConfig } from './connection/console-config.js';
import { unreachable } from './connection/failures.js';
import { readToken } from './connection/session-token.js';
import { ConsoleApp } from './console-app.js';
import { el } from './dom.js';
import { TokenDialog } from './ui/token-dialog.js';

async function start(mount: HTMLElement): Promise<void> {
  let config: Awaited<ReturnType<typeof loadConsoleConfig>>;
  try {
    config = await loadConsoleConfig();
  } catch {
    const retry = el('button', { type: 'button', class: 'primary', text: 'Try again', on: { click: () => location.reload() } });
    mount.replaceChildren(el('div', { class: 'fatal', role: 'alert' }, el('h1', { text: 'iac-code console' }), el('p', { text: unreachable().message }), retry));
    return;
  }
  let app: ConsoleApp | undefined;
  const composer = new Composer((message) => app?.send(message));
  const tokenDialog = new TokenDialog(() => app?.connected());
  app = new ConsoleApp({ config, composer, tokenDialog });
  mount.replaceChildren(app.root);
  if (config.authRequired && !readToken()) tokenDialog.open();
  else app.connected();
}

const mount = document.getElementById('app');
if (mount) void start(mount);

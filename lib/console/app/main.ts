/**
 * The console's entry (docs/architecture.md §4.7): reads /console/config.json, then gets access —
 * signs the person in with the adapter's identity provider when it offers one (coming back from
 * the provider finishes the sign-in), else asks for the token when the adapter needs one and this
 * tab has none — and shows the page ready for a first message.
 */

import { unreachable } from '../../client/failures.js';
import { Composer } from './composer/composer.js';
import { loadConsoleConfig } from './connection/console-config.js';
import { readToken } from './connection/session-token.js';
import { SignInAccess } from './connection/sign-in-access.js';
import { TokenAccess } from './connection/token-access.js';
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
  if (config.signIn) {
    const access = new SignInAccess(config.signIn);
    app = new ConsoleApp({ config, composer, access, account: access.account });
    mount.replaceChildren(app.root);
    const started = app;
    await access.start({ connected: () => started.connected(), restoreDraft: (text) => composer.fill(text), say: (text) => started.say(text) });
    return;
  }
  const tokenDialog = new TokenDialog(() => app?.connected());
  app = new ConsoleApp({ config, composer, access: new TokenAccess(tokenDialog) });
  mount.replaceChildren(app.root);
  if (config.authRequired && !readToken()) tokenDialog.open();
  else app.connected();
}

const mount = document.getElementById('app');
if (mount) void start(mount);

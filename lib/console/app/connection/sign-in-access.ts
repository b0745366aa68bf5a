/**
 * Access by signing in (docs/architecture.md §4.7; oidc-session.ts does the protocol): on start the
 * page finishes a sign-in it comes back from, or goes on with the session this tab holds, or asks;
 * the access token is renewed silently before it expires; a refusal by the adapter is answered
 * with one renewal first and, only if that fails, the sign-in dialog (the text that was refused is
 * put back in the message box on return). The top bar names who is signed in and signs out.
 */

import type { Failure } from '../../../client/failures.js';
import { el } from '../dom.js';
import { SignInDialog } from '../ui/sign-in-dialog.js';
import type { Access } from './access.js';
import type { SignInConfig } from './console-config.js';
import { OidcSession, SignInError } from './oidc-session.js';
import { forgetToken } from './session-token.js';

export interface SignInHooks {
  /** Access is back (or there from the start): the page may talk to the adapter, and resends what was refused. */
  connected(): void;
  /** Text to put back in the message box. */
  restoreDraft(text: string): void;
  say(text: string): void;
}

export class SignInAccess implements Access {
  readonly dialog: HTMLDialogElement;
  /** "Signed in as … · Sign out", in the top bar. */
  readonly account: HTMLElement;
  private readonly signInDialog: SignInDialog;
  private readonly session: OidcSession | undefined;
  private readonly who: HTMLElement;
  private renewal: ReturnType<typeof setTimeout> | undefined;
  private hooks: SignInHooks | undefined;
  /** The refused message's text, carried through a sign-in that leaves the page. */
  private draft: string | undefined;

  constructor(private readonly config: SignInConfig) {
    this.session = 'unavailable' in config ? undefined : new OidcSession(config);
    const provider = new URL(config.issuer).host;
    this.signInDialog = new SignInDialog(provider, () => void this.goSignIn());
    this.dialog = this.signInDialog.root;
    this.who = el('span', { class: 'account-name' });
    const signOut = el('button', { type: 'button', class: 'link sign-out', text: 'Sign out', on: { click: () => void this.signOut() } });
    this.account = el('div', { class: 'account', hidden: true }, this.who, signOut);
  }

  /** Once the page is built: finish a sign-in coming back, or go on with this tab's session, or ask. */
  async start(hooks: SignInHooks): Promise<void> {
    this.hooks = hooks;
    if (!this.session) {
      this.signInDialog.open(`The identity provider (${this.config.issuer}) cannot be reached right now. Reload the page to try again.`);
      return;
    }
    if (this.session.returning()) {
      try {
        const { draft } = await this.session.complete();
        if (draft) hooks.restoreDraft(draft);
      } catch (error) {
        this.signInDialog.open(error instanceof SignInError ? error.message : String(error));
        return;
      }
    }
    const current = this.session.current();
    if (!current) {
      this.signInDialog.open();
      return;
    }
    if (current.renewAt <= Date.now() && !(await this.session.renew())) {
      this.signedOut('Your sign-in has expired. Sign in again.');
      return;
    }
    this.signedIn();
  }

  connectedText(): string {
    return `Signed in as ${this.session?.current()?.name ?? 'you'}.`;
  }

  refused(failure: Failure, resend: { draft: string | undefined } | undefined): void {
    const draft = resend?.draft;
    void (async () => {
      // An access token the adapter no longer takes (expired, a key rotated): one renewal first.
      if (await this.session?.renew()) {
        this.signedIn();
        return;
      }
      this.draft = draft;
      this.signedOut(`The adapter refused your sign-in (${failure.message}) Sign in again${draft ? ': your message is put back in the box when you return' : ''}.`);
    })();
  }

  private signedIn(): void {
    const current = this.session?.current();
    if (!current) return;
    this.signInDialog.close();
    this.who.textContent = `Signed in as ${current.name}`;
    this.account.hidden = false;
    this.schedule(current.renewAt);
    this.hooks?.connected();
  }

  private signedOut(reason: string): void {
    if (this.renewal) clearTimeout(this.renewal);
    this.account.hidden = true;
    forgetToken();
    this.signInDialog.open(reason);
  }

  /** Silent renewal at `at`; a failed one asks for a new sign-in. */
  private schedule(at: number): void {
    if (this.renewal) clearTimeout(this.renewal);
    this.renewal = setTimeout(
      () => {
        void (async () => {
          if (await this.session?.renew()) {
            const next = this.session?.current();
            if (next) this.schedule(next.renewAt);
            this.hooks?.say(`Sign-in renewed for ${next?.name ?? 'you'}.`);
          } else this.signedOut('Your sign-in could not be renewed. Sign in again.');
        })();
      },
      Math.max(0, at - Date.now()),
    );
  }

  private async goSignIn(): Promise<void> {
    this.signInDialog.leaving();
    await this.session?.signIn(this.draft);
  }

  private async signOut(): Promise<void> {
    if (this.renewal) clearTimeout(this.renewal);
    this.account.hidden = true;
    await this.session?.signOut();
    this.hooks?.say('Signed out.');
    this.signInDialog.open('You signed out.');
  }
}

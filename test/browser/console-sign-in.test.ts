/**
 * The web console signing a person in with the adapter's identity provider, in a real Chromium
 * against a real OpenID Connect provider on loopback (test/support/oidc-provider.ts; docs/protocol.md
 * §1.2, docs/architecture.md §4.7): the sign-in dialog instead of the token dialog, the provider's
 * own sign-in and consent pages, the authorization code with PKCE exchanged on return (the code
 * gone from the address at once), runs as that person, the access token renewed silently before it
 * expires, a token the adapter refuses renewed once and what was refused sent again, and sign-out
 * at the provider. Tokens stay in this tab's session storage only.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/adapters/logger.js';
import { OidcTokenVerifier } from '../../lib/adapters/oidc/index.js';
import { personCaller } from '../../lib/core/caller.js';
import { threadStoreFor } from '../../lib/core/thread/thread-address.js';
import { AUDIENCE, CONSOLE_CLIENT, startOidcProvider, type TestProvider } from '../support/oidc-provider.js';
import { type Stack, startStack } from '../support/stack.js';
import { type Browser, launchBrowser, runEnd, sendMessage, threadIdOf } from './browser-support.js';

/** Short-lived access tokens: renewal comes half-way, 5 s after sign-in. */
const TOKEN_TTL_S = 10;

let provider: TestProvider;
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  provider = await startOidcProvider({ accessTokenTtl: TOKEN_TTL_S });
  const verifier = new OidcTokenVerifier(
    { issuer: provider.issuer, audiences: [AUDIENCE], clients: [CONSOLE_CLIENT], userClaim: 'sub', console: { clientId: CONSOLE_CLIENT, scope: 'openid offline_access' } },
    { clock: Date.now, logger: createLogger(() => undefined) },
  );
  stack = await startStack({
    store: 'file',
    tokens: verifier,
    console: { signIn: { issuer: provider.issuer, clientId: CONSOLE_CLIENT, scope: 'openid offline_access', audiences: [AUDIENCE], endpoints: () => verifier.metadata() } },
  });
  provider.setConsoleRedirects([`${stack.url}/console`]);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await provider?.close();
});

/** The provider's own sign-in page, then its consent page. */
async function atProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

async function tokenIn(page: Page): Promise<string | null> {
  return page.evaluate(() => sessionStorage.getItem('iac-code-console.token'));
}

function tokenRequests(): number {
  return provider.requests.get('/token') ?? 0;
}

describe('signing in to the web console', { timeout: 90_000 }, () => {
  it('asks to sign in with the provider — not for a token — and signs in through the provider’s own pages', async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/console`);
    const dialog = page.getByRole('dialog', { name: 'Sign in' });
    await dialog.waitFor();
    expect(await page.locator('dialog.token-dialog:not(.sign-in-dialog)').count()).toBe(0);
    const host = new URL(provider.issuer).host;
    await browser.screenshot('sign-in-dialog');

    await page.getByRole('button', { name: `Sign in with ${host}` }).click();
    await page.waitForURL((url) => url.origin === provider.issuer);
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\//);
    await atProvider(page, 'alice');

    await page.waitForURL(`${stack.url}/console`);
    await page.locator('.account', { hasText: 'Signed in as alice' }).waitFor();
    expect(page.url()).toBe(`${stack.url}/console`);
    expect(await dialog.isVisible()).toBe(false);
    const stored = await page.evaluate(() => ({ session: sessionStorage.getItem('iac-code-console.sign-in') ?? '{}', local: JSON.stringify({ ...localStorage }) }));
    expect(JSON.parse(stored.session)).toMatchObject({ name: 'alice', refreshToken: expect.any(String), accessToken: expect.stringMatching(/^eyJ/) });
    expect(stored.local).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    // The access token names the adapter's audience (a resource indicator): it is the one sent.
    const sent = JSON.parse(Buffer.from(((await tokenIn(page)) ?? '').split('.')[1] ?? '', 'base64url').toString('utf8')) as { aud: unknown };
    expect(sent.aud).toBe(AUDIENCE);
    await browser.screenshot('signed-in');
  });

  it('runs as the signed-in person: the kernel hears alice, the thread is bound to her', async () => {
    const { page } = browser;
    await sendMessage(page, 'hello as alice');
    expect(await runEnd(page)).toBe('finished');
    const sent = stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { metadata: { iac_code: { user_id?: string } } } };
    expect(sent.message.metadata.iac_code.user_id).toBe('alice');
    // A person's thread lives in their namespace (docs/protocol.md §6.3 "Namespaces").
    const stored = await threadStoreFor(stack.store, personCaller('alice')).load(await threadIdOf(page));
    expect((stored?.document as { userId: string }).userId).toBe('alice');
  });

  it('renews the access token silently before it expires, and keeps working with the new one', async () => {
    const { page } = browser;
    const before = await tokenIn(page);
    const requests = tokenRequests();
    // Renewal is due half-way through the token's 10 s: a condition with a deadline, not a sleep.
    await page.waitForFunction((old) => sessionStorage.getItem('iac-code-console.token') !== old, before, { timeout: 20_000 });
    expect(tokenRequests()).toBeGreaterThan(requests);
    await page.locator('.topbar .status', { hasText: 'Sign-in renewed for alice.' }).waitFor();

    await sendMessage(page, 'hello after renewal');
    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.user .message-text').allTextContents()).toEqual(['hello as alice', 'hello after renewal']);
  });

  it('meets a token the adapter refuses with one renewal, then sends the message again', async () => {
    const { page } = browser;
    // A token the adapter will refuse (its signature broken), as one revoked or signed with a rotated key would be.
    await page.evaluate(() => {
      const token = sessionStorage.getItem('iac-code-console.token') ?? '';
      sessionStorage.setItem('iac-code-console.token', `${token.slice(0, -6)}AAAAAA`);
    });
    const requests = tokenRequests();
    const finished = await page.locator('.run .run-footer[data-state="finished"]').count();
    await sendMessage(page, 'hello once refused');
    await page.waitForFunction((count) => document.querySelectorAll('.run .run-footer[data-state="finished"]').length > count, finished);
    expect(tokenRequests()).toBe(requests + 1);
    expect(await page.locator('.turn.user .message-text').last().textContent()).toBe('hello once refused');
    expect(await page.getByRole('dialog', { name: 'Sign in' }).isVisible()).toBe(false);
  });

  it('signs out at the provider and comes back signed out', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${stack.url}/console`);
    await page.getByRole('dialog', { name: 'Sign in' }).waitFor();
    expect(await tokenIn(page)).toBeNull();
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.sign-in'))).toBeNull();
    // The refresh token was revoked on the way out.
    expect(provider.requests.get('/token/revocation')).toBe(1);
  });

  it('left no error in the browser’s log but what the provider’s own pages miss (web fonts, a favicon) and the refused token', () => {
    // The provider's development pages import Google's fonts (no network here) and have no favicon.
    const expected = [/ERR_NAME_NOT_RESOLVED|ERR_INTERNET_DISCONNECTED/, /status of 404 \(Not Found\)/, /status of 401 \(Unauthorized\)/];
    expect(browser.problems.filter((line) => !expected.some((pattern) => pattern.test(line)))).toEqual([]);
    expect(provider.requests.get('/favicon.ico')).toBeGreaterThanOrEqual(browser.problems.filter((line) => /status of 404/.test(line)).length);
    expect(browser.problems.filter((line) => /status of 401/.test(line))).toHaveLength(1);
    expect(stack.logs.join('\n')).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
  });
});

describe('signing in where the adapter takes ID tokens (a provider whose access tokens are for its own APIs, as IDaaS’s are)', { timeout: 90_000 }, () => {
  it('sends the ID token — the one naming the adapter’s audience, the console’s client — and runs as its person', async () => {
    const verifier = new OidcTokenVerifier(
      { issuer: provider.issuer, audiences: [CONSOLE_CLIENT], clients: undefined, userClaim: 'sub', console: { clientId: CONSOLE_CLIENT, scope: 'openid offline_access' } },
      { clock: Date.now, logger: createLogger(() => undefined) },
    );
    const idTokens = await startStack({
      store: 'file',
      tokens: verifier,
      console: { signIn: { issuer: provider.issuer, clientId: CONSOLE_CLIENT, scope: 'openid offline_access', audiences: [CONSOLE_CLIENT], endpoints: () => verifier.metadata() } },
    });
    provider.setConsoleRedirects([`${idTokens.url}/console`]);
    const second = await launchBrowser();
    try {
      const { page } = second;
      await page.goto(`${idTokens.url}/console`);
      await page.getByRole('button', { name: /^Sign in with / }).click();
      await atProvider(page, 'bob');
      await page.locator('.account', { hasText: 'Signed in as bob' }).waitFor();
      const sent = JSON.parse(Buffer.from(((await tokenIn(page)) ?? '').split('.')[1] ?? '', 'base64url').toString('utf8')) as { aud: unknown; sub: unknown };
      expect(sent).toMatchObject({ aud: CONSOLE_CLIENT, sub: 'bob' });
      await sendMessage(page, 'hello as bob');
      expect(await runEnd(page)).toBe('finished');
      expect(((await threadStoreFor(idTokens.store, personCaller('bob')).load(await threadIdOf(page)))?.document as { userId: string }).userId).toBe('bob');
    } finally {
      await second.close();
      await idTokens.close();
    }
  });
});

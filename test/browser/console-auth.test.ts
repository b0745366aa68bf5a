/**
 * Connecting the web console to an adapter that has a bearer token, in a real Chromium: the page
 * asks for the token, says so when it is wrong, keeps the right one in this tab's session storage
 * only (never local storage, never the URL) and uses it for every call; an adapter that went away
 * is reported as unreachable.
 */
import { describe, expect, it } from 'vitest';
import { consoleSuite, runEnd, sendMessage } from './browser-support.js';

const TOKEN = 'console-front-door-7d1c2b';

const suite = consoleSuite({ store: 'file', config: { authToken: TOKEN }, console: {} }, async ({ browser, stack }) => {
  await browser.page.goto(`${stack.url}/console`);
});

describe('connecting the web console', { timeout: 60_000 }, () => {
  it('asks for the token and says when it is wrong', async () => {
    const { page } = suite.browser;
    const dialog = page.getByRole('dialog', { name: 'Connect to the adapter' });
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');

    await page.getByLabel('Bearer token').fill('not-the-token');
    await page.getByLabel('Bearer token').press('Enter');

    await page.locator('#token-error', { hasText: 'The adapter rejected this token (UNAUTHORIZED). Check it and try again.' }).waitFor();
    expect(await dialog.isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await suite.browser.screenshot('wrong-token');
  });

  it('keeps the right token in session storage only and runs with it', async () => {
    const { page } = suite.browser;
    await page.getByLabel('Bearer token').fill(TOKEN);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.locator('.topbar .status').textContent()).toBe('Connected with a token (kept in this tab only).');

    await sendMessage(page, 'hello with a token');
    expect(await runEnd(page)).toBe('finished');

    const storage = await page.evaluate(() => ({
      session: Object.values({ ...sessionStorage }),
      local: JSON.stringify({ ...localStorage }),
      url: location.href,
    }));
    expect(storage.session).toContain(TOKEN);
    expect(storage.local).not.toContain(TOKEN);
    expect(storage.local).toContain('console-thread-');
    expect(storage.url).toBe(`${suite.stack.url}/console`);
    // The token reached the adapter only in the Authorization header: the thread store never saw it.
    expect(suite.stack.logs.join('\n')).not.toContain(TOKEN);
  });

  it('says the adapter cannot be reached when it went away', async () => {
    const { page } = suite.browser;
    await suite.stack.server.close();

    await sendMessage(page, 'hello, anyone?');

    expect(await runEnd(page)).toBe('error');
    expect(await page.locator('.run-error .error-code').last().textContent()).toBe('UNREACHABLE');
    expect(await page.locator('.run-error strong').last().textContent()).toBe(`The adapter at ${suite.stack.url} cannot be reached. Check that it is running, then try again.`);
  });

  it('ran without a page error or a content-security-policy violation', () => {
    // The browser does log the token checks' 401 and 400 answers and the client's failed fetch: they are this file's subject.
    expect(suite.browser.problems.filter((line) => line.startsWith('pageerror') || /Content Security Policy/i.test(line))).toEqual([]);
  });
});

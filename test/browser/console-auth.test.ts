/**
 * Connecting the web console to an adapter that has a bearer token, in a real Chromium: the page
 * asks for the token in a dialog Esc cannot dismiss (a page without a token only fails), the first
 * call that needs the token checks it — a refused one brings the dialog back and the message is
 * sent again once the right token is given, not lost — and a right token leaves nothing in the
 * browser's log. The token is kept in this tab's session storage only (never local storage, never
 * the URL) and used for every call; an adapter that went away is reported as unreachable.
 */
import { describe, expect, it } from 'vitest';
import { consoleSuite, runEnd, sendMessage } from './browser-support.js';

const TOKEN = 'console-front-door-7d1c2b';

const suite = consoleSuite({ store: 'file', config: { authToken: TOKEN }, console: {} }, async ({ browser, stack }) => {
  await browser.page.goto(`${stack.url}/console`);
});

describe('connecting the web console', { timeout: 60_000 }, () => {
  it('asks for the token in a dialog that Esc does not dismiss', async () => {
    const { page } = suite.browser;
    const dialog = page.getByRole('dialog', { name: 'Connect to the adapter' });
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');

    // Chromium lets a second Esc in a row close even a dialog whose cancel event is refused.
    for (let press = 0; press < 3; press += 1) await page.keyboard.press('Escape');

    expect(await page.locator('dialog.token-dialog').evaluate((element) => (element as HTMLDialogElement).open)).toBe(true);
    expect(await dialog.isVisible()).toBe(true);
    await suite.browser.screenshot('token-dialog');
  });

  it('checks the token with the first message: a wrong one brings the dialog back, and the message is sent once the right one is given', async () => {
    const { page } = suite.browser;
    await page.getByLabel('Bearer token').fill('not-the-token');
    await page.getByLabel('Bearer token').press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    await sendMessage(page, 'hello with a token');

    const dialog = page.getByRole('dialog', { name: 'Connect to the adapter' });
    await dialog.waitFor();
    expect(await page.locator('#token-error').textContent()).toBe(
      'The adapter refused the token (UNAUTHORIZED). Enter it again. What you sent is sent again as soon as you connect.',
    );
    // Nothing reached the adapter: no run, and the message is not shown as sent.
    expect(await page.locator('.run').count()).toBe(0);
    expect(await page.locator('.turn.user').count()).toBe(0);
    await suite.browser.screenshot('wrong-token');
    const refusals = suite.browser.problems.length;

    await page.getByLabel('Bearer token').fill(TOKEN);
    await page.getByRole('button', { name: 'Connect' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.user .message-text').allTextContents()).toEqual(['hello with a token']);
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('Hello from the iac-code emulator. You said: hello with a token');
    // The right token leaves nothing in the browser's log.
    expect(suite.browser.problems.slice(refusals)).toEqual([]);

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
    expect(await page.locator('.run-error .next-step').last().textContent()).toBe('Once the adapter is back, send your message again.');
  });

  it('left in the browser log only the refused token and the unreachable adapter, each this file’s subject', () => {
    const expected = [/status of 401 \(Unauthorized\)/, /net::ERR_CONNECTION_REFUSED/];
    expect(suite.browser.problems.filter((line) => !expected.some((pattern) => pattern.test(line)))).toEqual([]);
    expect(suite.browser.problems.filter((line) => expected[0]?.test(line))).toHaveLength(1);
  });
});

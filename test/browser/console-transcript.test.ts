/**
 * How the web console's transcript reads, in a real Chromium against a real stack (the emulator
 * repeats what it is sent, so the model's text here is whatever the test types): Markdown rendered
 * with its links, lists, tables and code blocks, and hostile Markdown made harmless — raw HTML shown
 * as text, no script run, no event handler, no image fetched, no javascript: link; a copy button on
 * each message and on each code block; the time of each message; and a failure said with the
 * message the adapter gave and the next step its code calls for.
 */
import { describe, expect, it } from 'vitest';
import { consoleSuite, runEnd, sendMessage } from './browser-support.js';

const suite = consoleSuite({ store: 'file', console: {} }, async ({ browser, stack }) => {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  await browser.page.goto(`${stack.url}/console`);
  await browser.page.locator('#message').waitFor();
});

/** What the newest assistant message's body holds. */
const lastAnswer = () => suite.browser.page.locator('.turn.assistant .message-text').last();

describe('the web console’s transcript', { timeout: 60_000 }, () => {
  it('renders the model’s Markdown: emphasis, links, lists, tables and code blocks', async () => {
    const { page } = suite.browser;
    const markdown = [
      'hello: **bold**, _italic_, `inline` and [the docs](https://example.com/docs)',
      '',
      '- one',
      '- two',
      '',
      '| zone | cidr |',
      '| --- | --- |',
      '| a | 10.0.0.0/24 |',
      '',
      '```yaml',
      'Resources:',
      '  Vpc:',
      '    Type: ALIYUN::ECS::VPC',
      '```',
    ].join('\n');
    await sendMessage(page, markdown);
    expect(await runEnd(page)).toBe('finished');

    const answer = lastAnswer();
    expect(await answer.locator('strong').textContent()).toBe('bold');
    expect(await answer.locator('em').textContent()).toBe('italic');
    expect(await answer.locator('p code').textContent()).toBe('inline');
    const link = answer.locator('a');
    expect(await link.getAttribute('href')).toBe('https://example.com/docs');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await answer.locator('ul li').allTextContents()).toEqual(['one', 'two']);
    expect(await answer.locator('table td').allTextContents()).toEqual(['a', '10.0.0.0/24']);
    const block = answer.locator('.code-block');
    expect(await block.locator('.code-bar span').textContent()).toBe('yaml');
    expect(await block.locator('pre').textContent()).toBe('Resources:\n  Vpc:\n    Type: ALIYUN::ECS::VPC\n');
    await suite.browser.screenshot('markdown');
  });

  it('copies a code block and a whole message with their buttons', async () => {
    const { page } = suite.browser;
    const answer = page.locator('.turn.assistant').last();
    const copyCode = answer.locator('.code-bar').getByRole('button', { name: 'Copy yaml code' });
    await copyCode.click();
    await answer.locator('.code-bar button', { hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Resources:\n  Vpc:\n    Type: ALIYUN::ECS::VPC\n');

    await answer.locator('.message-meta').getByRole('button', { name: 'Copy message' }).click();
    await answer.locator('.message-meta button', { hasText: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    // The message as written: its Markdown source.
    expect(copied).toContain('**bold**, _italic_, `inline` and [the docs](https://example.com/docs)');
    expect(copied).toContain('```yaml\nResources:');

    await page.locator('.turn.user').last().getByRole('button', { name: 'Copy your message' }).click();
    await page.locator('.turn.user .message-meta button', { hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^hello: \*\*bold\*\*/);
  });

  it('shows when each message was written', async () => {
    const { page } = suite.browser;
    for (const selector of ['.turn.user', '.turn.assistant']) {
      const time = page.locator(selector).last().locator('.message-meta time');
      const at = Date.parse((await time.getAttribute('datetime')) ?? '');
      expect(Math.abs(Date.now() - at)).toBeLessThan(5 * 60_000);
      expect(await time.textContent()).toMatch(/^\d{1,2}:\d{2}/);
      expect(await time.getAttribute('title')).toBeTruthy();
    }
  });

  it('never lets the model’s HTML reach the page: hostile Markdown is shown as text and does nothing', async () => {
    const { page } = suite.browser;
    await page.evaluate(() => {
      (window as unknown as { hacked: number }).hacked = 0;
    });
    const hostile = [
      'hello <img src=x onerror="window.hacked=1"> <script>window.hacked=2</script>',
      '<iframe src="https://example.com"></iframe> <b onclick="window.hacked=3">bold?</b>',
      '[click](javascript:window.hacked=4) [data](data:text/html,hi) ![pixel](https://example.com/pixel.png)',
      '<a href="javascript:window.hacked=5">raw link</a> <svg onload="window.hacked=6"></svg> <style>body{display:none}</style>',
    ].join('\n\n');
    await sendMessage(page, hostile);
    expect(await runEnd(page)).toBe('finished');

    const answer = lastAnswer();
    // Raw HTML is text.
    expect(await answer.textContent()).toContain('<img src=x onerror="window.hacked=1">');
    expect(await answer.textContent()).toContain('<script>window.hacked=2</script>');
    expect(await answer.locator('img, script, iframe, svg, style, b').count()).toBe(0);
    expect(await answer.locator('[onerror], [onclick], [onload], [style]').count()).toBe(0);
    // Links only to http(s): the javascript: and data: ones lose their address; the image is a link to it, not fetched.
    const hrefs = await answer.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs).toEqual([null, null, 'https://example.com/pixel.png']);
    await answer.locator('a').first().click();
    await answer.locator('a').nth(1).click();
    expect(await page.evaluate(() => (window as unknown as { hacked: number }).hacked)).toBe(0);
    expect(await page.locator('body').isVisible()).toBe(true);
  });

  it('says a kernel failure as the adapter gave it, with the next step its code calls for', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'fatal-error please');
    expect(await runEnd(page)).toBe('error');

    const footer = page.locator('.run .run-footer').last();
    expect(await footer.locator('.run-state').textContent()).toBe('Failed');
    // The message exactly as the RUN_ERROR carried it (the tab keeps the events it received).
    const received = await page.evaluate(() => {
      const threadId = document.querySelector('#conversation-heading')?.getAttribute('data-thread-id');
      const log = JSON.parse(sessionStorage.getItem(`iac-code-console.transcript.${threadId}`) ?? '[]') as Array<{ events?: Array<{ type: string; message?: string }> }>;
      return log.flatMap((entry) => entry.events ?? []).findLast((event) => event.type === 'RUN_ERROR');
    });
    expect(await footer.locator('.run-error strong').textContent()).toBe(received?.message);
    expect(await footer.locator('.error-code').textContent()).toBe('A2A_EXECUTION_FAILED');
    expect(await footer.locator('.next-step').textContent()).toBe('The kernel stopped this run. Send a new message to try again, or change what you asked.');
    await suite.browser.screenshot('kernel-failure');
  });

  it('ran without a console error or a content-security-policy violation', () => {
    expect(suite.browser.problems).toEqual([]);
  });
});

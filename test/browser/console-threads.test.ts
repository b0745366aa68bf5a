/**
 * Threads in the web console, in a real Chromium against a real stack: a thread is named by its
 * first message, renamed in place from the list (Enter keeps, Esc drops) and removed from the list
 * after a confirmation — in this browser only, the adapter keeps it. Opened in another tab (its own
 * session storage, the same list), a thread shows what the adapter can give back — an answer it
 * still waits for, a run still going on, through the subscribe route — and says plainly that its
 * earlier messages are kept only in the tab that showed them.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { consoleSuite, newThread, openConsole, runEnd, sendMessage, threadIdOf } from './browser-support.js';

const suite = consoleSuite({ store: 'file', console: {} });

function listItem(page: Page, title: string) {
  return page.locator('.thread-entry', { has: page.locator('.thread-title', { hasText: title }) });
}

describe('threads in the web console', { timeout: 90_000 }, () => {
  it('names a thread by its first message, in the list and above the conversation', async () => {
    const { page } = suite.browser;
    expect(await page.locator('#conversation-heading').textContent()).toBe('New thread');
    await sendMessage(page, 'hello: a VPC with two zones\nand a NAT gateway in front of them');
    expect(await runEnd(page)).toBe('finished');

    expect(await page.locator('#conversation-heading').textContent()).toBe('hello: a VPC with two zones');
    expect(await page.locator('.thread-item[aria-current="true"] .thread-title').textContent()).toBe('hello: a VPC with two zones');
  });

  it('renames a thread from the list: Enter keeps the new name, Esc drops it', async () => {
    const { page } = suite.browser;
    await page.getByRole('button', { name: 'Rename “hello: a VPC with two zones”' }).click();
    const input = page.getByRole('textbox', { name: 'Thread name' });
    expect(await page.evaluate(() => document.activeElement?.classList.contains('thread-rename'))).toBe(true);
    await input.fill('Staging network');
    await input.press('Enter');

    expect(await page.locator('#conversation-heading').textContent()).toBe('Staging network');
    expect(await listItem(page, 'Staging network').count()).toBe(1);

    await page.getByRole('button', { name: 'Rename “Staging network”' }).click();
    await page.getByRole('textbox', { name: 'Thread name' }).fill('something else');
    await page.getByRole('textbox', { name: 'Thread name' }).press('Escape');
    expect(await page.locator('#conversation-heading').textContent()).toBe('Staging network');
    // Kept across a reload.
    await page.reload();
    await page.locator('#message').waitFor();
    expect(await page.locator('#conversation-heading').textContent()).toBe('Staging network');
  });

  it('removes a thread from the list after asking; the adapter keeps it', async () => {
    const { page } = suite.browser;
    const removedId = await threadIdOf(page);
    await newThread(page);
    await sendMessage(page, 'hello from a second thread');
    expect(await runEnd(page)).toBe('finished');

    await page.getByRole('button', { name: 'Remove “Staging network” from the list' }).click();
    const question = page.getByRole('group', { name: 'Remove this thread?' });
    expect(await question.textContent()).toContain('The adapter keeps the thread; only this browser forgets it.');
    // Keep is the safe choice, and has the focus.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep');
    await question.getByRole('button', { name: 'Remove' }).click();

    expect(await listItem(page, 'Staging network').count()).toBe(0);
    expect(await page.locator('.topbar .status').textContent()).toBe('Removed “Staging network” from this list. The adapter keeps the thread.');
    expect(await page.evaluate((id) => localStorage.getItem('iac-code-console.threads')?.includes(id), removedId)).toBe(false);
    expect(await page.evaluate((id) => sessionStorage.getItem(`iac-code-console.transcript.${id}`), removedId)).toBeNull();
    expect(await suite.stack.store.load(removedId)).toBeDefined();
    // The thread on screen was not the one removed.
    expect(await page.locator('#conversation-heading').textContent()).toBe('hello from a second thread');
  });

  it('opens in another tab a thread that waits for an answer: its form comes back, and the tab says what it cannot show', async () => {
    const { page } = suite.browser;
    await newThread(page);
    await sendMessage(page, 'permission please');
    expect(await runEnd(page)).toBe('interrupt');

    const other = await suite.browser.context.newPage();
    other.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') suite.browser.problems.push(`console.${message.type()} (second tab): ${message.text()}`);
    });
    other.on('pageerror', (error) => suite.browser.problems.push(`pageerror (second tab): ${error.message}`));
    await openConsole(other, suite.stack.url);
    // The list is the browser's: the other tab's threads are there by name.
    await listItem(other, 'permission please').locator('.thread-item').click();

    expect(await other.locator('.transcript > .note').first().textContent()).toContain('This tab has no copy of this thread’s earlier messages');
    expect(await runEnd(other)).toBe('interrupt');
    const card = other.locator('.interrupt-card');
    expect(await card.locator('.interrupt-message').textContent()).toBe('Run a local shell command. Allow once?');
    await suite.browser.screenshot('other-tab');

    await card.getByRole('button', { name: 'Deny' }).click();
    expect(await runEnd(other)).toBe('finished');
    expect(await other.locator('.turn.assistant .message-text').last().textContent()).toBe('Permission denied; the command was skipped. ');

    // A thread with nothing running or waiting says so, without asking the adapter for what it cannot have.
    const subscribes = suite.stack.emulator.callsOf('SubscribeToTask').length;
    await listItem(other, 'hello from a second thread').locator('.thread-item').click();
    expect(await other.locator('.transcript > .note').allTextContents()).toEqual([
      expect.stringContaining('This tab has no copy of this thread’s earlier messages'),
      'Nothing was running or waiting for an answer on this thread when this browser last saw it. Send a message to go on.',
    ]);
    expect(suite.stack.emulator.callsOf('SubscribeToTask').length).toBe(subscribes);
    await other.close();
  });

  it('opens in another tab a thread whose run is going on, and follows it there', async () => {
    const { page } = suite.browser;
    await newThread(page);
    await sendMessage(page, 'long running task');
    await page.locator('.turn.assistant .message-text', { hasText: 'step 2.' }).waitFor();

    const other = await suite.browser.context.newPage();
    other.on('pageerror', (error) => suite.browser.problems.push(`pageerror (second tab): ${error.message}`));
    await openConsole(other, suite.stack.url);
    await listItem(other, 'long running task').locator('.thread-item').click();
    // What the run writes from now on arrives in this tab too, and keeps coming.
    const text = other.locator('.turn.assistant .message-text').last();
    await text.waitFor();
    const first = ((await text.textContent()) ?? '').length;
    await other.waitForFunction((length) => (document.querySelector('.turn.assistant:last-of-type .message-text')?.textContent ?? '').length > length + 20, first);
    expect(await text.textContent()).toMatch(/step \d+\./);
    expect(await other.locator('.run-status').getAttribute('data-state')).toBe('running');
    await other.close();

    await page.keyboard.press('Escape');
    expect(await runEnd(page)).toBe('cancelled');
  });

  it('ran without a console error or a content-security-policy violation', () => {
    expect(suite.browser.problems).toEqual([]);
  });
});

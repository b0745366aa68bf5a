/**
 * A run's status in the web console, in a real Chromium against a real stack: right above the
 * message box it says the run is going on, for how long, what it is doing, and how long the kernel
 * has been quiet when it is (the emulator's `silence` scenario stays quiet for a few seconds); the
 * transcript is marked busy for screen readers meanwhile. Enter during a run says why the message
 * waits and keeps it in the box; the Stop button is one Shift+Tab from the box, Esc stops the run
 * too, and the focus comes back to the box.
 */
import { describe, expect, it } from 'vitest';
import { consoleSuite, runEnd, sendMessage } from './browser-support.js';

const suite = consoleSuite({ store: 'file', console: {}, emulator: { silenceMs: 5_000 } });

describe('a run’s status in the web console', { timeout: 60_000 }, () => {
  it('shows the run going on with its elapsed time and activity, through the kernel’s quiet phase', async () => {
    const { page } = suite.browser;
    const status = page.locator('.run-status');
    expect(await status.isHidden()).toBe(true);
    await sendMessage(page, 'silence please');

    await page.locator('.turn.assistant .message-text', { hasText: 'Thinking quietly' }).waitFor();
    expect(await status.getAttribute('data-state')).toBe('running');
    expect(await status.locator('.run-status-state').textContent()).toBe('Running');
    expect(await page.locator('.transcript').getAttribute('aria-busy')).toBe('true');
    await status.locator('.run-status-activity', { hasText: /^writing the answer · the kernel has been quiet for [3-9] s$/ }).waitFor();
    const elapsed = async () => {
      const [minutes, seconds] = ((await status.locator('.run-status-elapsed').textContent()) ?? '').split(':').map(Number);
      return (minutes ?? 0) * 60 + (seconds ?? 0);
    };
    const before = await elapsed();
    expect(before).toBeGreaterThanOrEqual(3);
    await page.waitForTimeout(1_200);
    expect(await elapsed()).toBeGreaterThan(before);
    await suite.browser.screenshot('run-status-quiet');

    expect(await runEnd(page)).toBe('finished');
    expect(await status.isHidden()).toBe(true);
    expect(await page.locator('.transcript').getAttribute('aria-busy')).toBe('false');
  });

  it('says why a message waits when Enter is pressed during a run, and keeps it in the box', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'silence again');
    await page.locator('.run-status[data-state="running"]').waitFor();

    await sendMessage(page, 'and then a VPC');

    expect(await page.locator('.composer-problem').textContent()).toBe('A run is going on: your message stays here until it ends. Press Esc (or Stop) to stop the run.');
    expect(await page.locator('#message').inputValue()).toBe('and then a VPC');
    expect(await page.locator('.turn.user').count()).toBe(2);
    expect(await runEnd(page)).toBe('finished');
    await page.locator('#message').press('Enter');
    await page.locator('.turn.user .message-text', { hasText: 'and then a VPC' }).waitFor();
    expect(await runEnd(page)).toBe('finished');
  });

  it('puts Stop one Shift+Tab from the message box; Esc stops the run, and the focus comes back to the box', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'long running task');
    await page.locator('.turn.assistant .message-text', { hasText: 'step 2.' }).waitFor();
    await page.waitForFunction(() => !(document.querySelector('.run-status .stop') as HTMLButtonElement).disabled);
    expect(await page.locator('.run-status-activity').textContent()).toBe('writing the answer');

    await page.locator('#message').press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Stop');
    await page.locator('#message').focus();
    await page.keyboard.press('Escape');

    expect(await runEnd(page)).toBe('cancelled');
    expect(await page.locator('.run .run-footer .run-state').last().textContent()).toBe('Cancelled');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('message');
    expect(suite.stack.emulator.callsOf('CancelTask').length).toBe(1);
  });

  it('ran without a console error or a content-security-policy violation', () => {
    expect(suite.browser.problems).toEqual([]);
  });
});

/**
 * The web console's layout in a real Chromium, at 1280×860 and on a 390×844 phone: the page never
 * scrolls — the conversation scrolls in its own region, with the message box pinned below it and
 * the thread list beside it; the region follows new output while the person is at the bottom and
 * stays put once they scroll up, "Jump to latest" bringing them back; the settings open in a drawer
 * beside the conversation (a sheet from below on a phone) and Esc closes them; on a phone the
 * conversation comes first and the threads are a drawer. Every control shows its focus.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { EMULATOR_CONSOLE_EXAMPLES } from '../../lib/emulators/a2a/console-examples.js';
import { consoleSuite, newThread, runEnd, sendMessage } from './browser-support.js';

const suite = consoleSuite({ store: 'file', console: { examples: EMULATOR_CONSOLE_EXAMPLES } });

const WIDE = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

async function box(page: Page, selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await page.locator(selector).boundingBox();
  if (!found) throw new Error(`${selector} is not on screen`);
  return found;
}

/** How far the conversation region is from its bottom, in pixels. */
function fromBottom(page: Page): Promise<number> {
  return page.locator('.conversation-scroll').evaluate((region) => region.scrollHeight - region.scrollTop - region.clientHeight);
}

describe('the web console’s layout', { timeout: 90_000 }, () => {
  it('keeps the message box and the thread list in view while the conversation grows and scrolls on its own', async () => {
    const { page } = suite.browser;
    await page.setViewportSize(WIDE);
    const sidebarBefore = await box(page, 'nav.sidebar');
    for (const text of ['tools please', 'tools again please', 'tools a third time']) {
      await sendMessage(page, text);
      expect(await runEnd(page)).toBe('finished');
    }

    // The page itself does not scroll: the conversation does.
    expect(await page.evaluate(() => document.scrollingElement?.scrollHeight)).toBeLessThanOrEqual(WIDE.height);
    expect(await page.locator('.conversation-scroll').evaluate((region) => region.scrollHeight > region.clientHeight)).toBe(true);
    const composer = await box(page, 'form.composer');
    expect(composer.y + composer.height).toBeLessThanOrEqual(WIDE.height);
    expect(await box(page, 'nav.sidebar')).toEqual(sidebarBefore);
    // It followed the output: the newest message is at the bottom, in view.
    expect(await fromBottom(page)).toBeLessThanOrEqual(2);
    const last = await box(page, '.run:last-of-type .run-footer');
    expect(last.y + last.height).toBeLessThanOrEqual(composer.y);
    await suite.browser.screenshot('layout-wide');
  });

  it('follows a streaming answer at the bottom, stops following once scrolled up, and "Jump to latest" brings it back', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'long running task');
    await page.locator('.turn.assistant .message-text', { hasText: 'step 3.' }).waitFor();
    await page.locator('.turn.assistant .message-text', { hasText: 'step 8.' }).waitFor();
    expect(await fromBottom(page)).toBeLessThanOrEqual(2);
    expect(await page.locator('.jump-latest').isHidden()).toBe(true);

    await page.mouse.move(700, 300);
    await page.mouse.wheel(0, -600);
    await page.waitForFunction(() => {
      const region = document.querySelector('.conversation-scroll') as HTMLElement;
      return region.scrollHeight - region.scrollTop - region.clientHeight > 100;
    });
    const scrolledTo = await page.locator('.conversation-scroll').evaluate((region) => region.scrollTop);
    // More output arrives; where the person scrolled to stays put.
    await page.locator('.turn.assistant .message-text', { hasText: 'step 14.' }).waitFor();
    expect(await page.locator('.conversation-scroll').evaluate((region) => region.scrollTop)).toBe(scrolledTo);
    const jump = page.getByRole('button', { name: 'Jump to latest ↓' });
    expect(await jump.isVisible()).toBe(true);

    await jump.click();
    expect(await fromBottom(page)).toBeLessThanOrEqual(2);
    await page.locator('.turn.assistant .message-text', { hasText: 'step 18.' }).waitFor();
    expect(await fromBottom(page)).toBeLessThanOrEqual(2);
    expect(await jump.isHidden()).toBe(true);

    await page.keyboard.press('Escape');
    expect(await runEnd(page)).toBe('cancelled');
  });

  it('opens the settings in a drawer beside the conversation, not over it; Esc closes it and gives the focus back', async () => {
    const { page } = suite.browser;
    const toggle = page.locator('.settings-toggle');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    const before = await box(page, 'main.conversation');

    await toggle.click();

    const drawer = await box(page, '#thread-settings');
    const conversation = await box(page, 'main.conversation');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(conversation.x + conversation.width).toBeLessThanOrEqual(drawer.x + 1);
    expect(conversation.height).toBe(before.height);
    expect(conversation.width).toBeGreaterThan(600);
    expect(await page.evaluate(() => document.activeElement?.closest('#thread-settings') !== null)).toBe(true);
    await suite.browser.screenshot('settings-wide');

    await page.keyboard.press('Escape');
    expect(await page.locator('#thread-settings').isHidden()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('settings-toggle'))).toBe(true);
  });

  it('shows the focus of "Attach images", and the pipeline’s tree stays inside the conversation', async () => {
    const { page } = suite.browser;
    await page.locator('#message').focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement;
      const style = getComputedStyle(element);
      const rect = element.getBoundingClientRect();
      return { text: element.textContent, outline: style.outlineStyle, width: Number.parseFloat(style.outlineWidth), visible: rect.width > 20 && rect.height > 20 };
    });
    expect(focused).toEqual({ text: 'Attach images', outline: 'solid', width: 3, visible: true });

    await newThread(page, 'pipeline');
    await sendMessage(page, 'pipeline for a VPC');
    expect(await runEnd(page)).toBe('interrupt');
    const region = await box(page, '.conversation-scroll');
    const pipeline = await box(page, 'section.pipeline');
    expect(pipeline.x + pipeline.width).toBeLessThanOrEqual(region.x + region.width);
    expect(await page.locator('.conversation-scroll').evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    await page.locator('.interrupt-card').getByRole('button', { name: 'Deny' }).click();
    expect(await runEnd(page)).toBe('finished');
  });

  it('on a phone, puts the conversation first, the threads in a drawer and the settings in a sheet from below', async () => {
    const { page } = suite.browser;
    await page.setViewportSize(PHONE);
    const conversation = await box(page, 'main.conversation');
    expect(conversation.x).toBe(0);
    expect(conversation.width).toBe(PHONE.width);
    expect(await page.locator('nav.sidebar').isHidden()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    const composer = await box(page, 'form.composer');
    expect(composer.y + composer.height).toBeLessThanOrEqual(PHONE.height);
    await suite.browser.screenshot('layout-phone');

    const threads = page.getByRole('button', { name: 'Threads' });
    await threads.click();
    expect(await threads.getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator('nav.sidebar').isVisible()).toBe(true);
    expect(await page.locator('.thread-item').count()).toBe(2);
    await suite.browser.screenshot('threads-phone');
    await page.keyboard.press('Escape');
    expect(await page.locator('nav.sidebar').isHidden()).toBe(true);

    // A new thread opens on its introduction from the top, not scrolled to its end.
    await threads.click();
    await page.getByRole('button', { name: '+ New thread' }).click();
    expect(await page.locator('.conversation-scroll').evaluate((region) => region.scrollHeight > region.clientHeight && region.scrollTop === 0)).toBe(true);
    const heading = await box(page, '#intro-heading');
    expect(heading.y).toBeGreaterThanOrEqual((await box(page, '.conversation-scroll')).y);
    expect(await page.locator('.jump-latest').isHidden()).toBe(true);

    await page.locator('.settings-toggle').click();
    const sheet = await box(page, '#thread-settings');
    expect(sheet.y + sheet.height).toBeCloseTo(PHONE.height, 0);
    expect(sheet.height).toBeLessThanOrEqual(PHONE.height * 0.7 + 1);
    await page.keyboard.press('Escape');
    await page.setViewportSize(WIDE);
  });

  it('ran without a console error or a content-security-policy violation', () => {
    expect(suite.browser.problems).toEqual([]);
  });
});

/**
 * Interrupts in the web console, in a real Chromium against a real stack: each arrives as a form
 * generated from its responseSchema and the answer goes back as a resume (same thread, new run,
 * same rosInvocationId). A permission is allowed from the keyboard and the run continues; a
 * question is answered by option and by free text (an empty one is refused beside the field);
 * a candidate is chosen from its card; and a stale answer the adapter refuses is shown in the
 * interrupt's panel, which stays usable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';
import { type Browser, launchBrowser, newThread, openConsole, runEnd, sendMessage } from './browser-support.js';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({ store: 'file', console: {} });
  browser = await launchBrowser();
  await openConsole(browser.page, stack.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('interrupts in the web console', { timeout: 60_000 }, () => {
  it('allows a permission from its buttons with the keyboard, and the run continues', async () => {
    const { page } = browser;
    await sendMessage(page, 'permission please');
    expect(await runEnd(page)).toBe('interrupt');

    const card = page.locator('.interrupt-card');
    expect(await card.locator('h3').textContent()).toBe('Permission needed');
    expect(await card.locator('.interrupt-message').textContent()).toBe('Run a local shell command. Allow once?');
    expect(await card.locator('.facts').textContent()).toContain('terraform plan');
    expect(await card.locator('.answer-buttons button').allTextContents()).toEqual(['Allow once', 'Deny']);
    // The composer waits: a new message now would be RESUME_REQUIRED.
    expect(await page.locator('.composer button[type="submit"]').isDisabled()).toBe(true);
    await browser.screenshot('permission');
    // The first answer has the focus: one key press answers.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow once');

    await page.keyboard.press('Enter');

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.run').last().getAttribute('aria-label')).toBe('Run 2 (your answer)');
    expect(await page.locator('.tool-card[data-tool-call-id="toolu-shell-1"] .tool-result pre').last().textContent()).toBe('Plan: 1 to add.');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('The command finished. ');
    expect(await page.locator('section.interrupts').isHidden()).toBe(true);
    const answer = stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ data?: { decision?: string } }> } };
    expect(answer.message.parts[0]?.data?.decision).toBe('allow_once');
  });

  it('answers a question by choosing an option', async () => {
    const { page } = browser;
    await sendMessage(page, 'question please');
    expect(await runEnd(page)).toBe('interrupt');
    const options = page.locator('.interrupt-card .option-card');
    expect(await options.locator('.option-label').allTextContents()).toEqual(['Plan A', 'Plan B']);
    expect(await options.first().locator('.option-detail').allTextContents()).toEqual(['Description: One VPC, two zones']);
    expect(await page.locator('.interrupt-card label').first().textContent()).toBe('Or describe your own plan');
    await browser.screenshot('question');

    await options.filter({ hasText: 'Plan B' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('You chose: Plan B. ');
  });

  it('answers a question by free text, refusing an empty one beside the field', async () => {
    const { page } = browser;
    await sendMessage(page, 'question please');
    expect(await runEnd(page)).toBe('interrupt');
    const form = page.locator('.interrupt-card form.branch-form');
    const input = form.getByLabel('Or describe your own plan');

    await form.getByRole('button', { name: 'Send' }).click();
    expect(await form.locator('.field-error').textContent()).toBe('Or describe your own plan is required.');
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('freeText');
    const runsBefore = await page.locator('.run').count();

    await input.fill('three zones behind one NAT');
    await input.press('Enter');

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.run').count()).toBe(runsBefore + 1);
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('You chose: three zones behind one NAT. ');
  });

  it('chooses a candidate from its card', async () => {
    const { page } = browser;
    await sendMessage(page, 'candidates please');
    expect(await runEnd(page)).toBe('interrupt');
    const cards = page.locator('.interrupt-card .option-card');
    expect(await cards.locator('.option-label').allTextContents()).toEqual(['ECS + SLB', 'Serverless']);
    expect(await cards.first().locator('.option-detail').allTextContents()).toEqual(['Summary: Classic', 'Total monthly cost: 120.5']);
    await browser.screenshot('candidates');

    await cards.filter({ hasText: 'Serverless' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('Generating Serverless. ');
  });

  it('shows a refused answer in the interrupt panel: a stale tab answering an interrupt already answered', async () => {
    const { page } = browser;
    await newThread(page);
    await sendMessage(page, 'permission please');
    expect(await runEnd(page)).toBe('interrupt');
    const threadId = (await page.locator('#conversation-heading').textContent())?.replace('Thread ', '') ?? '';
    // What this tab knows about the pending interrupt, as another tab that saw it would keep it.
    const stale = await page.evaluate((id) => sessionStorage.getItem(`iac-code-console.pending.${id}`), threadId);
    await page.locator('.interrupt-card').getByRole('button', { name: 'Allow once' }).click();
    expect(await runEnd(page)).toBe('finished');

    // The stale copy comes back after a reload; the thread is reopened from the recent list.
    await page.evaluate(([id, record]) => sessionStorage.setItem(`iac-code-console.pending.${id}`, record as string), [threadId, stale]);
    await page.reload();
    await page.locator('#message').waitFor();
    await page.locator('.thread-item', { hasText: threadId }).click();
    expect(await page.locator('.note').first().textContent()).toContain('Thread reopened.');
    await page.locator('.interrupt-card').getByRole('button', { name: 'Allow once' }).click();

    const error = page.locator('section.interrupts .interrupt-error');
    await error.waitFor();
    expect(await error.locator('.error-code').textContent()).toBe('RESUME_ALREADY_APPLIED');
    expect(await error.locator('strong').textContent()).toBe('The interrupt response has already been applied.');
    // Still usable: the answer can be given again, or the request cancelled.
    expect(await page.locator('.interrupt-card').getByRole('button', { name: 'Allow once' }).isEnabled()).toBe(true);
  });

  it('ran without a console error or a content-security-policy violation', () => {
    expect(browser.problems).toEqual([]);
  });
});

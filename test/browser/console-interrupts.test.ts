/**
 * Interrupts in the web console, in a real Chromium against a real stack: each arrives as a form
 * generated from its responseSchema and the answer goes back as a resume (same thread, new run,
 * same rosInvocationId). A permission is allowed from the keyboard and the run continues; a
 * question is answered by option and by free text (an empty one is refused beside the field);
 * a candidate is chosen from its card; a cloud resource is chosen by value and label, described
 * in words, or skipped — the run going on each time; and an answer another client gave first is
 * refused where it was given, after which the page asks the adapter what still waits.
 */
import { describe, expect, it } from 'vitest';
import { runBody } from '../support/fixtures.js';
import { consoleSuite, newThread, runEnd, sendMessage, threadIdOf } from './browser-support.js';

const suite = consoleSuite({ store: 'file', console: {} });

describe('interrupts in the web console', { timeout: 60_000 }, () => {
  it('allows a permission from its buttons with the keyboard, and the run continues', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'permission please');
    expect(await runEnd(page)).toBe('interrupt');

    const card = page.locator('.interrupt-card');
    expect(await card.locator('h3').textContent()).toBe('Permission needed');
    expect(await card.locator('.interrupt-message').textContent()).toBe('Run a local shell command. Allow once?');
    // Its facts in words: no raw metadata names or values, and no summary that only repeats them.
    expect(await card.locator('.facts dt').allTextContents()).toEqual(['Tool', 'Target', 'Purpose', 'Effect']);
    expect(await card.locator('.facts dd').allTextContents()).toEqual([
      'run_shell',
      'terraform plan',
      'Validate the template before deployment.',
      'runs a command on the kernel’s machine',
    ]);
    expect(await card.locator('.answer-buttons button').allTextContents()).toEqual(['Allow once', 'Deny']);
    // The composer waits: a new message now would be RESUME_REQUIRED.
    expect(await page.locator('.composer button[type="submit"]').isDisabled()).toBe(true);
    await suite.browser.screenshot('permission');
    // The safe answer has the focus: a stray Enter denies, never approves.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');

    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow once');
    await page.keyboard.press('Enter');

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.run').last().getAttribute('aria-label')).toBe('Run 2 (your answer)');
    expect(await page.locator('.tool-card[data-tool-call-id="toolu-shell-1"] .tool-result pre').last().textContent()).toBe('Plan: 1 to add.');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('The command finished. ');
    expect(await page.locator('section.interrupts').isHidden()).toBe(true);
    const answer = suite.stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ data?: { decision?: string } }> } };
    expect(answer.message.parts[0]?.data?.decision).toBe('allow_once');
  });

  it('keeps the answer in the transcript as your message; the run that asked says it was answered, and the tool keeps one card', async () => {
    const { page } = suite.browser;
    const runs = page.locator('.run');
    // The permission of the test above: its run, your answer, the run that went on.
    const asked = runs.nth((await runs.count()) - 2);
    expect(await asked.locator('.run-footer .run-state').textContent()).toBe('Answered');
    const answer = page.locator('.turn.user.answer').last();
    expect(await answer.locator('.message-text').textContent()).toBe('Allow once');
    expect(await answer.getAttribute('aria-label')).toBe('Your answer');
    // In the order it happened: after the run that asked, before the run that went on.
    const order = await page.evaluate(() => [...document.querySelectorAll('.run, .turn.user.answer')].slice(-3).map((node) => (node.classList.contains('run') ? 'run' : 'answer')));
    expect(order).toEqual(['run', 'answer', 'run']);
    // The command's card: one, in the run that asked, now with its result.
    const cards = page.locator('.tool-card[data-tool-call-id="toolu-shell-1"]');
    expect(await cards.count()).toBe(1);
    expect(await asked.locator('.tool-card[data-tool-call-id="toolu-shell-1"]').getAttribute('data-state')).toBe('done');
    expect(await page.locator('.run-footer .run-state', { hasText: 'Waiting for your answer' }).count()).toBe(0);
  });

  it('answers a question by choosing an option', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'question please');
    expect(await runEnd(page)).toBe('interrupt');
    const options = page.locator('.interrupt-card .option-card');
    expect(await options.locator('.option-label').allTextContents()).toEqual(['Plan A', 'Plan B']);
    expect(await options.first().locator('.option-detail').allTextContents()).toEqual(['One VPC, two zones']);
    expect(await page.locator('.interrupt-card label').first().textContent()).toBe('Or describe your own plan');
    await suite.browser.screenshot('question');

    // The question is asked once: its options are the cards, not also lines of its text; the free-text prompt is said once.
    expect(await page.locator('.interrupt-card .interrupt-message').textContent()).toBe('Which network plan should I use?');
    expect(await page.locator('.interrupt-card').getByText('Or describe your own plan').count()).toBe(1);
    // The focus is on the question, not on an option a stray Enter would pick.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Question');

    await options.filter({ hasText: 'Plan B' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('You chose: Plan B. ');
    expect(await page.locator('.turn.user.answer .message-text').last().textContent()).toBe('Plan B');
  });

  it('answers a question by free text, refusing an empty one beside the field', async () => {
    const { page } = suite.browser;
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
    const { page } = suite.browser;
    await sendMessage(page, 'candidates please');
    expect(await runEnd(page)).toBe('interrupt');
    const cards = page.locator('.interrupt-card .option-card');
    expect(await cards.locator('.option-label').allTextContents()).toEqual(['ECS + SLB', 'Serverless']);
    expect(await cards.first().locator('.option-detail').allTextContents()).toEqual(['Classic', 'Total monthly cost: 120.5']);
    await suite.browser.screenshot('candidates');

    await cards.filter({ hasText: 'Serverless' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.user.answer .message-text').last().textContent()).toBe('Serverless');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('Generating Serverless. ');
  });

  it('shows a refused answer in the interrupt panel when another client answered first, then asks the adapter what still waits', async () => {
    const { page } = suite.browser;
    await newThread(page);
    await sendMessage(page, 'permission please');
    expect(await runEnd(page)).toBe('interrupt');
    const threadId = await threadIdOf(page);
    const interruptId = (await page.locator('.interrupt-card').getAttribute('data-interrupt-id')) ?? '';
    const { rosInvocationId, cwd } = await page
      .evaluate(
        (id) =>
          (JSON.parse(localStorage.getItem('iac-code-console.threads') ?? '[]') as Array<{ threadId: string; rosInvocationId: string; cwd: string }>).find(
            (thread) => thread.threadId === id,
          ),
        threadId,
      )
      .then((thread) => thread ?? { rosInvocationId: '', cwd: '' });

    // Another client (a second tab, a script) gives the same answer first; this tab still shows the form.
    const first = await suite.stack.run(
      runBody({ threadId, resume: [{ interruptId, status: 'resolved', payload: { decision: 'allow_once' } }], iacCode: { rosInvocationId, cwd } }),
    );
    expect(first.status).toBe(200);
    await page.locator('.interrupt-card').getByRole('button', { name: 'Allow once' }).click();

    // The refusal is shown where the answer was given…
    const runs = page.locator('.run');
    await page.locator('.run-error .error-code', { hasText: 'RESUME_ALREADY_APPLIED' }).waitFor();
    expect(await page.locator('.run', { hasText: 'RESUME_ALREADY_APPLIED' }).locator('strong').textContent()).toBe('The interrupt response has already been applied.');
    // …and the page asks the adapter what still waits: nothing — the execution went on without this tab.
    await page.locator('.run-footer .run-state', { hasText: 'Nothing left to watch' }).waitFor();
    expect(await runs.last().locator('.run-error strong').textContent()).toBe(
      'The request no longer waits: its execution has ended or was cancelled (from another tab or client, perhaps).',
    );
    expect(await page.locator('section.interrupts').isHidden()).toBe(true);
    expect(await page.locator('.composer button[type="submit"]').isEnabled()).toBe(true);
  });

  it('chooses a cloud resource by its id and a display name, from a form that shows the selector; the run goes on', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'resource-selection for the VPC');
    expect(await runEnd(page)).toBe('interrupt');
    const card = page.locator('.interrupt-card');
    expect(await card.locator('h3').textContent()).toBe('Choose a cloud resource');
    expect(await card.locator('.interrupt-message').textContent()).toBe('Choose the VPC to deploy into.');
    // Facts under words, not the metadata's names.
    const terms = await card.locator('.facts dt').allTextContents();
    const values = await card.locator('.facts dd').allTextContents();
    expect(Object.fromEntries(terms.map((term, index) => [term, values[index]]))).toMatchObject({
      'Resource type': 'vpc.vpc',
      'Template property': 'ALIYUN::VPC::VPC::VPCId',
      'Answer with': 'resource id',
      'Region id': 'cn-hangzhou',
    });
    expect(await card.locator('legend').allTextContents()).toEqual(['Enter the resource', 'Or describe it in words']);
    const form = card.locator('form.branch-form').first();

    // A value is required; the mistake is said beside the field.
    await form.getByRole('button', { name: 'Send' }).click();
    expect(await form.locator('.field-error:not([hidden])').textContent()).toBe('Resource id or value is required.');
    await form.getByLabel('Resource id or value').fill('vpc-bp1console');
    await form.getByLabel('Display name (optional)').fill('prod-vpc');
    await suite.browser.screenshot('resource-selection');
    const callsBefore = suite.stack.emulator.callsOf('SendStreamingMessage').length;
    await form.getByRole('button', { name: 'Send' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('Using vpc-bp1console (prod-vpc). ');
    expect(await page.locator('.turn.user.answer .message-text').last().textContent()).toBe('vpc-bp1console — prod-vpc');
    // The answered tool call's result, on its one card: where the call began.
    expect(await page.locator('.tool-card[data-tool-call-id="toolu-select-vpc"]').count()).toBe(1);
    expect(await page.locator('.tool-card[data-tool-call-id="toolu-select-vpc"] .tool-result pre').textContent()).toBe('prod-vpc');
    const sent = suite.stack.emulator.callsOf('SendStreamingMessage')[callsBefore]?.params as { message: { parts: Array<{ text?: string }> } };
    const text = sent.message.parts[0]?.text ?? '';
    expect(text.startsWith('IAC_CODE_RESOURCE_SELECTION:')).toBe(true);
    expect(JSON.parse(text.slice('IAC_CODE_RESOURCE_SELECTION:'.length))).toMatchObject({ status: 'selected', selectorId: 'vpc.vpc', value: 'vpc-bp1console', label: 'prod-vpc' });
  });

  it('describes a derived cloud resource in words, the choice it depends on shown; the run goes on', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'resource-selection-derived for the cache');
    expect(await runEnd(page)).toBe('interrupt');
    const card = page.locator('.interrupt-card');
    expect(await card.locator('.facts').textContent()).toContain('Depends onredis.instance = r-bp1example');
    const words = card.locator('form.branch-form').last();
    await words.getByLabel('Describe the resource').fill('the cache of the staging stack');
    await words.getByLabel('Describe the resource').press('Enter');

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('Using the cache of the staging stack (the cache of the staging stack). ');
  });

  it('skips a cloud resource selection: the run goes on, and nothing is cancelled', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'resource-selection for the VPC');
    expect(await runEnd(page)).toBe('interrupt');
    const card = page.locator('.interrupt-card');
    expect(await card.locator('.interrupt-cancel .hint').textContent()).toBe('The run goes on without a resource from your account.');
    const cancelsBefore = suite.stack.emulator.callsOf('CancelTask').length;

    await card.getByRole('button', { name: 'Skip this selection' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('Selection canceled; I will create a new one. ');
    expect(suite.stack.emulator.callsOf('CancelTask').length).toBe(cancelsBefore);
  });

  it('ran without a page error or a content-security-policy violation', () => {
    // The browser logs the 404 of the adapter saying nothing waits any more: part of the stale-answer test.
    expect(suite.browser.problems.filter((line) => !/status of 404/.test(line))).toEqual([]);
  });
});

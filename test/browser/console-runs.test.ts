/**
 * The web console in a real Chromium against a real stack (adapter + built-in A2A emulator, as
 * `npm start` runs it): it opens on an introduction whose examples fill the box with the run mode
 * they need, a turn streams into the page, tools and reasoning render, a pipeline's
 * tree follows its steps and candidates through a permission (and stays in the transcript as a
 * picture once a new turn begins), a long run is cancelled from its button, images are attached
 * by picker and by drop within the adapter's limits, the layout
 * stacks in a narrow window — all under the page's strict CSP without a console error.
 */
import { describe, expect, it } from 'vitest';
import { EMULATOR_CONSOLE_EXAMPLES } from '../../lib/emulators/a2a/console-examples.js';
import { PNG_1x1 } from '../support/fixtures.js';
import { consoleSuite, newThread, runEnd, sendMessage } from './browser-support.js';

const suite = consoleSuite({ store: 'file', console: { examples: EMULATOR_CONSOLE_EXAMPLES } });

describe('the web console, run by run', { timeout: 60_000 }, () => {
  it('opens with an introduction naming what to type; an example fills the box with the run mode it needs', async () => {
    const { page } = suite.browser;
    const intro = page.locator('section.intro');
    expect(await intro.locator('h2').textContent()).toBe('Start a run');
    expect(await intro.textContent()).toContain('the first word of your message picks what it does');
    // Every example is listed with what it shows; the short row of chips waits until the introduction is gone.
    expect(await intro.locator('.intro-examples li').count()).toBe(EMULATOR_CONSOLE_EXAMPLES.length);
    expect(
      await intro
        .locator('.intro-examples li')
        .filter({ has: page.getByRole('button', { name: 'permission', exact: true }) })
        .textContent(),
    ).toBe('permission a tool asks permission to run a command: allow or deny it');
    expect(await page.locator('.examples').isHidden()).toBe(true);
    await suite.browser.screenshot('introduction');

    await intro.getByRole('button', { name: 'pipeline' }).click();
    expect(await page.locator('#message').inputValue()).toBe('pipeline for a VPC');
    expect(await page.locator('.settings-summary').textContent()).toBe('pipeline · /workspace/console');
    // The example's run mode is set, and said: nothing changes silently.
    expect(await page.locator('.composer-problem').textContent()).toBe(
      'This example runs in pipeline mode: the thread’s run mode is now pipeline (Settings changes it). Press Enter to send it.',
    );
    expect(await page.locator('.topbar .status').textContent()).toBe('Run mode set to pipeline.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('message');

    // An example without a run mode of its own goes back to normal, and says so.
    await intro.getByRole('button', { name: 'hello' }).click();
    expect(await page.locator('.settings-summary').textContent()).toBe('normal · /workspace/console');
    expect(await page.locator('.topbar .status').textContent()).toBe('Run mode set to normal.');
    await page.locator('#message').fill('');
  });

  it('opens on a message box of a new thread, and a turn streams into the page', async () => {
    const { page } = suite.browser;
    // Ready at once: the message box has the focus, no form comes first.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('message');
    await sendMessage(page, 'hello there console');

    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('section.intro').isHidden()).toBe(true);
    expect(await page.locator('.examples').isVisible()).toBe(true);
    const answer = page.locator('.turn.assistant .message-text').last();
    expect(await answer.textContent()).toBe('Hello from the iac-code emulator. You said: hello there console');
    expect(await page.locator('.turn.user .message-text').last().textContent()).toBe('hello there console');
    expect(await page.locator('.usage').last().textContent()).toContain('1540 total');
    // The session ids are there on demand, folded.
    const session = page.locator('.session details').last();
    expect(await session.getAttribute('open')).toBeNull();
    await session.locator('summary').click();
    expect(await session.locator('dd').nth(2).textContent()).toMatch(/^[0-9a-f-]{36}$/);
    await suite.browser.screenshot('turn-streamed');
  });

  it('shows each tool call as a card with its arguments, progress and result, and folds reasoning', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'tools please');
    expect(await runEnd(page)).toBe('finished');

    const read = page.locator('.tool-card[data-tool-call-id="toolu-read-1"]');
    expect(await read.locator('h4').textContent()).toBe('read_file');
    expect(JSON.parse((await read.locator('.tool-args').textContent()) ?? '')).toEqual({ limit: 200, path: 'main.tf' });
    expect(await read.locator('.tool-result pre').textContent()).toBe('resource "alicloud_vpc" "main" {}');
    expect(await read.getAttribute('data-state')).toBe('done');
    expect(await read.locator('header .badge').textContent()).toBe('done');
    // The tool has ended: its progress bar is gone, not left half full.
    expect(await read.locator('.tool-progress').isHidden()).toBe(true);
    expect(await read.locator('.tool-progress progress').count()).toBe(0);
    // A failed tool reads as failed, with its error; the whole result stays there.
    const lint = page.locator('.tool-card[data-tool-call-id="toolu-lint-1"]');
    expect(await lint.getAttribute('data-state')).toBe('failed');
    expect(await lint.locator('header .badge').textContent()).toBe('failed');
    expect(await lint.locator('.tool-error').textContent()).toBe('Failed: lint failed');
    expect(JSON.parse((await lint.locator('.tool-result pre').textContent()) ?? '')).toEqual({ error: 'lint failed', line: 3 });
    await suite.browser.screenshot('tools');

    await sendMessage(page, 'thinking please');
    expect(await runEnd(page)).toBe('finished');
    const reasoning = page.locator('.reasoning').last();
    expect(await reasoning.getAttribute('open')).toBeNull();
    expect(await reasoning.locator('summary').textContent()).toBe('Reasoning');
    expect(await reasoning.locator('.reasoning-text').textContent()).toBe('The user wants a VPC. A /16 CIDR is a safe default.');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('I will create a VPC with a /16 CIDR block.');
  });

  it('shows an artifact as a card', async () => {
    const { page } = suite.browser;
    await sendMessage(page, 'artifact please');
    expect(await runEnd(page)).toBe('finished');
    const artifact = page.locator('.artifact').last();
    expect(await artifact.locator('h4').textContent()).toBe('Artifact: template.yaml');
    expect(await artifact.textContent()).toContain('file:///workspace/template.yaml');
  });

  it('follows a pipeline as a live tree of steps and candidates, through a permission to the end', async () => {
    const { page } = suite.browser;
    // As a new user would: the example sets the run mode, Enter sends it.
    await page.locator('.examples').getByRole('button', { name: 'pipeline' }).click();
    await page.locator('#message').press('Enter');
    expect(await runEnd(page)).toBe('interrupt');

    const tree = page.locator('section.pipeline');
    const candidate = (id: string) => tree.locator(`.candidate[data-candidate="${id}"]`);
    expect(await tree.locator('.pipeline-step[data-step="evaluate_candidates"]').getAttribute('data-state')).toBe('paused');
    expect(await candidate('candidate-0').getAttribute('data-state')).toBe('waiting');
    expect(await candidate('candidate-0').locator('.candidate-text').textContent()).toBe('Generating template A. Template A drafted.');
    expect(await candidate('candidate-1').getAttribute('data-state')).toBe('running');
    expect(await tree.locator('.pipeline-notes').textContent()).toContain('stack progress: vpc-a 50%');
    await suite.browser.screenshot('pipeline-waiting');

    await page.locator('.interrupt-card').getByRole('button', { name: 'Allow once' }).click();
    expect(await runEnd(page)).toBe('finished');

    expect(await tree.locator('h2 .badge').textContent()).toBe('completed');
    expect(await tree.locator('.pipeline-step[data-step="evaluate_candidates"]').getAttribute('data-state')).toBe('completed');
    expect(await candidate('candidate-0').getAttribute('data-state')).toBe('completed');
    expect(await candidate('candidate-1').getAttribute('data-state')).toBe('completed');
    // Work done while the page waited comes back through the adapter's pipeline recovery.
    expect(await candidate('candidate-1').locator('.candidate-text').textContent()).toBe('Generating template B. Candidate B kept working while A waited.');
    expect(await page.locator('.turn.assistant .message-text').last().textContent()).toBe('Pipeline finished (allow_once).');
    // The thread remembers the run mode the example chose.
    expect(await page.locator('.thread-item[aria-current="true"] .thread-meta').textContent()).toMatch(/^pipeline · /);
    await suite.browser.screenshot('pipeline-completed');

    // A new turn starts a new execution: the tree's last picture stays in the transcript where it ended.
    await sendMessage(page, 'hello after the pipeline');
    expect(await runEnd(page)).toBe('finished');
    expect(await tree.isHidden()).toBe(true);
    const picture = page.locator('.transcript .pipeline-snapshot');
    expect(await picture.locator('h2 .badge').textContent()).toBe('completed');
    expect(await picture.locator('[id]').count()).toBe(0);
  });

  it('streams a long run as it comes, and stops it from the Stop button by the message box; it reads Cancelled, not failed', async () => {
    const { page } = suite.browser;
    await newThread(page);
    // Count how often the assistant's text is redrawn while the run streams.
    await page.evaluate(() => {
      const counter = window as unknown as { textUpdates: number };
      counter.textUpdates = 0;
      new MutationObserver((records) => {
        for (const record of records) if ((record.target as Element).closest?.('.message-text') || record.target.parentElement?.closest('.message-text')) counter.textUpdates += 1;
      }).observe(document.querySelector('.transcript') as Node, { childList: true, subtree: true, characterData: true });
    });
    await sendMessage(page, 'long running task');
    await page.locator('.turn.assistant .message-text', { hasText: 'step 3.' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { textUpdates: number }).textUpdates)).toBeGreaterThan(2);
    const stop = page.locator('.run-status').getByRole('button', { name: 'Stop' });
    await page.waitForFunction(() => !(document.querySelector('.run-status .stop') as HTMLButtonElement).disabled);

    await stop.click();

    expect(await runEnd(page)).toBe('cancelled');
    const footer = page.locator('.run .run-footer').last();
    expect(await footer.locator('.run-state').textContent()).toBe('Cancelled');
    // Said in the footer's own colour, not as an alert.
    expect(await footer.locator('[role="alert"]').count()).toBe(0);
    expect(await footer.locator('.run-notice').textContent()).toBe('The execution was cancelled.');
    expect(await page.locator('.topbar .status').textContent()).toBe('Cancelled.');
    expect(await page.locator('.run-status').isHidden()).toBe(true);
    expect(suite.stack.emulator.callsOf('CancelTask').length).toBeGreaterThan(0);
    await suite.browser.screenshot('cancelled');
  });

  it('attaches images by picker and by drop, refuses what the adapter would refuse, and sends them as image parts', async () => {
    const { page } = suite.browser;
    const png = Buffer.from(PNG_1x1, 'base64');
    await page.locator('#attach').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
    await page.locator('.attachments li', { hasText: 'dot.png' }).waitFor();

    // Too large (over 8 MiB) and the wrong type: refused before sending, with the reason.
    const big = Buffer.concat([png, Buffer.alloc(8 * 1024 * 1024)]);
    await page.locator('#attach').setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: big });
    await page.locator('.composer-problem', { hasText: 'huge.png is 8.0 MiB; an image may be at most 8.0 MiB.' }).waitFor();
    await page.locator('#attach').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hi') });
    await page.locator('.composer-problem', { hasText: 'notes.txt: only PNG, JPEG, GIF and WebP images can be attached.' }).waitFor();

    // Dropped onto the message box.
    const dropped = await page.evaluateHandle((base64) => {
      const transfer = new DataTransfer();
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
      return transfer;
    }, PNG_1x1);
    await page.dispatchEvent('form.composer', 'drop', { dataTransfer: dropped });
    await page.locator('.attachments li', { hasText: 'dropped.png' }).waitFor();
    expect(await page.locator('.attachments li').count()).toBe(2);

    const callsBefore = suite.stack.emulator.callsOf('SendStreamingMessage').length;
    await sendMessage(page, 'hello with two images');
    expect(await runEnd(page)).toBe('finished');

    expect(await page.locator('.turn.user').last().locator('img.thumb').count()).toBe(2);
    expect(await page.locator('.attachments li').count()).toBe(0);
    const sent = suite.stack.emulator.callsOf('SendStreamingMessage')[callsBefore]?.params as { message: { parts: Array<Record<string, unknown>> } };
    const images = sent.message.parts.filter((part) => part['mediaType'] === 'image/png');
    expect(images.map((part) => (part['data'] as { filename: string }).filename)).toEqual(['dot.png', 'dropped.png']);
  });

  it('ran without a console error or a content-security-policy violation', () => {
    expect(suite.browser.problems).toEqual([]);
  });
});

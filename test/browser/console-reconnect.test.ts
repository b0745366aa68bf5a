/**
 * Reconnecting in the web console, in a real Chromium against a real stack (docs/protocol.md
 * §6.14): the page reattaches through the subscribe route when a run's stream is lost.
 *
 * Behind a proxy that hides the browser's disconnects from the adapter (hiding-proxy.ts), a run
 * outlives its connection: a dropped stream is reattached by itself — "reconnecting…", with a
 * backoff while the network is down — and a reload shows the thread again and continues the run,
 * each to the end and without a line shown twice (the `watched` scenario waits for an observer, so
 * the run is caught mid-way every time), and a reattached run is cancelled from its button. Directly, a reload while a permission waits brings its
 * form back and the answer completes the run; a reload during a run with nothing owed finds it
 * cancelled by the adapter's disconnect rule (§6.8) and says so; and interrupts answered by
 * another execution meanwhile are reported as such.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBody } from '../support/fixtures.js';
import { storedWhen } from '../support/observe.js';
import { type Stack, startStack } from '../support/stack.js';
import { type Browser, launchBrowser, newThread, openConsole, runEnd, sendMessage, threadIdOf } from './browser-support.js';
import { type HidingProxy, startHidingProxy } from './hiding-proxy.js';

let stack: Stack;
let proxy: HidingProxy;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({ store: 'file', console: {} });
  // The observer may take a few backoff steps to attach; `watched` waits for it meanwhile.
  stack.emulator.controls.watch.timeoutMs = 30_000;
  proxy = await startHidingProxy(stack.url);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await stack?.close();
});

interface LiveRecord {
  threadId: string;
  runId: string;
  rosInvocationId: string;
  executionId: string;
}

/** The live run's record once the session event named its execution (what a reattach needs). */
async function liveRecord(page: Page): Promise<LiveRecord> {
  const handle = await page.waitForFunction(() => {
    const record = JSON.parse(sessionStorage.getItem('iac-code-console.live-run') ?? 'null') as { executionId?: string } | null;
    return record?.executionId ? record : null;
  });
  return (await handle.jsonValue()) as LiveRecord;
}

/** All assistant text of the newest run, as one string. */
async function lastRunText(page: Page): Promise<string> {
  return (await page.locator('.run').last().locator('.turn.assistant .message-text').allTextContents()).join('');
}

/** Reloads the console and waits until it is ready for a message again. */
async function reloadConsole(page: Page): Promise<void> {
  await page.reload();
  await page.locator('#message').waitFor();
}

/** The footer of the last run the page shows. */
function lastRunFooter(page: Page): Locator {
  return page.locator('.run').last().locator('.run-footer');
}

describe('reconnecting in the web console', { timeout: 90_000 }, () => {
  it('reattaches a dropped stream by itself, backing off while the network is down; the run finishes, nothing shown twice', async () => {
    const { page } = browser;
    await openConsole(page, proxy.url);
    await sendMessage(page, 'watched');
    await page.locator('.turn.assistant .message-text', { hasText: 'Watched work begins.' }).waitFor();
    await liveRecord(page);
    const subscribesBefore = stack.emulator.callsOf('SubscribeToTask').length;

    // The network goes down and the stream with it; the adapter never hears of it.
    await browser.context.setOffline(true);
    expect(proxy.cutStreams()).toBe(1);

    const footer = lastRunFooter(page);
    await footer.locator('.run-state', { hasText: 'Reconnecting… (attempt 2 of 8)' }).waitFor();
    expect(await footer.getAttribute('data-state')).toBe('reconnecting');
    expect(await page.locator('.topbar .status').textContent()).toBe('The connection to the run was lost — reconnecting…');
    // Sending waits for the run: a new message now would only meet a busy thread.
    expect(await page.locator('.composer button[type="submit"]').isDisabled()).toBe(true);
    await browser.screenshot('reconnecting');

    await browser.context.setOffline(false);

    expect(await runEnd(page)).toBe('finished');
    expect(await lastRunText(page)).toBe('Watched work begins. Observers see this part. ');
    expect(await page.locator('.topbar .status').textContent()).toBe('Reattached: the run goes on.');
    expect(await page.locator('.run').last().locator('.note').textContent()).toBe('The connection dropped; reattached to the run.');
    expect(stack.emulator.callsOf('SubscribeToTask').length).toBeGreaterThan(subscribesBefore);
    expect(stack.emulator.callsOf('CancelTask')).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.live-run'))).toBeNull();
  });

  it('a reload during a live run shows the thread again and continues the run to its end', async () => {
    const { page } = browser;
    await sendMessage(page, 'watched again');
    await page.locator('.run').last().locator('.turn.assistant .message-text', { hasText: 'Watched work begins.' }).waitFor();
    const record = await liveRecord(page);

    await reloadConsole(page);

    // The same thread, with what the page showed before the reload.
    expect(await threadIdOf(page)).toBe(record.threadId);
    expect(await page.locator('.turn.user .message-text').allTextContents()).toEqual(['watched', 'watched again']);
    expect(await runEnd(page)).toBe('finished');
    const run = page.locator('.run').last();
    expect(await run.locator('.note').textContent()).toBe('The page was reloaded; reattached to the run.');
    expect(await lastRunText(page)).toBe('Watched work begins. Observers see this part. ');
    expect(await page.locator('.run').count()).toBe(2);
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.live-run'))).toBeNull();
    expect(stack.emulator.callsOf('CancelTask')).toEqual([]);
    await browser.screenshot('reloaded-and-reattached');
  });

  it('cancels a reattached run from its button: the execution is cancelled, the page says so', async () => {
    const { page } = browser;
    await sendMessage(page, 'long running task');
    await page.locator('.run').last().locator('.turn.assistant .message-text', { hasText: 'step 2.' }).waitFor();
    await liveRecord(page);
    expect(proxy.cutStreams()).toBe(1);
    await page.locator('.run').last().locator('.run-footer .run-state', { hasText: 'Running… (reattached)' }).waitFor();
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;

    await page.locator('.run-status').getByRole('button', { name: 'Stop' }).click();

    expect(await runEnd(page)).toBe('cancelled');
    expect(await page.locator('.run').last().locator('.run-footer .run-state').textContent()).toBe('Cancelled');
    expect(await page.locator('.topbar .status').textContent()).toBe('Cancelled.');
    expect(stack.emulator.callsOf('CancelTask').length).toBeGreaterThan(cancelsBefore);
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.live-run'))).toBeNull();
  });

  it('a reload while a permission waits brings its form back, and answering it completes the run', async () => {
    const { page } = browser;
    await openConsole(page, stack.url);
    await sendMessage(page, 'permission please');
    expect(await runEnd(page)).toBe('interrupt');
    const interruptId = await page.locator('.interrupt-card').getAttribute('data-interrupt-id');

    await reloadConsole(page);

    // Checked against the adapter through subscribe: the execution still waits on this interrupt.
    expect(await runEnd(page)).toBe('interrupt');
    expect(await page.locator('.run').last().locator('.note').textContent()).toBe('Reattached to check what still waits for your answer.');
    // One footer says the run waits for an answer: the check says it checked.
    expect(await page.locator('.run-footer .run-state', { hasText: /^Waiting for your answer$/ }).count()).toBe(1);
    expect(await lastRunFooter(page).locator('.run-state').textContent()).toBe('Checked: the request still waits for your answer');
    const card = page.locator('.interrupt-card');
    expect(await card.getAttribute('data-interrupt-id')).toBe(interruptId);
    expect(await card.locator('.answer-buttons button').allTextContents()).toEqual(['Allow once', 'Deny']);
    await browser.screenshot('reloaded-permission');

    await card.getByRole('button', { name: 'Allow once' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await lastRunText(page)).toBe('The command finished. ');
    expect(await page.locator('section.interrupts').isHidden()).toBe(true);
  });

  it('a reload during a run with no answer owed: the adapter cancelled it on disconnect, and the page says so plainly', async () => {
    const { page } = browser;
    await sendMessage(page, 'watched');
    await page.locator('.run').last().locator('.turn.assistant .message-text', { hasText: 'Watched work begins.' }).waitFor();
    const record = await liveRecord(page);
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    // The reloaded page subscribes once the adapter has applied its disconnect rule, not during it.
    await page.route('**/subscribe', async (route) => {
      await storedWhen(stack.store, record.threadId, (document) => (document['activeRun'] ?? null) === null);
      await route.continue();
    });

    await reloadConsole(page);

    expect(await runEnd(page)).toBe('error');
    const footer = lastRunFooter(page);
    expect(await footer.locator('.run-state').textContent()).toBe('Nothing left to watch');
    expect(await footer.locator('.error-code').textContent()).toBe('EXECUTION_NOT_FOUND');
    expect(await footer.locator('strong').textContent()).toContain('it was cancelled when its connection closed');
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.live-run'))).toBeNull();
    // The thread is free again: the message box is back.
    expect(await page.locator('.composer button[type="submit"]').isEnabled()).toBe(true);
    expect(stack.emulator.callsOf('CancelTask').length).toBe(cancelsBefore + 1);
    await browser.screenshot('nothing-left-to-watch');
    await page.unroute('**/subscribe');
  });

  it('interrupts this tab shows but another execution replaced meanwhile: the page says another execution started', async () => {
    const { page } = browser;
    await newThread(page);
    await sendMessage(page, 'permission please');
    expect(await runEnd(page)).toBe('interrupt');
    const threadId = await threadIdOf(page);
    const pending = await page.evaluate((id) => JSON.parse(sessionStorage.getItem(`iac-code-console.pending.${id}`) ?? '{}'), threadId);
    const rosInvocationId = (
      await page.evaluate((id) => JSON.parse(localStorage.getItem('iac-code-console.threads') ?? '[]').find((t: { threadId: string }) => t.threadId === id), threadId)
    ).rosInvocationId as string;

    // Another client cancels that execution and starts one of its own, which waits in turn.
    const cancelled = await stack.post(`/extensions/iac-code/v1/executions/${pending.executionId}/cancel`, { threadId, rosInvocationId });
    expect(cancelled.status).toBe(200);
    const other = await stack.run(runBody({ threadId, text: 'permission from elsewhere', iacCode: { rosInvocationId: 'another-invocation', cwd: '/workspace/console' } }));
    expect(other.status).toBe(200);

    await reloadConsole(page);

    expect(await runEnd(page)).toBe('error');
    const footer = lastRunFooter(page);
    expect(await footer.locator('.run-state').textContent()).toBe('Replaced by another execution');
    expect(await footer.locator('.error-code').textContent()).toBe('OBSERVATION_IDENTITY_CHANGED');
    expect(await page.locator('section.interrupts').isHidden()).toBe(true);
    expect(await page.locator('.topbar .status').textContent()).toBe('Another execution has started on this thread.');
  });

  it('ran without a page error or a content-security-policy violation', () => {
    // The browser logs the cut stream, the offline attempts and the 404/409 answers: they are this file's subject.
    const expected = /net::ERR_CONNECTION_RESET|net::ERR_INTERNET_DISCONNECTED|status of 40[49]/;
    expect(browser.problems.filter((line) => !expected.test(line))).toEqual([]);
  });
});

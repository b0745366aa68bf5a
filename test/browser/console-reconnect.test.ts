/**
 * Reconnecting in the web console, in a real Chromium against a real stack (docs/protocol.md
 * §6.14, §6.15): the page reattaches through the subscribe route, with `Last-Event-ID`, when a
 * run's stream is lost.
 *
 * With a detach grace, as `npm start` runs it: a dropped stream (behind a proxy that hides the
 * browser's disconnect, while the network is down) is reattached by itself — "reconnecting…", with
 * a backoff — and a reload mid-run shows the thread again and continues the run; each time the run
 * ends with exactly the kernel's text (the `steps slowly` scenario streams 60 numbered deltas over
 * six seconds, so a gap or a repeat shows), a line marks when the page was away, and the subscribe
 * request carried the id of the last event shown. A reattached run is cancelled from its button;
 * a reload while a permission waits brings its form back and the answer completes the run;
 * interrupts answered by another execution meanwhile are reported as such. Without a grace (the
 * seed's rule, §6.8): a reload during a run with nothing owed finds it cancelled, and says so.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runBody } from '../support/fixtures.js';
import { storedWhen } from '../support/observe.js';
import { type Stack, startStack } from '../support/stack.js';
import { type Browser, launchBrowser, newThread, openConsole, runEnd, sendMessage, threadIdOf } from './browser-support.js';
import { type HidingProxy, startHidingProxy } from './hiding-proxy.js';

let stack: Stack;
/** Without a detach grace: a caller that leaves cancels a run that owes no answer (§6.8). */
let graceless: Stack;
let proxy: HidingProxy;
let browser: Browser;
/** The `Last-Event-ID` of every subscribe request the page made, in order (null: none). */
const subscribeIds: Array<string | null> = [];

/** What the emulator's `steps` scenario says, all of it: the text the page must end with. */
const STEPS_TEXT = Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join('');

beforeAll(async () => {
  stack = await startStack({ store: 'file', console: {}, config: { detachGraceMs: 60_000 } });
  graceless = await startStack({ store: 'file', console: {} });
  // `watched` holds its run mid-way until an observer attaches (or this long).
  graceless.emulator.controls.watch.timeoutMs = 30_000;
  proxy = await startHidingProxy(stack.url);
  browser = await launchBrowser();
  browser.page.on('request', (request) => {
    if (request.url().endsWith('/subscribe')) subscribeIds.push(request.headers()['last-event-id'] ?? null);
  });
}, 60_000);

afterEach(async () => {
  await browser?.context.setOffline(false);
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await stack?.close();
  await graceless?.close();
});

/** The id of the last event the page showed of its newest run, as it keeps it for a reload. */
async function lastShownId(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const threadId = sessionStorage.getItem('iac-code-console.current-thread');
    const log = JSON.parse(sessionStorage.getItem(`iac-code-console.transcript.${threadId}`) ?? '[]') as Array<{ kind: string; lastEventId?: string }>;
    return log.filter((entry) => entry.kind === 'run').at(-1)?.lastEventId;
  });
}

/** An adapter event id: `<tag>.<epoch>.<seq>.<k>` (docs/protocol.md §4.12). */
const EVENT_ID = /^[0-9a-f]{10}\.\d+\.\d+\.\d+$/;

/** The line that marks where the run's stream was lost and picked up again. */
const AWAY = (what: string) =>
  new RegExp(`^Away \\d\\d:\\d\\d:\\d\\d–\\d\\d:\\d\\d:\\d\\d \\(\\d+ s\\): ${what}; reattached to the run and continued after the last event shown, nothing missed\\.$`);

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
  it('reattaches a dropped stream by itself with Last-Event-ID, backing off while the network is down; the run ends with exactly the kernel’s text', async () => {
    const { page } = browser;
    await openConsole(page, proxy.url);
    await sendMessage(page, 'steps slowly');
    await page.locator('.turn.assistant .message-text', { hasText: 'step 5.' }).waitFor();
    await liveRecord(page);

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

    const subscribesBefore = subscribeIds.length;
    await browser.context.setOffline(false);

    expect(await runEnd(page)).toBe('finished');
    expect(await lastRunText(page)).toBe(STEPS_TEXT);
    // What the status line said while reattached no longer holds: the footer says how the run ended.
    expect(await page.locator('.topbar .status').textContent()).toBe('');
    const away = page.locator('.run').last().locator('.note.away');
    expect(await away.count()).toBe(1);
    expect(await away.textContent()).toMatch(AWAY('the connection dropped'));
    // The subscribe that got through continued after an event the page had shown.
    const ids = subscribeIds.slice(subscribesBefore);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(EVENT_ID);
    // What the page keeps for a reload is the run's last event's id.
    expect(await lastShownId(page)).toMatch(EVENT_ID);
    expect(await lastShownId(page)).not.toBe(ids[0]);
    expect(stack.emulator.callsOf('CancelTask')).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.live-run'))).toBeNull();
    await browser.screenshot('reattached-after-a-drop');
  });

  it('a reload mid-run shows the thread again and continues the run after its last event shown: exactly the kernel’s text, the time away marked', async () => {
    const { page } = browser;
    await openConsole(page, stack.url);
    await sendMessage(page, 'steps slowly');
    await page.locator('.run').last().locator('.turn.assistant .message-text', { hasText: 'step 8.' }).waitFor();
    const record = await liveRecord(page);
    const cancelsBefore = stack.emulator.callsOf('CancelTask').length;
    const subscribesBefore = subscribeIds.length;

    // A real reload, straight to the adapter: it sees its caller leave, and the grace keeps the run.
    await reloadConsole(page);

    // The same thread, with what the page showed before the reload.
    expect(await threadIdOf(page)).toBe(record.threadId);
    expect(await page.locator('.turn.user .message-text').last().textContent()).toBe('steps slowly');
    expect(await runEnd(page)).toBe('finished');
    expect(await lastRunText(page)).toBe(STEPS_TEXT);
    const run = page.locator('.run').last();
    expect(await run.locator('.note.away').textContent()).toMatch(AWAY('the page was reloaded'));
    // One subscribe, with the id the page had kept with what it showed.
    const ids = subscribeIds.slice(subscribesBefore);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(EVENT_ID);
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.live-run'))).toBeNull();
    expect(stack.emulator.callsOf('CancelTask').length).toBe(cancelsBefore);
    await browser.screenshot('reloaded-and-reattached');
  });

  it('cancels a reattached run from its button: the execution is cancelled, the page says so', async () => {
    const { page } = browser;
    await openConsole(page, proxy.url);
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
    // The check got the run that asked from its start; the page shows it once.
    expect(await page.locator('.turn.assistant .message-text', { hasText: 'I need to run a command.' }).count()).toBe(1);
    const card = page.locator('.interrupt-card');
    expect(await card.getAttribute('data-interrupt-id')).toBe(interruptId);
    expect(await card.locator('.answer-buttons button').allTextContents()).toEqual(['Allow once', 'Deny']);
    await browser.screenshot('reloaded-permission');

    await card.getByRole('button', { name: 'Allow once' }).click();

    expect(await runEnd(page)).toBe('finished');
    expect(await lastRunText(page)).toBe('The command finished. ');
    expect(await page.locator('section.interrupts').isHidden()).toBe(true);
  });

  it('without a detach grace, a reload during a run with no answer owed: the adapter cancelled it on disconnect, and the reloaded page shows that end', async () => {
    const { page } = browser;
    await openConsole(page, graceless.url);
    await sendMessage(page, 'watched');
    await page.locator('.run').last().locator('.turn.assistant .message-text', { hasText: 'Watched work begins.' }).waitFor();
    const record = await liveRecord(page);
    const cancelsBefore = graceless.emulator.callsOf('CancelTask').length;
    // The reloaded page subscribes once the adapter has applied its disconnect rule, not during it.
    await page.route('**/subscribe', async (route) => {
      await storedWhen(graceless.store, record.threadId, (document) => (document['activeRun'] ?? null) === null);
      await route.continue();
    });

    await reloadConsole(page);

    expect(await runEnd(page)).toBe('cancelled');
    const footer = lastRunFooter(page);
    // The rest of the run, after the last event the page had shown: its end, as the adapter journaled it.
    expect(await footer.locator('.run-state').textContent()).toBe('Cancelled');
    expect(await lastRunText(page)).toBe('Watched work begins. ');
    expect(await page.locator('.topbar .status').textContent()).toContain('cancelled while this page was away');
    expect(await page.locator('.run').last().locator('.note.away').textContent()).toMatch(AWAY('the page was reloaded'));
    expect(await page.evaluate(() => sessionStorage.getItem('iac-code-console.live-run'))).toBeNull();
    // The thread is free again: the message box is back.
    expect(await page.locator('.composer button[type="submit"]').isEnabled()).toBe(true);
    expect(graceless.emulator.callsOf('CancelTask').length).toBe(cancelsBefore + 1);
    await browser.screenshot('cancelled-while-away');
    await page.unroute('**/subscribe');
  });

  it('interrupts this tab shows but another execution replaced meanwhile: the page says another execution started', async () => {
    const { page } = browser;
    await openConsole(page, stack.url);
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

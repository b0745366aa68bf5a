/**
 * A message sent on a thread another run holds (docs/protocol.md §2.2 THREAD_BUSY), in a real
 * Chromium against a real stack with a detach grace, as `npm start` runs it: the run's footer says
 * which run holds the thread and how (live, or detached and kept until when), and the page offers
 * to open that run here — followed through subscribe to its end — or to stop it through the cancel
 * route, after which the message goes through.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASK_GRACE, runBody } from '../support/fixtures.js';
import { readUntil, waitFor } from '../support/read-until.js';
import { type Stack, startStack } from '../support/stack.js';
import { type Browser, launchBrowser, newThread, openConsole, runEnd, sendMessage, threadIdOf } from './browser-support.js';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({ store: 'file', console: {}, config: { detachGraceMs: 60_000 } });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const STEPS_TEXT = Array.from({ length: 60 }, (_, index) => `step ${index + 1}. `).join('');

/** A new thread, bound by a first turn; its id and the settings another client needs to run on it. */
async function boundThread(page: Page): Promise<{ threadId: string; rosInvocationId: string }> {
  await openConsole(page, stack.url);
  await newThread(page);
  await sendMessage(page, 'hello');
  expect(await runEnd(page)).toBe('finished');
  const threadId = await threadIdOf(page);
  const settings = await page.evaluate((id) => JSON.parse(localStorage.getItem('iac-code-console.threads') ?? '[]').find((t: { threadId: string }) => t.threadId === id), threadId);
  return { threadId, rosInvocationId: settings.rosInvocationId as string };
}

/** Another client's run on the thread, with the console's workspace and invocation. */
function otherClientRun(thread: { threadId: string; rosInvocationId: string }, runId: string, text: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${stack.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...ASK_GRACE },
    body: JSON.stringify(runBody({ threadId: thread.threadId, runId, text, iacCode: { rosInvocationId: thread.rosInvocationId, cwd: '/workspace/console' } })),
    ...(signal ? { signal } : {}),
  });
}

async function activeRunOf(threadId: string): Promise<{ detachedUntil?: number } | null | undefined> {
  return ((await stack.store.load(threadId))?.document as { activeRun?: { detachedUntil?: number } | null } | undefined)?.activeRun;
}

describe('a thread another run holds', { timeout: 90_000 }, () => {
  it('a detached run: the footer names it and until when it is kept, and “Open that run” follows it here to its end', async () => {
    const { page } = browser;
    const thread = await boundThread(page);
    // Another client starts a run and leaves: the run goes on, detached, for the grace.
    const leaving = new AbortController();
    const other = await readUntil(await otherClientRun(thread, 'other-client-run-1', 'steps slowly', leaving.signal), 'step 3. ');
    leaving.abort();
    await other.cancel();
    await waitFor(async () => (await activeRunOf(thread.threadId))?.detachedUntil !== undefined, { what: 'the run detached', seen: () => 'activeRun without detachedUntil' });

    await sendMessage(page, 'hello while it is held');

    expect(await runEnd(page)).toBe('error');
    const footer = page.locator('.run').last().locator('.run-footer');
    expect(await footer.locator('.error-code').textContent()).toBe('THREAD_BUSY');
    const holder = footer.locator('.thread-holder');
    expect(await holder.getAttribute('data-state')).toBe('detached');
    expect(await holder.textContent()).toMatch(
      /^Held by run other-client-run-1 \(execution [^)]+\): its client left; the adapter keeps it until \d\d:\d\d:\d\d for a reader to come back, then cancels it\.$/,
    );
    const offer = page.locator('.offer');
    expect(await offer.getByRole('button').allTextContents()).toEqual(['Open that run', 'Stop that run']);
    await browser.screenshot('thread-busy-detached');

    await offer.getByRole('button', { name: 'Open that run' }).click();

    // Followed from its start through subscribe: the whole run, to its end.
    expect(await runEnd(page)).toBe('finished');
    expect(await page.locator('.run').last().locator('.turn.assistant .message-text').textContent()).toBe(STEPS_TEXT);
    expect(await page.locator('.offer').count()).toBe(0);
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(0);
  });

  it('a live run: the footer says it streams elsewhere, and “Stop that run” cancels it; then the message goes through', async () => {
    const { page } = browser;
    const thread = await boundThread(page);
    const other = await readUntil(await otherClientRun(thread, 'other-client-run-2', 'long'), 'TEXT_MESSAGE_CONTENT');
    const taskId = /"taskId":"([^"]+)"/.exec(other.text)?.[1];

    await sendMessage(page, 'hello while it is held');

    expect(await runEnd(page)).toBe('error');
    const holder = page.locator('.run').last().locator('.run-footer .thread-holder');
    expect(await holder.getAttribute('data-state')).toBe('live');
    expect(await holder.textContent()).toMatch(/^Held by run other-client-run-2 \(execution [^)]+\): it is streaming to another client\.$/);

    await page.locator('.offer').getByRole('button', { name: 'Stop that run' }).click();

    await page.locator('.note', { hasText: 'Stopped the run that held this thread. Send your message again.' }).waitFor();
    expect(await page.locator('.offer').count()).toBe(0);
    // The other client's stream ends as a cancel ends it, and the kernel was told.
    expect(await other.rest()).toMatch(/"type":"RUN_ERROR"[^\n]*"code":"CANCELLED"/);
    expect(stack.emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);

    await sendMessage(page, 'hello once it is free');
    expect(await runEnd(page)).toBe('finished');
  });

  it('ran without a page error or a content-security-policy violation', () => {
    // The two THREAD_BUSY answers are this file's subject.
    expect(browser.problems.filter((line) => !/status of 409/.test(line))).toEqual([]);
  });
});

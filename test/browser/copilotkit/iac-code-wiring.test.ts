/**
 * CopilotKit wired with the client module (issue 28): the same test app (app/main.tsx) in a real
 * Chromium, its runtime's agent `IacCodeAgent` and its runner `IacCodeAgentRunner` (wirings.ts
 * `iac-code`), which holds nothing in process: every run, connect, isRunning and stop goes to the
 * adapter's routes. So besides a turn, an interrupt and Stop, a runtime killed mid-run and started
 * again, and a second runtime instance, both serve the thread with its whole conversation — what
 * the plain wiring loses (plain-wiring.test.ts). Every test ends with the browser console, the
 * runtime's output and the adapter's warn and error lines empty, but for the lines it names.
 */
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerShows, assistantMessages, chatIdle, chatInput, copilotKitSuite, openApp, sendMessage, threadRun } from './copilotkit-support.js';

const suite = copilotKitSuite({ wiring: 'iac-code' });

const users = (page: Page) => page.getByTestId('copilot-user-message');

// A page on a new thread connects before its first message: the runner's thread reads are 404 for a
// thread never used (docs/protocol.md §6.16), which the adapter logs as a refusal; the runner takes it as idle.
beforeEach(() => {
  suite.allow(/^adapter .*"message":"thread (messages|subscribe) rejected",.*"code":"NOT_FOUND"/);
});

afterEach(() => {
  expect(suite.newProblems()).toEqual([]);
});

/** What the page logs when its runtime process dies under a streaming run (CopilotKit's own errors for the broken request). */
const AT_KILL = [
  /^browser http \(console\) .*\/api\/copilotkit\/agent\/default\/run$/,
  /^browser console\.error: Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING$/,
  /^browser console\.error: \[CopilotKit\] Error \(agent_run_failed_event\): TypeError: network error/,
  /^browser console\.error: Agent execution failed: TypeError: network error$/,
  /^browser console\.error: \[CopilotKit\] Error \(agent_run_failed\): TypeError: network error/,
  /^browser pageerror: network error$/,
];

/** The highest "step N." the newest assistant message shows (0: none). */
async function lastStep(page: Page): Promise<number> {
  const text = (await assistantMessages(page).last().textContent()) ?? '';
  return Math.max(0, ...[...text.matchAll(/step (\d+)\./g)].map((match) => Number(match[1])));
}

describe('CopilotKit, wired with the client module (IacCodeAgent + IacCodeAgentRunner)', { timeout: 60_000 }, () => {
  it('a plain turn shows the answer', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'hello from CopilotKit');
    await answerShows(suite, page, 'Hello from the iac-code emulator. You said: hello from CopilotKit');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-iac-code-turn');
    expect(await users(page).last().textContent()).toContain('hello from CopilotKit');
    expect(suite.adapterSaw(threadId)).toEqual(['run admitted resume=false', 'run ended event="RUN_FINISHED" outcome="success"']);
  });

  it("shows each tool as a card, the failed one saying failed (IacCodeToolCard reads the adapter's tool result)", async () => {
    const { page } = suite.browser;
    await openApp(page, suite.runtime.url);
    await sendMessage(page, 'tools please');
    await answerShows(suite, page, 'The template has one VPC.');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-iac-code-tools');
    const read = page.locator('.tool-card[data-tool-name="read_file"]');
    const lint = page.locator('.tool-card[data-tool-name="lint_template"]');
    expect(await read.count()).toBe(1);
    expect(await lint.count()).toBe(1);
    expect(await read.locator('.tool-result').textContent()).toBe('resource "alicloud_vpc" "main" {}');
    expect(await read.locator('.tool-status').textContent()).toBe('Done');
    // CopilotKit says "complete" for both; the card says what iac-code knows.
    expect(await lint.getAttribute('data-status')).toBe('complete');
    expect(await lint.getAttribute('data-iac-status')).toBe('failed');
    expect(await lint.locator('.tool-status').textContent()).toBe('Failed');
    expect(await lint.locator('.tool-error').textContent()).toBe('lint failed');
    console.log(`tools: ${(await page.locator('.tool-card').allTextContents()).map((text) => JSON.stringify(text)).join(', ')}`);
  });

  it('shows a permission through useInterrupt, and "Allow once" resumes the run to its end in the chat', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'permission please');
    const card = page.locator('.interrupt-card');
    await card.waitFor();
    await chatIdle(page);
    expect(await card.getAttribute('data-reason')).toBe('tool_call');
    expect(await card.locator('.interrupt-message').textContent()).toBe('Run a local shell command. Allow once?');
    expect(await card.locator('.interrupt-options button').allTextContents()).toEqual(['Allow once', 'Deny', 'Cancel']);
    expect(await threadRun(suite, threadId)).toMatchObject({ state: 'interrupted' });
    // The command's card, while the permission is pending: waiting, not CopilotKit's "executing".
    const shell = page.locator('.tool-card[data-tool-name="run_shell"]');
    await shell.locator('.tool-status', { hasText: 'Waiting for permission' }).waitFor();
    expect(await shell.getAttribute('data-iac-status')).toBe('waiting');
    console.log(
      `permission pending: card ${JSON.stringify(await card.textContent())}; tool ${JSON.stringify(await shell.textContent())} (CopilotKit: ${await shell.getAttribute('data-status')})`,
    );

    await card.getByRole('button', { name: 'Allow once' }).click();
    await answerShows(suite, page, 'The command finished.');
    await chatIdle(page);
    await card.waitFor({ state: 'detached' });
    await suite.browser.screenshot('copilotkit-iac-code-interrupt-answered');
    await shell.locator('.tool-status', { hasText: 'Done' }).waitFor();
    // CopilotKit's own answer message is the card's result (a known limit, README).
    expect(await shell.locator('.tool-result').textContent()).toBe('{"decision":"allow_once"}');
    const answer = suite.stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ data?: { decision?: string } }> } };
    expect(answer.message.parts[0]?.data?.decision).toBe('allow_once');
    expect(suite.adapterSaw(threadId)).toEqual([
      'run admitted resume=false',
      'run ended event="RUN_FINISHED" outcome="interrupt"',
      'run admitted resume=true',
      'run ended event="RUN_FINISHED" outcome="success"',
    ]);
    expect(await threadRun(suite, threadId)).toBeNull();
  });

  it('stops a run with Stop (the runner cancels it through the cancel route), and the next message is answered', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    suite.allow(/^adapter .*"level":"warn","message":"run ended",.*"event":"RUN_ERROR","code":"CANCELLED"/);
    await sendMessage(page, 'long run please');
    await answerShows(suite, page, 'step 3.');
    const cancelsBefore = suite.stack.emulator.callsOf('CancelTask').length;
    await page.getByTestId('copilot-send-button').click();
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-iac-code-stopped');
    const stoppedText = (await assistantMessages(page).last().textContent()) ?? '';

    await sendMessage(page, 'hello after stop');
    await answerShows(suite, page, 'You said: hello after stop');
    await chatIdle(page);
    expect(stoppedText).not.toContain('step 600.');
    expect(suite.stack.emulator.callsOf('CancelTask').length).toBeGreaterThan(cancelsBefore);
    const saw = suite.adapterSaw(threadId);
    expect(saw[0]).toBe('run admitted resume=false');
    expect(saw).toContain('run ended event="RUN_ERROR" code="CANCELLED"');
    expect(saw.slice(-2)).toEqual(['run admitted resume=false', 'run ended event="RUN_FINISHED" outcome="success"']);
    console.log(`stop: the adapter saw ${JSON.stringify(saw)}; the stopped answer ${JSON.stringify(stoppedText)}`);
  });

  it('after the runtime is killed mid-run and started again, a reload shows the whole conversation and the rest of the run to its end', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'hello before the restart');
    await answerShows(suite, page, 'You said: hello before the restart');
    await chatIdle(page);
    await sendMessage(page, 'steps very slowly');
    await answerShows(suite, page, 'step 3.');
    expect(suite.newProblems()).toEqual([]);
    await suite.restartRuntime('kill');
    // What the page says when its runtime dies mid-stream (CopilotKit's errors for the broken
    // request), and nothing from the adapter: the runner asked for a detach grace, so the run goes on.
    const killed: string[] = [];
    await expect
      .poll(() => {
        killed.push(...suite.newProblems());
        return killed.some((line) => /pageerror: network error/.test(line));
      })
      .toBe(true);
    expect(killed.filter((line) => !AT_KILL.some((pattern) => pattern.test(line)))).toEqual([]);

    await page.reload();
    await chatInput(page).waitFor();
    expect(await page.locator('#app').getAttribute('data-thread-id')).toBe(threadId);
    // The run, live again in the reloaded chat, somewhere before its end.
    await assistantMessages(page).nth(1).filter({ hasText: 'step 1.' }).waitFor();
    const runningAtReload = await page.getByTestId('copilot-chat').getAttribute('data-copilot-running');
    const stepAtReload = await lastStep(page);
    await answerShows(suite, page, 'step 60.');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-iac-code-runtime-restarted');
    console.log(
      `restart: first seen after the reload: step ${stepAtReload}, running=${runningAtReload}; users ${JSON.stringify(await users(page).allTextContents())}; answers ${(await assistantMessages(page).allTextContents()).map((text) => JSON.stringify(text.slice(0, 60))).join(', ')}`,
    );
    expect(await users(page).allTextContents()).toEqual([expect.stringContaining('hello before the restart'), expect.stringContaining('steps very slowly')]);
    const answers = await assistantMessages(page).allTextContents();
    expect(answers).toHaveLength(2);
    expect(answers[0]).toContain('You said: hello before the restart');
    expect(answers[1]).toContain('step 1. step 2.');
    expect(answers[1]).toContain('step 60.');
    expect(stepAtReload).toBeLessThan(60);
    expect(runningAtReload).toBe('true');
    expect(suite.adapterSaw(threadId).filter((line) => line.startsWith('run '))).toEqual([
      'run admitted resume=false',
      'run ended event="RUN_FINISHED" outcome="success"',
      'run admitted resume=false',
      // The killed runtime's stream dropped; the new one's connect subscribed to the run (§6.15, §6.16).
      'run detached: its reader left',
      'run reattached',
      'run ended event="RUN_FINISHED" outcome="success"',
    ]);
    expect(await threadRun(suite, threadId)).toBeNull();
  });

  it('two runtime instances take turns on one thread: a reload onto the other shows the conversation, takes the next turn, and shows a run started on the first continuing', async () => {
    const { page } = suite.browser;
    const other = await suite.anotherRuntime();
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'hello on A');
    await answerShows(suite, page, 'You said: hello on A');
    await chatIdle(page);

    // The same thread on instance B (another origin, another process, nothing shared with A).
    await openApp(page, other.url, threadId);
    await answerShows(suite, page, 'You said: hello on A');
    await chatIdle(page);
    expect(await users(page).allTextContents()).toEqual([expect.stringContaining('hello on A')]);
    await sendMessage(page, 'hello on B');
    await answerShows(suite, page, 'You said: hello on B');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-iac-code-instance-b');

    // A turn started on A, the page reloaded onto B mid-run.
    await openApp(page, suite.runtime.url, threadId);
    await answerShows(suite, page, 'You said: hello on B');
    await sendMessage(page, 'steps very slowly');
    await answerShows(suite, page, 'step 3.');
    await openApp(page, other.url, threadId);
    await assistantMessages(page).nth(2).filter({ hasText: 'step 1.' }).waitFor();
    const runningOnB = await page.getByTestId('copilot-chat').getAttribute('data-copilot-running');
    const stepOnB = await lastStep(page);
    await answerShows(suite, page, 'step 60.');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-iac-code-instance-b-mid-run');
    const userTexts = await users(page).allTextContents();
    const answers = await assistantMessages(page).allTextContents();
    console.log(
      `two instances: first seen on B: step ${stepOnB}, running=${runningOnB}; users ${JSON.stringify(userTexts)}; answers ${answers.map((text) => JSON.stringify(text.slice(0, 60))).join(', ')}`,
    );
    expect(userTexts).toEqual([expect.stringContaining('hello on A'), expect.stringContaining('hello on B'), expect.stringContaining('steps very slowly')]);
    expect(answers).toHaveLength(3);
    expect(answers[0]).toContain('You said: hello on A');
    expect(answers[1]).toContain('You said: hello on B');
    expect(answers[2]).toContain('step 1. step 2.');
    expect(stepOnB).toBeLessThan(60);
    expect(runningOnB).toBe('true');
    expect(await threadRun(suite, threadId)).toBeNull();
  });
});

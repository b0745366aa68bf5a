/**
 * The plain CopilotKit wiring against the real adapter, in a real Chromium (issue 28): the
 * project's CopilotKit test app (app/main.tsx) — `<CopilotChat>`, a tool renderer and a
 * `useInterrupt` renderer — served by CopilotKit's v2 runtime, whose agent is CopilotKit's own
 * `HttpAgent` with our `forwardedProps.iacCode` under the default `InMemoryAgentRunner`
 * (wirings.ts `plain`); the adapter in front of the A2A emulator, which picks its scenario by the
 * message's first word. Every test ends with the browser console, the runtime's output and the
 * adapter's warn and error lines empty.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { answerShows, assistantMessages, chatIdle, chatInput, copilotKitSuite, openApp, sendMessage, threadRun } from './copilotkit-support.js';

const suite = copilotKitSuite({ wiring: 'plain' });

afterEach(() => {
  expect(suite.newProblems()).toEqual([]);
});

/** The runIds of the runs the adapter admitted on the thread, in order. */
function admittedRunIds(threadId: string): string[] {
  return suite.stack.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record['threadId'] === threadId && record['message'] === 'run admitted')
    .map((record) => String(record['runId']));
}

describe('CopilotKit, wired the plain way (HttpAgent + InMemoryAgentRunner)', { timeout: 60_000 }, () => {
  it('a plain turn shows the answer', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'hello from CopilotKit');
    await answerShows(suite, page, 'Hello from the iac-code emulator. You said: hello from CopilotKit');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-plain-turn');
    expect(await page.getByTestId('copilot-user-message').last().textContent()).toContain('hello from CopilotKit');
    expect(suite.adapterSaw(threadId)).toEqual(['run admitted resume=false', 'run ended event="RUN_FINISHED" outcome="success"']);
  });

  it('shows each tool as a card, the failed one included', async () => {
    const { page } = suite.browser;
    await openApp(page, suite.runtime.url);
    await sendMessage(page, 'tools please');
    await answerShows(suite, page, 'The template has one VPC.');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-plain-tools');
    const read = page.locator('.tool-card[data-tool-name="read_file"]');
    const lint = page.locator('.tool-card[data-tool-name="lint_template"]');
    expect(await read.count()).toBe(1);
    expect(await lint.count()).toBe(1);
    expect(await read.locator('.tool-arguments').textContent()).toBe('{"limit":200,"path":"main.tf"}');
    expect(await read.locator('.tool-result').textContent()).toBe('resource "alicloud_vpc" "main" {}');
    expect(await read.getAttribute('data-status')).toBe('complete');
    // CopilotKit knows only "complete"; the client module's IacCodeToolCard reads the failure from the
    // tool's result (lib/client/react/tool-status.ts), whatever the wiring.
    expect(await lint.getAttribute('data-status')).toBe('complete');
    expect(await lint.locator('.tool-status').textContent()).toBe('Failed');
    expect(await lint.locator('.tool-result').textContent()).toContain('lint failed');
  });

  it('shows a permission through useInterrupt, and "Allow once" resumes the run to its end in the chat', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'permission please');
    const card = page.locator('.interrupt-card');
    await card.waitFor();
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-plain-interrupt');
    expect(await card.getAttribute('data-reason')).toBe('tool_call');
    expect(await card.locator('.interrupt-message').textContent()).toBe('Run a local shell command. Allow once?');
    expect(await card.locator('.interrupt-options button').allTextContents()).toEqual(['Allow once', 'Deny', 'Cancel']);
    expect(await threadRun(suite, threadId)).toMatchObject({ state: 'interrupted' });

    await card.getByRole('button', { name: 'Allow once' }).click();
    await answerShows(suite, page, 'The command finished.');
    await chatIdle(page);
    await card.waitFor({ state: 'detached' });
    await suite.browser.screenshot('copilotkit-plain-interrupt-answered');
    // One card for the command. Its result is CopilotKit's own: useInterrupt answers an interrupt that
    // names a toolCallId with a tool message carrying the answer, and the card shows that one, not the
    // tool's output ("Plan: 1 to add.") the resumed run streamed after it.
    const shell = page.locator('.tool-card[data-tool-name="run_shell"]');
    expect(await shell.count()).toBe(1);
    expect(await shell.locator('.tool-result').textContent()).toBe('{"decision":"allow_once"}');
    const answer = suite.stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ data?: { decision?: string } }> } };
    expect(answer.message.parts[0]?.data?.decision).toBe('allow_once');
    expect(suite.adapterSaw(threadId)).toEqual([
      'run admitted resume=false',
      'run ended event="RUN_FINISHED" outcome="interrupt"',
      'run admitted resume=true',
      'run ended event="RUN_FINISHED" outcome="success"',
    ]);
    // CopilotKit resumed under the interrupted run's id (docs/protocol.md §6.2).
    const runIds = admittedRunIds(threadId);
    expect(runIds).toHaveLength(2);
    expect(runIds[1]).toBe(runIds[0]);
    expect(await threadRun(suite, threadId)).toBeNull();
  });

  it('denies a permission with "Deny": the run goes on to its end with the command skipped', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'permission please');
    const card = page.locator('.interrupt-card');
    await card.getByRole('button', { name: 'Deny' }).click();
    await answerShows(suite, page, 'the command was skipped.');
    await chatIdle(page);
    await card.waitFor({ state: 'detached' });
    const answer = suite.stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ data?: { decision?: string } }> } };
    expect(answer.message.parts[0]?.data?.decision).toBe('deny');
    expect(suite.adapterSaw(threadId)).toEqual([
      'run admitted resume=false',
      'run ended event="RUN_FINISHED" outcome="interrupt"',
      'run admitted resume=true',
      'run ended event="RUN_FINISHED" outcome="success"',
    ]);
  });

  it('answers a question by one of its options (a oneOf responseSchema), and the run goes on', async () => {
    const { page } = suite.browser;
    await openApp(page, suite.runtime.url);
    await sendMessage(page, 'question please');
    const card = page.locator('.interrupt-card');
    await card.waitFor();
    await chatIdle(page);
    expect(await card.getAttribute('data-reason')).toBe('input_required');
    expect(await card.locator('.interrupt-options button').allTextContents()).toEqual(['Plan A', 'Plan B', 'Cancel']);
    await card.getByRole('button', { name: 'Plan B' }).click();
    await answerShows(suite, page, 'You chose: Plan B.');
    await chatIdle(page);
    await card.waitFor({ state: 'detached' });
  });

  it('stops a run with Stop, and the next message is answered (no THREAD_BUSY)', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    suite.allow(/^adapter .*"level":"warn","message":"run ended",.*"event":"RUN_ERROR","code":"CANCELLED"/);
    await sendMessage(page, 'long run please');
    await answerShows(suite, page, 'step 3.');
    await page.getByTestId('copilot-send-button').click();
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-plain-stopped');
    const stoppedText = await assistantMessages(page).last().textContent();

    // At once, as a person would: no waiting for the adapter to notice.
    await sendMessage(page, 'hello after stop');
    await answerShows(suite, page, 'You said: hello after stop');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-plain-after-stop');
    expect(stoppedText).not.toContain('step 600.');
    // The adapter cancelled the task: a plain HttpAgent asks for no detach grace (docs/protocol.md §6.15 "Whose grace").
    expect(suite.stack.emulator.callsOf('CancelTask').length).toBeGreaterThan(0);
    expect(suite.adapterSaw(threadId)).toEqual([
      'run admitted resume=false',
      'run ended event="RUN_ERROR" code="CANCELLED"',
      'run admitted resume=false',
      'run ended event="RUN_FINISHED" outcome="success"',
    ]);
  });

  it('after a reload mid-run, shows the run again and its end (the runtime kept reading: one request, no reattach)', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'steps slowly');
    await answerShows(suite, page, 'step 5.');
    const before = suite.runtimeRequests.length;
    await page.reload();
    await chatInput(page).waitFor();
    expect(await page.locator('#app').getAttribute('data-thread-id')).toBe(threadId);
    await answerShows(suite, page, 'step 60.');
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-plain-reloaded');
    // The reloaded page asked the runtime to connect, and the runtime replayed the run from its memory.
    const afterReload = suite.runtimeRequests.slice(before);
    expect(afterReload).toContain('POST /api/copilotkit/agent/default/connect');
    expect(afterReload).not.toContain('POST /api/copilotkit/agent/default/run');
    expect(await page.getByTestId('copilot-user-message').allTextContents()).toEqual([expect.stringContaining('steps slowly')]);
    expect(await assistantMessages(page).count()).toBe(1);
    expect(suite.adapterSaw(threadId)).toEqual(['run admitted resume=false', 'run ended event="RUN_FINISHED" outcome="success"']);
  });

  it('after the runtime is killed mid-run and started again, a reload shows an empty chat (recorded: the plain wiring keeps the thread in the runtime memory)', async () => {
    const { page } = suite.browser;
    const threadId = await openApp(page, suite.runtime.url);
    await sendMessage(page, 'steps slowly');
    await answerShows(suite, page, 'step 5.');
    // Whatever the earlier tests left has been checked: only this test's lines count from here.
    expect(suite.newProblems()).toEqual([]);
    await suite.restartRuntime('kill');
    await chatIdle(page);
    // What the page says when its runtime dies mid-stream — CopilotKit's errors for the broken run —
    // and the adapter's cancelled run (its reader, the runtime, left without asking for a grace).
    const atKill = [
      /^browser http \(console\) .*\/api\/copilotkit\/agent\/default\/run$/,
      /^browser console\.error: Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING$/,
      /^browser console\.error: \[CopilotKit\] Error \(agent_run_failed_event\): TypeError: network error/,
      /^browser console\.error: Agent execution failed: TypeError: network error$/,
      /^browser console\.error: \[CopilotKit\] Error \(agent_run_failed\): TypeError: network error/,
      /^browser pageerror: network error$/,
      /^adapter .*"level":"warn","message":"run ended",.*"event":"RUN_ERROR","code":"CANCELLED"/,
    ];
    const killed: string[] = [];
    await expect
      .poll(() => {
        killed.push(...suite.newProblems());
        return killed.filter((line) => /pageerror: network error|"code":"CANCELLED"/.test(line)).length;
      })
      .toBe(2);
    expect(killed.filter((line) => !atKill.some((pattern) => pattern.test(line)))).toEqual([]);

    await page.reload();
    await chatInput(page).waitFor();
    await chatIdle(page);
    await suite.browser.screenshot('copilotkit-plain-runtime-restarted');
    // The new runtime knows nothing of the thread: the chat is empty, the words already streamed are gone.
    expect(await page.getByTestId('copilot-user-message').count()).toBe(0);
    expect(await assistantMessages(page).count()).toBe(0);
    expect(suite.adapterSaw(threadId)).toEqual(['run admitted resume=false', 'run ended event="RUN_ERROR" code="CANCELLED"']);
    expect(await threadRun(suite, threadId)).toBeNull();

    // The thread itself is free: the next message is answered.
    await sendMessage(page, 'hello after the restart');
    await answerShows(suite, page, 'You said: hello after the restart');
    await chatIdle(page);
  });
});

/**
 * The harness of the CopilotKit browser tests (issue 28): the real adapter stack in process (as
 * the other browser tests start it, with `npm start`'s 60 s detach-grace maximum and the A2A
 * emulator as kernel), the CopilotKit runtime server as a child process (runtime-server.ts, its
 * agent and runner one named wiring), and a real Chromium on the app it serves.
 *
 * Everything that could hide a failure is kept: the browser's console errors, warnings and page
 * errors (browser-support.ts), the runtime process's stdout and stderr, the adapter's log lines.
 * `problems()` is what a test asserts empty.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type Stack, type StackOptions, startStack } from '../../support/stack.js';
import { type Browser, launchBrowser } from '../browser-support.js';
import { appBundle } from './app-bundle.js';
import type { RuntimeServerConfig } from './runtime-server.js';
import type { WiringName } from './wirings.js';

const SERVER = join(import.meta.dirname, 'runtime-server.ts');
export const CWD = '/workspace/copilotkit';

/** The CopilotKit runtime process. */
export interface RuntimeProcess {
  url: string;
  /** Its stdout and stderr, a line each, prefixed `stdout:` / `stderr:`. */
  lines: string[];
  /** Stops it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
  /** Kills it outright (SIGKILL), as a crash would, and waits for its exit. */
  kill(): Promise<void>;
}

export async function startRuntime(config: Omit<RuntimeServerConfig, 'bundleDir' | 'port'> & { port?: number }): Promise<RuntimeProcess> {
  const full: RuntimeServerConfig = { port: 0, ...config, bundleDir: await appBundle() };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SERVER, JSON.stringify(full)], {
    env: { ...process.env, COPILOTKIT_TELEMETRY_DISABLED: 'true', DO_NOT_TRACK: '1', SCARF_ANALYTICS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const collect = (stream: 'stdout' | 'stderr') => {
      let rest = '';
      child[stream]?.setEncoding('utf8');
      child[stream]?.on('data', (chunk: string) => {
        rest += chunk;
        const parts = rest.split('\n');
        rest = parts.pop() ?? '';
        for (const line of parts) {
          const ready = /^runtime listening on (\S+)$/.exec(line);
          if (ready?.[1]) resolve(ready[1]);
          else lines.push(`${stream}: ${line}`);
        }
      });
    };
    collect('stdout');
    collect('stderr');
    child.once('exit', (code) => reject(new Error(`the runtime server exited (${code}) before it listened:\n${lines.join('\n')}`)));
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, lines, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}

export interface CopilotKitSuite {
  stack: Stack;
  runtime: RuntimeProcess;
  browser: Browser;
  /** Stops (SIGTERM) or kills (SIGKILL) the runtime process and starts a new one on the same port. */
  restartRuntime(how: 'stop' | 'kill'): Promise<void>;
  /** Starts one more runtime process with the suite's wiring on the same adapter (a second instance, nothing shared); its output counts as the suite's, and it is stopped after the file. */
  anotherRuntime(): Promise<RuntimeProcess>;
  /** The page's requests to CopilotKit's runtime, `METHOD /path`, in order. */
  runtimeRequests: string[];
  /** Responses of 400 and above the page received: status, method, address. */
  httpErrors: string[];
  /** The adapter's log messages about this thread, in order (`run admitted resume=false`, `run ended event="RUN_FINISHED" outcome="success"`…). */
  adapterSaw(threadId: string): string[];
  /** Lets the current test's expected problem lines through `newProblems` (a Stop's cancelled run is logged at warn). */
  allow(pattern: RegExp): void;
  /** The problems since the last call that no `allow` of the current test expected; clears the allowances. */
  newProblems(): string[];
  /** Browser problems, runtime output and the adapter's warn and error lines so far. */
  problems(): string[];
}

export interface CopilotKitSuiteOptions {
  wiring: WiringName;
  stack?: StackOptions;
}

/** Registers the file's set-up: the adapter stack, the runtime process on it, the browser; closed after the file. */
export function copilotKitSuite(options: CopilotKitSuiteOptions): CopilotKitSuite {
  const suite = {} as CopilotKitSuite;
  suite.httpErrors = [];
  // Every runtime process's output, a restarted one's after the one before.
  const runtimeLines: string[][] = [];
  suite.restartRuntime = async (how) => {
    const port = Number(new URL(suite.runtime.url).port);
    await (how === 'kill' ? suite.runtime.kill() : suite.runtime.stop());
    suite.runtime = await startRuntime({ wiring: options.wiring, adapterUrl: suite.stack.url, cwd: CWD, port });
    runtimeLines.push(suite.runtime.lines);
  };
  const others: RuntimeProcess[] = [];
  suite.anotherRuntime = async () => {
    const other = await startRuntime({ wiring: options.wiring, adapterUrl: suite.stack.url, cwd: CWD });
    others.push(other);
    runtimeLines.push(other.lines);
    return other;
  };
  suite.runtimeRequests = [];
  let allowed: RegExp[] = [];
  suite.allow = (pattern) => {
    allowed.push(pattern);
  };
  // Each source grows on its own: what was seen is counted per source, never as one list's index.
  const sources = (): string[][] => [
    suite.httpErrors.map((line) => `browser http ${line}`),
    (suite.browser?.problems ?? []).map((line) => `browser ${line}`),
    runtimeLines.flat().map((line) => `runtime ${line}`),
    // Warnings, errors, and every request refused before its stream (logged at info with its code, lib/http/rejection-log.ts).
    (suite.stack?.logs ?? []).filter((line) => /"level":"(warn|error)"/.test(line) || /"code":"/.test(line)).map((line) => `adapter ${line}`),
  ];
  let seen: number[] = [];
  suite.newProblems = () => {
    const all = sources();
    const fresh = all.flatMap((lines, index) => lines.slice(seen[index] ?? 0)).filter((line) => !allowed.some((pattern) => pattern.test(line)));
    seen = all.map((lines) => lines.length);
    allowed = [];
    return fresh;
  };
  suite.problems = () => sources().flat();
  suite.adapterSaw = (threadId) =>
    (suite.stack?.logs ?? []).flatMap((line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record['threadId'] !== threadId) return [];
      const extra = ['resume', 'event', 'outcome', 'code'].filter((key) => record[key] !== undefined).map((key) => `${key}=${JSON.stringify(record[key])}`);
      return [[record['message'], ...extra].join(' ')];
    });
  beforeAll(async () => {
    suite.stack = await startStack({ store: 'file', config: { detachGraceMs: 60_000 }, ...options.stack });
    suite.runtime = await startRuntime({ wiring: options.wiring, adapterUrl: suite.stack.url, cwd: CWD });
    runtimeLines.push(suite.runtime.lines);
    suite.browser = await launchBrowser();
    // Chromium's "Failed to load resource" says no address: each such response is kept with its own.
    suite.browser.page.on('console', (message) => {
      if (message.type() === 'error' && message.text().startsWith('Failed to load resource')) suite.httpErrors.push(`(console) ${message.location().url}`);
    });
    suite.browser.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/copilotkit')) suite.runtimeRequests.push(`${request.method()} ${url.pathname}`);
    });
    suite.browser.page.on('response', (response) => {
      if (response.status() >= 400) suite.httpErrors.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    });
  }, 90_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.runtime?.stop();
    for (const other of others) await other.stop();
    await suite.stack?.close();
  });
  return suite;
}

/** Opens the app on a new thread (or the given one) and waits until the chat's input is ready. */
export async function openApp(page: Page, runtimeUrl: string, threadId?: string): Promise<string> {
  await page.goto(threadId ? `${runtimeUrl}/?thread=${encodeURIComponent(threadId)}` : `${runtimeUrl}/`);
  await chatInput(page).waitFor();
  return (await page.locator('#app').getAttribute('data-thread-id')) ?? '';
}

export function chatInput(page: Page) {
  return page.locator('textarea').first();
}

/** Types a message into CopilotChat and presses Enter. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await chatInput(page).fill(text);
  await chatInput(page).press('Enter');
}

/** CopilotChat's assistant messages, oldest first. */
export function assistantMessages(page: Page) {
  return page.getByTestId('copilot-assistant-message');
}

/** Waits until the newest assistant message shows `text`; on timeout, fails with what the chat showed. */
export async function answerShows(suite: CopilotKitSuite, page: Page, text: string): Promise<void> {
  try {
    await assistantMessages(page).last().filter({ hasText: text }).waitFor();
  } catch (error) {
    const chat = await page
      .getByTestId('copilot-chat')
      .textContent()
      .catch(() => '(no chat)');
    throw new Error(`the chat never showed ${JSON.stringify(text)}; it showed:\n${chat}\nproblems: ${JSON.stringify(suite.problems())}`, { cause: error });
  }
}

/** Waits until CopilotChat says no run is going on. */
export async function chatIdle(page: Page): Promise<void> {
  await page.locator('[data-testid="copilot-chat"][data-copilot-running="false"]').waitFor();
}

/** The adapter's own view of the thread (docs/protocol.md §6.16). */
export async function threadRun(suite: CopilotKitSuite, threadId: string): Promise<unknown> {
  const response = await fetch(`${suite.stack.url}/extensions/iac-code/v1/threads/${encodeURIComponent(threadId)}`);
  return ((await response.json()) as { run: unknown }).run;
}

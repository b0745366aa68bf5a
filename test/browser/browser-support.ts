/**
 * A real headless Chromium for the console's browser tests (docs/architecture.md §9): Debian's
 * `chromium` driven by playwright-core, one browser per test file with a fresh profile, its page
 * reused by the file's tests. Every console message and page error is kept, so a file can assert
 * the page ran without one — a content-security-policy violation is reported there too.
 * Screenshots go to test-artifacts/console/ (git-ignored).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type Stack, type StackOptions, startStack } from '../support/stack.js';

export const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'console');

const ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** "console.error: …" and "pageerror: …" lines, in order. */
  problems: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console.${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await mkdir(ARTIFACTS, { recursive: true });
  return {
    context,
    page,
    problems,
    screenshot: async (name) => {
      // The page itself never scrolls (the conversation scrolls in its own region): the window is the picture.
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
    },
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the console and waits until its message box is ready. */
export async function openConsole(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.locator('#message').waitFor();
}

/** A file's stack (adapter + emulator, the console on) and browser, started before its tests and closed after. */
export interface ConsoleSuite {
  stack: Stack;
  browser: Browser;
}

/**
 * Registers the file's set-up: the stack, the browser, then `open` (by default the console,
 * waited for until its message box is ready).
 */
export function consoleSuite(options: StackOptions, open: (suite: ConsoleSuite) => Promise<void> = ({ browser, stack }) => openConsole(browser.page, stack.url)): ConsoleSuite {
  const suite = {} as ConsoleSuite;
  beforeAll(async () => {
    suite.stack = await startStack(options);
    suite.browser = await launchBrowser();
    await open(suite);
  }, 60_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.stack?.close();
  });
  return suite;
}

/** Types a message and presses Enter, as a person sends one. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.locator('#message').fill(text);
  await page.locator('#message').press('Enter');
}

/** Waits until the newest run's footer leaves "running" and "reconnecting"; returns its state (finished, interrupt, error, cancelled). */
export async function runEnd(page: Page): Promise<string> {
  await page.waitForFunction(() => {
    const footers = document.querySelectorAll('.run .run-footer');
    const state = footers[footers.length - 1]?.getAttribute('data-state');
    return typeof state === 'string' && state !== 'running' && state !== 'reconnecting';
  });
  return page.locator('.run .run-footer').last().getAttribute('data-state') as Promise<string>;
}

/** Starts a new thread from the sidebar with default settings but this run mode (set in its settings drawer). */
export async function newThread(page: Page, runMode: 'normal' | 'pipeline' = 'normal'): Promise<void> {
  await page.getByRole('button', { name: '+ New thread' }).click();
  await page.locator('.topbar .status', { hasText: 'New thread started.' }).waitFor();
  if (runMode === 'normal') return;
  await page.locator('.settings-toggle').click();
  await page.locator('#thread-settings select[name="runMode"]').selectOption(runMode);
  await page.locator('#thread-settings').getByRole('button', { name: 'Save settings' }).click();
}

/** The thread on screen. */
export async function threadIdOf(page: Page): Promise<string> {
  return (await page.locator('#conversation-heading').getAttribute('data-thread-id')) ?? '';
}

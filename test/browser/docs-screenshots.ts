/**
 * The README's pictures of the web console (docs/images/console-*.png): its main states — a new
 * thread, an answer with Markdown and tool cards, a pipeline waiting for a permission, a run going
 * on — at 1280×860 and on a 390×844 phone, light and dark, taken in Debian's chromium against a
 * real stack (adapter + emulator). Not a test: run it by hand after a visible change,
 * `npx tsx test/browser/docs-screenshots.ts`; the PNGs are reduced to a palette to stay small.
 */
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { EMULATOR_CONSOLE_EXAMPLES } from '../../lib/emulators/a2a/console-examples.js';
import { startStack } from '../support/stack.js';
import { CHROMIUM, runEnd, sendMessage } from './browser-support.js';

const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');
const SIZES = { wide: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } } as const;
const SCHEMES = ['light', 'dark'] as const;

const ANSWER = [
  'hello: a VPC for **staging** — see [the ROS docs](https://www.alibabacloud.com/help/en/ros)',
  '',
  '```yaml',
  'Resources:',
  '  Vpc:',
  '    Type: ALIYUN::ECS::VPC',
  '    Properties:',
  '      CidrBlock: 10.0.0.0/16',
  '```',
].join('\n');

async function shoot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot();
  await sharp(png)
    .png({ palette: true, quality: 90, compressionLevel: 9 })
    .toFile(join(IMAGES, `console-${name}.png`));
}

/** On a phone the threads (and their New thread button) are behind the Threads button. */
async function newThread(page: Page): Promise<void> {
  const threads = page.getByRole('button', { name: 'Threads' });
  if (await threads.isVisible()) await threads.click();
  await page.getByRole('button', { name: '+ New thread' }).click();
}

async function states(browser: Browser, url: string, size: keyof typeof SIZES, scheme: (typeof SCHEMES)[number]): Promise<void> {
  const context = await browser.newContext({ viewport: SIZES[size], colorScheme: scheme, locale: 'en-US', timezoneId: 'Asia/Shanghai' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const name = (state: string) => `${state}-${size}-${scheme}`;
  await page.goto(`${url}/console`);
  await page.locator('#message').waitFor();
  await shoot(page, name('start'));

  await sendMessage(page, 'tools please: read and lint the template');
  await runEnd(page);
  await sendMessage(page, ANSWER);
  await runEnd(page);
  await page.locator('#message').blur();
  await shoot(page, name('answer'));

  await newThread(page);
  await page.locator('.settings-toggle').click();
  await page.locator('#thread-settings select[name="runMode"]').selectOption('pipeline');
  await page.locator('#thread-settings').getByRole('button', { name: 'Save settings' }).click();
  await sendMessage(page, 'pipeline for a VPC');
  await runEnd(page);
  await shoot(page, name('permission'));
  await page.locator('.interrupt-card').getByRole('button', { name: 'Deny' }).click();
  await runEnd(page);

  await newThread(page);
  await sendMessage(page, 'long running task');
  await page.locator('.turn.assistant .message-text', { hasText: 'step 12.' }).waitFor();
  await shoot(page, name('running'));
  await page.keyboard.press('Escape');
  await runEnd(page);
  await context.close();
}

const stack = await startStack({ store: 'file', console: { examples: EMULATOR_CONSOLE_EXAMPLES } });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless', '--disable-gpu'] });
try {
  for (const size of Object.keys(SIZES) as Array<keyof typeof SIZES>) for (const scheme of SCHEMES) await states(browser, stack.url, size, scheme);
} finally {
  await browser.close();
  await stack.close();
}

/**
 * Kernel failures a person can act on (docs/protocol.md §2.4, §10.3), in front of the real kernel
 * (docs/architecture.md §9.7): the model provider refuses the key, or is down through every retry.
 * The RUN_ERROR carries the kernel's own reason and error id in the request's language frame, never
 * a secret; the thread takes the next turn.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithKernel, textOfEvents, useKernel, userTurn } from './support/kernel-suite.js';

const API_KEY = 'sk-agui-kernel-suite-0123456789abcdef';

async function everyFileUnder(folder: string): Promise<string> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(entries.filter((entry) => entry.isFile()).map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')));
  return texts.join('\n');
}

describeWithKernel('kernel failures with the real kernel', () => {
  const kernel = useKernel('failures');

  it('a provider that refuses the key: RUN_ERROR with the kernel reason and error id, in Spanish, without the key anywhere', async () => {
    const workspace = await kernel.workspace();
    const { events, error } = await userTurn(kernel.agent(), workspace, 'reject this request', { llmApiKey: API_KEY, preferredLanguage: 'es' });
    expect(error?.code).toBe('A2A_EXECUTION_FAILED');
    expect(error?.message).toMatch(/^La ejecución A2A falló\. El kernel informó: AuthenticationError: .*401.*invalid_api_key.* \(id de error: [0-9a-f]{12}\)$/);
    // The reason is the kernel's account of the failure, not the assistant's answer.
    expect(textOfEvents(events)).toBe('');
    expect(error?.message).not.toContain(API_KEY);
    expect(kernel.stack.logs.join('\n')).not.toContain(API_KEY);
    expect(await everyFileUnder(kernel.stack.stateDir as string)).not.toContain(API_KEY);
  });

  it('a provider outage through every retry: RUN_ERROR with the reason; the next turn of the thread works', async () => {
    const workspace = await kernel.workspace();
    const agent = kernel.agent();
    const failed = await userTurn(agent, workspace, 'fail now');
    expect(failed.error?.code).toBe('A2A_EXECUTION_FAILED');
    expect(failed.error?.message).toMatch(/^The A2A execution failed\. The kernel reported: .*Error code: 500.*fake provider outage.* \(error id [0-9a-f]{12}\)$/);
    expect(textOfEvents(failed.events)).toBe('');
    // Right after the failure: the kernel closed the failed turn (INPUT_REQUIRED) and takes the next.
    const next = await userTurn(agent, workspace, 'hello after the outage');
    expect(next.error).toBeUndefined();
    expect(textOfEvents(next.events)).toBe('Hello from the fake model. You said: hello after the outage ');
  });
});

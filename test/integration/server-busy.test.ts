/**
 * IAC_CODE_AGUI_MAX_ACTIVE_RUNS (docs/protocol.md §1.4): beyond the cap a run is refused with
 * 503 SERVER_BUSY and Retry-After, before any state is written and before anything reaches the
 * kernel; a place is given back once a run has ended and cleaned up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBody, uniqueId } from '../support/fixtures.js';
import { LiveSse } from '../support/live-sse.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ config: { maxActiveRuns: 2 } });
});
afterAll(async () => stack.close());

async function liveRun(): Promise<{ controller: AbortController; sse: LiveSse }> {
  const controller = new AbortController();
  const response = await fetch(`${stack.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(runBody({ text: 'long' })),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const sse = new LiveSse(response);
  await sse.until((event) => event.type === 'TEXT_MESSAGE_CONTENT');
  return { controller, sse };
}

describe('the live-run cap', () => {
  it('refuses the run beyond it with 503 SERVER_BUSY and Retry-After, writing and sending nothing, and admits again once a place is free', async () => {
    const first = await liveRun();
    const second = await liveRun();
    const sent = stack.emulator.callsOf('SendStreamingMessage').length;
    const threadId = uniqueId('busy-thread');
    const refused = await stack.post('/', runBody({ threadId }), { 'accept-language': 'fr' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({ error: { code: 'SERVER_BUSY', message: "Le serveur traite trop d'exécutions. Réessayez plus tard." } });
    expect(await stack.store.load(threadId)).toBeUndefined();
    expect(stack.emulator.callsOf('SendStreamingMessage')).toHaveLength(sent);

    // A client leaves: its run cancels its task, releases its thread and then its place.
    first.controller.abort();
    let admitted: Response | undefined;
    for (let attempt = 0; attempt < 100 && !admitted; attempt += 1) {
      const response = await stack.post('/', runBody({ threadId }));
      if (response.status === 503) {
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 50));
      } else admitted = response;
    }
    expect(admitted?.status).toBe(200);
    expect(stack.emulator.callsOf('CancelTask')).toHaveLength(1);
    await admitted?.text();
    second.controller.abort();
  });
});

/**
 * The backend-for-frontend example (scripts/examples/bff/server.ts, docs/deploy.md "Browsers") in
 * CI: the browser side is the official @ag-ui/client HttpAgent talking to the BFF without a token;
 * the adapter requires one; the run succeeds (runAgent verifies the stream), and the token appears
 * in nothing the browser side sends or receives — headers and bytes included.
 */
import { HttpAgent } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from '../../scripts/examples/bff/server.js';
import { assertValidAgUiStream } from '../support/agui-oracle.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { runTurn } from '../support/http-agent.js';
import { rawRequest } from '../support/raw-http.js';
import { type Stack, startStack } from '../support/stack.js';

const TOKEN = `bff-held-token-${uniqueId('t')}`;

let stack: Stack;
let bff: RunningBff;

beforeAll(async () => {
  stack = await startStack({ config: { authToken: TOKEN } });
  bff = await startBff({ adapterUrl: stack.url, adapterToken: TOKEN, port: 0 });
});
afterAll(async () => {
  await bff.close();
  await stack.close();
});

/** What the browser side sent and received, as text, over every request its HttpAgent made. */
function recordingFetch(seen: string[]): typeof fetch {
  return async (url, init) => {
    seen.push(JSON.stringify([...new Headers(init?.headers)]), String(init?.body ?? ''));
    const response = await fetch(url, init);
    const copy = response.clone();
    seen.push(JSON.stringify([...response.headers]), await copy.text());
    return response;
  };
}

describe('a browser behind the BFF', () => {
  it('runs a turn with the official client and no token, while the adapter itself refuses a caller without one', async () => {
    const direct = await fetch(`${stack.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runBody()) });
    expect(direct.status).toBe(401);

    const seen: string[] = [];
    const browser = new HttpAgent({ url: `${bff.url}/`, threadId: uniqueId('thread'), fetch: recordingFetch(seen) });
    browser.messages.push({ id: uniqueId('msg'), role: 'user', content: 'hello from the browser' });
    const { events, result } = await runTurn(browser);

    expect(events[0]?.type).toBe('RUN_STARTED');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    await assertValidAgUiStream(events as unknown as Array<Record<string, unknown>>);
    expect(result.newMessages.some((message) => message.role === 'assistant' && String(message.content).includes('hello from the browser'))).toBe(true);
    // The adapter got the run with the BFF's token; the browser side never saw it.
    expect(seen.length).toBe(4);
    expect(seen.join('\n')).not.toContain(TOKEN);
    expect(seen[0]).not.toMatch(/authorization/i);
  });

  it('passes the adapter’s answers before the stream through unchanged, still without the token', async () => {
    const body = runBody();
    const bad = await fetch(`${bff.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, forwardedProps: { iacCode: { schemaVersion: 1 } } }),
    });
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    expect(text).not.toContain(TOKEN);
    const notJson = await fetch(`${bff.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
  });

  it('answers an oversized body with its 413, read by the client rather than a reset, and keeps serving', async () => {
    const tooLarge = await fetch(`${bff.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(13 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: 'REQUEST_TOO_LARGE' } });
    expect((await fetch(`${bff.url}/`)).status).toBe(405);
  });

  it('refuses a request target that is no URL with 400 and keeps serving', async () => {
    const exchange = rawRequest(bff.url, ['GET http://[/ HTTP/1.1', 'host: bff.local']);
    try {
      expect((await exchange.response).status).toBe(400);
    } finally {
      exchange.socket.destroy();
    }
    expect((await fetch(`${bff.url}/`)).status).toBe(405);
  });
});

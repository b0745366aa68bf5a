/**
 * Opt-in CORS (lib/http/cors.ts, docs/protocol.md §1.5) over real HTTP: a listed Origin gets
 * `access-control-allow-origin` on every answer (errors and the SSE stream included) and its
 * preflight a 204 allowing POST, GET, OPTIONS and the AG-UI client's headers; an unlisted origin
 * gets no CORS header; without a list there is none at all and OPTIONS is 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBody } from '../support/fixtures.js';
import { readSse } from '../support/sse.js';
import { type Stack, startStack } from '../support/stack.js';

const LISTED = 'https://console.example.com';
const OTHER_LISTED = 'http://localhost:5173';
const TOKEN = 'cors-test-token';

let withCors: Stack;
let withoutCors: Stack;

beforeAll(async () => {
  withCors = await startStack({ config: { authToken: TOKEN, corsOrigins: [LISTED, OTHER_LISTED] }, console: {} });
  withoutCors = await startStack({ config: { authToken: TOKEN }, emulatorInstance: withCors.emulator });
});
afterAll(async () => {
  await withoutCors.close();
  await withCors.close();
});

function preflight(stack: Stack, path: string, origin: string | undefined): Promise<Response> {
  const headers: Record<string, string> = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' };
  if (origin) headers['origin'] = origin;
  return fetch(`${stack.url}${path}`, { method: 'OPTIONS', headers });
}

function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
}

describe('with IAC_CODE_AGUI_CORS_ORIGINS', () => {
  it('answers a listed origin’s preflight on every route with 204, the allowed methods, headers and a max-age — without a token', async () => {
    for (const path of ['/', '/health', '/extensions/iac-code/v1/executions/exec-1/cancel', '/extensions/iac-code/v1/executions/exec-1/subscribe']) {
      const response = await preflight(withCors, path, LISTED);
      expect(response.status, path).toBe(204);
      expect(corsHeaders(response)).toEqual({
        'access-control-allow-origin': LISTED,
        'access-control-allow-methods': 'POST, GET, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, accept, accept-language, last-event-id, x-iac-code-detach-grace-ms',
        'access-control-max-age': '600',
      });
      expect(response.headers.get('vary')).toMatch(/origin/i);
    }
    expect(corsHeaders(await preflight(withCors, '/', OTHER_LISTED))['access-control-allow-origin']).toBe(OTHER_LISTED);
  });

  it('gives an unlisted or missing origin no CORS header (the browser then refuses), and an unknown path stays 404', async () => {
    for (const origin of ['https://evil.example.com', 'https://console.example.com.evil.net', 'https://CONSOLE.example.com', undefined]) {
      const response = await preflight(withCors, '/', origin);
      expect(response.status).toBe(204);
      expect(corsHeaders(response)).toEqual({});
    }
    expect((await preflight(withCors, '/nope', LISTED)).status).toBe(404);
  });

  it('adds the allow-origin header to a run’s SSE stream and to an error for a listed origin, and only there', async () => {
    const run = await withCors.post('/', runBody({ text: 'hello' }), { origin: LISTED, authorization: `Bearer ${TOKEN}` });
    expect(run.status).toBe(200);
    expect(run.headers.get('access-control-allow-origin')).toBe(LISTED);
    expect(run.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await readSse(run)).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });

    const unauthorized = await withCors.post('/', runBody(), { origin: LISTED });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe(LISTED);

    const unlisted = await fetch(`${withCors.url}/health`, { headers: { origin: 'https://evil.example.com' } });
    expect(unlisted.status).toBe(200);
    expect(corsHeaders(unlisted)).toEqual({});
    expect(unlisted.headers.get('vary')).toMatch(/origin/i);
  });

  it('names OPTIONS in the Allow header of a wrong method', async () => {
    const wrong = await fetch(`${withCors.url}/`, { method: 'PUT', headers: { origin: LISTED } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('names OPTIONS only on the routes that answer a preflight: the same-origin console takes GET and HEAD alone', async () => {
    const options = await preflight(withCors, '/console', LISTED);
    expect(options.status).toBe(405);
    expect(options.headers.get('allow')).toBe('GET, HEAD');
    expect(corsHeaders(options)).toEqual({ 'access-control-allow-origin': LISTED });
    const put = await fetch(`${withCors.url}/console/config.json`, { method: 'PUT', headers: { origin: LISTED } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('without IAC_CODE_AGUI_CORS_ORIGINS', () => {
  it('sends no CORS header at all, and OPTIONS is 405 METHOD_NOT_ALLOWED', async () => {
    const response = await preflight(withoutCors, '/', LISTED);
    expect(response.status).toBe(405);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toBe('POST');
    expect(corsHeaders(response)).toEqual({});
    const health = await fetch(`${withoutCors.url}/health`, { headers: { origin: LISTED } });
    expect(corsHeaders(health)).toEqual({});
    expect(health.headers.get('vary')).toBeNull();
  });
});

/**
 * How the adapter serves its web console (docs/protocol.md §1.1; docs/architecture.md §4.7): only when enabled; the
 * page `no-cache` and the content-hashed assets `immutable`; a strict content security policy on
 * every answer and nothing inline for it to forbid; /console/config.json telling only whether a
 * token is required; GET only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, type ConsoleAssets, consoleCsp, createConsoleRoute } from '../../lib/http/console-route.js';
import { type Stack, startStack } from '../support/stack.js';

const TOKEN = 'console-route-token-5e1f';
let open: Stack;
let guarded: Stack;
let disabled: Stack;

beforeAll(async () => {
  [open, guarded, disabled] = await Promise.all([
    startStack({ console: { examples: [{ label: 'hello', text: 'hello there' }] } }),
    startStack({ console: {}, config: { authToken: TOKEN } }),
    startStack(),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([open, guarded, disabled].map((stack) => stack?.close()));
});

describe('GET /console', () => {
  it('serves the page no-cache under a strict CSP, loading one hashed script and one hashed stylesheet, nothing inline', async () => {
    const response = await fetch(`${open.url}/console`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp.split('; ')).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]));
    expect(csp).not.toContain('unsafe');

    const html = await response.text();
    expect(html.match(/<script[^>]*>/g)).toEqual([expect.stringMatching(/^<script type="module" src="\/console\/assets\/console-[A-Z0-9]+\.js">$/)]);
    expect(html).toMatch(/<link rel="stylesheet" href="\/console\/assets\/console-style-[A-Z0-9]+\.css">/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(await (await fetch(`${open.url}/console/`)).text()).toBe(html);
  });

  it('serves the assets immutable, with their types', async () => {
    const html = await (await fetch(`${open.url}/console`)).text();
    const paths = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
    expect(paths).toHaveLength(2);
    for (const path of paths) {
      const asset = await fetch(`${open.url}${path}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-type')).toBe(path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });

  it('tells the page whether a token is required, and nothing more', async () => {
    const openConfig = await fetch(`${open.url}/console/config.json`);
    expect(openConfig.headers.get('cache-control')).toBe('no-store');
    expect(await openConfig.json()).toEqual({ schemaVersion: 1, authRequired: false, examples: [{ label: 'hello', text: 'hello there' }] });
    const guardedConfig = await (await fetch(`${guarded.url}/console/config.json`)).text();
    expect(JSON.parse(guardedConfig)).toEqual({ schemaVersion: 1, authRequired: true });
    expect(guardedConfig).not.toContain(TOKEN);
    // The page itself is open, as docs/protocol.md §2.2 says; the calls it makes need the token.
    expect((await fetch(`${guarded.url}/console`)).status).toBe(200);
  });

  it('answers 404 for an unknown asset and 405 for another method', async () => {
    const missing = await fetch(`${open.url}/console/assets/console-NOPE.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await fetch(`${open.url}/console/other`)).status).toBe(404);
    const post = await fetch(`${open.url}/console`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers HEAD as GET without a body, on the page, an asset and a missing asset', async () => {
    const page = await fetch(`${open.url}/console`);
    const html = await page.text();
    const head = await fetch(`${open.url}/console`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(page.headers.get('content-type'));
    expect(head.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(await head.text()).toBe('');
    const script = /src="([^"]+\.js)"/.exec(html)?.[1] as string;
    const asset = await fetch(new URL(script, `${open.url}/console`), { method: 'HEAD' });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${open.url}/console/assets/console-NOPE.js`, { method: 'HEAD' })).status).toBe(404);
  });

  it('is not there unless enabled', async () => {
    for (const path of ['/console', '/console/config.json']) {
      const response = await fetch(`${disabled.url}${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
  });

  it('with a sign-in, tells the page the provider’s endpoints and lets it reach their origins only; an unreachable provider is said, and asked again', async () => {
    const assets: ConsoleAssets = { html: '<!doctype html>', assets: new Map() };
    let reachable = false;
    let asked = 0;
    const route = createConsoleRoute(async () => assets, {
      authRequired: true,
      signIn: {
        issuer: 'https://idaas.example.com/oidc',
        clientId: 'app_console',
        scope: 'openid offline_access',
        audiences: ['app_console'],
        endpoints: async () => {
          asked += 1;
          if (!reachable) throw new Error('connect ECONNREFUSED');
          return {
            authorization_endpoint: 'https://idaas.example.com/oidc/authorize',
            token_endpoint: 'https://api.idaas.example.com/oidc/token',
            revocation_endpoint: 'https://api.idaas.example.com/oidc/revoke',
            end_session_endpoint: 'https://idaas.example.com/oidc/logout',
            id_token_signing_alg_values_supported: ['RS256'],
          };
        },
      },
    });
    const down = await route('/console/config.json');
    expect(await down?.json()).toEqual({
      schemaVersion: 1,
      authRequired: true,
      signIn: { issuer: 'https://idaas.example.com/oidc', clientId: 'app_console', scope: 'openid offline_access', audiences: ['app_console'], unavailable: true },
    });
    expect(down?.headers.get('content-security-policy')).toBe(CONSOLE_CSP);

    reachable = true;
    const up = await route('/console/config.json');
    expect(((await up?.json()) as { signIn: unknown }).signIn).toEqual({
      issuer: 'https://idaas.example.com/oidc',
      clientId: 'app_console',
      scope: 'openid offline_access',
      audiences: ['app_console'],
      authorizationEndpoint: 'https://idaas.example.com/oidc/authorize',
      tokenEndpoint: 'https://api.idaas.example.com/oidc/token',
      revocationEndpoint: 'https://api.idaas.example.com/oidc/revoke',
      endSessionEndpoint: 'https://idaas.example.com/oidc/logout',
      idTokenSigningAlgs: ['RS256'],
    });
    // The page talks to the token endpoint's origin; it only navigates to the others.
    const page = await route('/console');
    expect(page?.headers.get('content-security-policy')).toBe(consoleCsp(['https://api.idaas.example.com']));
    expect(page?.headers.get('content-security-policy')).toContain("connect-src 'self' https://api.idaas.example.com;");
    // Read once it answered.
    await route('/console/config.json');
    expect(asked).toBe(2);
  });
});

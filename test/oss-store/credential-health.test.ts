/**
 * An instance whose OSS credentials wore out reports it (docs/protocol.md §1.7, §9.4): the
 * environment's credentials are read once at start-up — on custom.debian11/12 the role's STS
 * credentials, valid 36 h — and an instance that outlives them failed every store call while
 * `GET /health` still answered 200, so Function Compute never replaced it. Now, after
 * CREDENTIAL_REFUSALS_BEFORE_UNHEALTHY refusals in a row, `/health` answers 503 with the reason.
 * Through the real start-up path, the OSS emulator refusing an expired STS token as OSS does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_REFUSALS_BEFORE_UNHEALTHY } from '../../lib/adapters/oss-store/credentials.js';
import type { RunningAdapter, RunningEmulators } from '../../lib/adapters/start-adapter.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type OssCredential, type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import { runBody } from '../support/fixtures.js';
import { type InProcessAdapter, startInProcessAdapter } from '../support/in-process-adapter.js';
import { TEST_BUCKET } from '../support/oss.js';

/** The role's STS credentials as FC hands them over in ALIBABA_CLOUD_*; the test moves their expiry. */
const ROLE: OssCredential = { accessKeyId: 'STS.instance-role', accessKeySecret: 'role-secret-31337', securityToken: 'role-token-4004' };

let oss: OssEmulator;
let kernel: A2AEmulator;
let started: InProcessAdapter<RunningEmulators>;
let adapter: RunningAdapter<RunningEmulators>;

beforeAll(async () => {
  oss = await startOssEmulator({ credentials: [ROLE] });
  started = await startInProcessAdapter(
    {
      IAC_CODE_AGUI_STATE_STORE: 'oss',
      IAC_CODE_AGUI_OSS_ENDPOINT: oss.endpoint,
      IAC_CODE_AGUI_OSS_BUCKET: TEST_BUCKET,
      IAC_CODE_AGUI_OSS_REGION: 'cn-hangzhou',
      ALIBABA_CLOUD_ACCESS_KEY_ID: ROLE.accessKeyId,
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: ROLE.accessKeySecret,
      ALIBABA_CLOUD_SECURITY_TOKEN: ROLE.securityToken as string,
    },
    async () => {
      kernel = await startA2AEmulator();
      return { a2aUrl: kernel.url, close: () => kernel.close() };
    },
  );
  adapter = started.adapter as RunningAdapter<RunningEmulators>;
});

afterAll(async () => {
  await adapter?.server.close();
  await kernel?.close();
  await oss?.close();
});

async function run(headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${adapter.server.url}/`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(runBody()) });
  await response.text();
  return response.status;
}

async function health(method = 'GET'): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const response = await fetch(`${adapter.server.url}/health`, { method });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

describe('GET /health and the store’s credentials', () => {
  it('answers 503 with the reason once OSS refused the instance’s credentials several times in a row, and 200 again once they work', async () => {
    expect(await run()).toBe(200);
    expect((await health()).status).toBe(200);
    // A request's own credentials (FC's x-fc-* set) rotate with every request: their refusals say
    // nothing about the instance's.
    const forged = { 'x-fc-access-key-id': ROLE.accessKeyId, 'x-fc-access-key-secret': ROLE.accessKeySecret, 'x-fc-security-token': 'stale-token-1' };
    for (let refused = 0; refused <= CREDENTIAL_REFUSALS_BEFORE_UNHEALTHY; refused += 1) expect(await run(forged)).toBe(503);
    expect((await health()).status).toBe(200);

    // The role's STS token expires: OSS refuses every request signed with it.
    ROLE.expiresAt = Date.now() - 1;
    expect(await run()).toBe(503);
    // One refusal is not yet a verdict (a request signed as the credentials were being replaced).
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok' } });
    for (let refused = 1; refused < CREDENTIAL_REFUSALS_BEFORE_UNHEALTHY; refused += 1) expect(await run()).toBe(503);

    const unhealthy = await health();
    expect(unhealthy.status).toBe(503);
    expect(unhealthy.body).toMatchObject({ status: 'unavailable', store: 'oss', protocol: 'ag-ui', reason: expect.stringContaining('SecurityTokenExpired') });
    expect((await health('HEAD')).status).toBe(503);
    // Neither the answer nor the log reveals a credential.
    for (const secret of [ROLE.accessKeySecret, ROLE.securityToken as string]) {
      expect(JSON.stringify(unhealthy.body)).not.toContain(secret);
      expect(started.logs.join('\n')).not.toContain(secret);
    }

    // Credentials that work again (an answer that is no refusal) make the instance healthy again.
    ROLE.expiresAt = undefined;
    expect(await run()).toBe(200);
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok' } });
  }, 60_000);
});

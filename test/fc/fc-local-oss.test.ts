/**
 * The FC-local path on OSS, as in the cloud (issue 5): the built bundle started like FC's custom
 * runtime (on Node 22), state in the OSS emulator, A2A through the A2A emulator; a turn, an
 * interrupt and its resume over real HTTP; and the role credentials in both shapes FC hands them
 * over (docs/protocol.md §9.4): custom.debian10 sends all three x-fc-* headers with each request;
 * custom.debian11/12 send no x-fc-security-token and set ALIBABA_CLOUD_* instead — an id and secret
 * without the token must then not displace the environment, or every OSS call would be refused.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type OssEmulator, startOssEmulator } from '../../lib/emulators/oss/server.js';
import type { BuiltFunction } from '../../scripts/build.js';
import { type RunningFunction, startFcLocal } from '../../scripts/fc/fc-local-process.js';
import { localFcRuntime } from '../../scripts/fc/render-s-yaml.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, lastEvent, resolved } from '../support/interrupts.js';
import { readSse } from '../support/sse.js';
import { buildIntoTemp, freePort } from './fc-support.js';

/** The function's role: FC rotates these and sends the current ones with every request. */
const role = { accessKeyId: `STS.${randomBytes(6).toString('hex')}`, accessKeySecret: randomBytes(16).toString('hex'), securityToken: randomBytes(20).toString('base64') };
/** Stale credentials in the environment: OSS refuses them, so only the request's headers work. */
const stale = { accessKeyId: `STS.${randomBytes(6).toString('hex')}`, accessKeySecret: randomBytes(16).toString('hex'), securityToken: 'expired' };

let agui: BuiltFunction;
let outDir: string;
let scratch: string;
let kernel: A2AEmulator;
let oss: OssEmulator;
let fn: RunningFunction;
/** The custom.debian12 shape: the role's credentials in the environment. */
let fnDebian12: RunningFunction;

beforeAll(async () => {
  ({ outDir, agui } = await buildIntoTemp());
  const runtime = await localFcRuntime();
  kernel = await startA2AEmulator();
  oss = await startOssEmulator({ credentials: [role], region: runtime.region });
  scratch = await mkdtemp(join(tmpdir(), 'agui-fc-oss-'));
  const startWith = async (credentials: typeof role) =>
    startFcLocal({
      runtime,
      codeDir: agui.codeDir,
      port: await freePort(),
      a2aUrl: kernel.url,
      stateDir: scratch,
      oss: { endpoint: oss.endpoint, bucket: 'agui-state', region: runtime.region, credentials },
      // These requests carry no bearer token (docs/protocol.md §1.2).
      env: { IAC_CODE_AGUI_ALLOW_ANONYMOUS: '1' },
    });
  fn = await startWith(stale);
  fnDebian12 = await startWith(role);
}, 60_000);

afterAll(async () => {
  await fn?.stop('SIGKILL');
  await fnDebian12?.stop('SIGKILL');
  await kernel?.close();
  await oss?.close();
  await Promise.all([outDir, scratch].filter(Boolean).map((dir) => rm(dir, { recursive: true, force: true })));
});

const fcHeaders = { 'x-fc-access-key-id': role.accessKeyId, 'x-fc-access-key-secret': role.accessKeySecret, 'x-fc-security-token': role.securityToken };

async function run(body: unknown, headers: Record<string, string> = fcHeaders, target: RunningFunction = fn) {
  const response = await fetch(`${target.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-fc-request-id': uniqueId('req'), ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, response };
}

describe('FC-local on OSS', () => {
  it('reports the oss store', async () => {
    expect(await (await fetch(`${fn.url}/health`)).json()).toMatchObject({ store: 'oss' });
  });

  it('runs a turn, an interrupt and its resume, keeping state only in OSS', async () => {
    const threadId = uniqueId('thread');
    const turn = await run(runBody({ threadId }));
    expect(turn.status).toBe(200);
    expect(lastEvent(await readSse(turn.response))).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const first = await run(runBody({ threadId, text: 'permission' }));
    const [interrupt] = interruptsOf(await readSse(first.response));
    expect(oss.objectKeys().some((key) => key.startsWith('agui/threads/'))).toBe(true);
    const resume = await run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }));
    expect(lastEvent(await readSse(resume.response))).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const answers = kernel.callsOf('SendStreamingMessage').filter((call) => JSON.stringify(call.params).includes(interrupt!.id));
    expect(answers).toHaveLength(1);
  });

  it("uses the request's role credentials: without them the stale environment credentials are refused (503)", async () => {
    const refused = await run(runBody(), {});
    expect(refused.status).toBe(503);
    expect(((await refused.response.json()) as { error: { code: string } }).error.code).toBe('STATE_UNAVAILABLE');
    expect(fn.lines.join('\n')).not.toContain(role.accessKeySecret);
    expect(fn.lines.join('\n')).not.toContain(role.securityToken);
    expect(fn.lines.join('\n')).not.toContain(stale.accessKeySecret);
  });
});

describe('FC-local on OSS, custom.debian11/12 credential shape', () => {
  const idAndSecretOnly = { 'x-fc-access-key-id': role.accessKeyId, 'x-fc-access-key-secret': role.accessKeySecret };

  it('uses the role’s ALIBABA_CLOUD_* when the request brings an id and secret without the token: a turn, an interrupt and its resume', async () => {
    const threadId = uniqueId('thread');
    const turn = await run(runBody({ threadId }), idAndSecretOnly, fnDebian12);
    expect(turn.status).toBe(200);
    expect(lastEvent(await readSse(turn.response))).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const first = await run(runBody({ threadId, text: 'permission' }), idAndSecretOnly, fnDebian12);
    const [interrupt] = interruptsOf(await readSse(first.response));
    expect(interrupt).toBeDefined();
    const resume = await run(runBody({ threadId, resume: [resolved(interrupt!.id, { decision: 'allow_once' })] }), idAndSecretOnly, fnDebian12);
    expect(lastEvent(await readSse(resume.response))).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(oss.objectKeys().some((key) => key.startsWith('agui/threads/'))).toBe(true);
  });

  it('uses them with no x-fc-* header at all, and still prefers a complete header set', async () => {
    const bare = await run(runBody(), {}, fnDebian12);
    expect(bare.status).toBe(200);
    expect(lastEvent(await readSse(bare.response))).toMatchObject({ type: 'RUN_FINISHED' });
    // A complete set wins over the environment: a wrong token in it is refused although the environment's is good.
    const wrongSet = await run(runBody(), { ...idAndSecretOnly, 'x-fc-security-token': 'not-the-token' }, fnDebian12);
    expect(wrongSet.status).toBe(503);
    expect(fnDebian12.lines.join('\n')).not.toContain(role.accessKeySecret);
    expect(fnDebian12.lines.join('\n')).not.toContain(role.securityToken);
  });
});

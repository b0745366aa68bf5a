/**
 * Secrets (LLM keys and headers, AccessKey secrets, STS tokens, bearer tokens — the shared one and
 * people's OIDC tokens, refused ones included) never reach the thread store, the event journal or
 * the logs (brief; docs/protocol.md §1.2, §6.10, §6.15). The user's message text is not stored
 * either: the journal keeps what the run emitted, not what it was sent.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/adapters/logger.js';
import { OidcTokenVerifier } from '../../lib/adapters/oidc/index.js';
import { ASK_GRACE, runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, resolved } from '../support/interrupts.js';
import { AUDIENCE, OTHER_AUDIENCE, startOidcProvider } from '../support/oidc-provider.js';
import { type Stack, startStack } from '../support/stack.js';

const SECRETS = {
  llmApiKey: 'sk-llm-key-SECRET-1',
  llmHeader: 'header-value-SECRET-2',
  accessKeySecret: 'ak-secret-SECRET-3',
  securityToken: 'sts-token-SECRET-4',
  authToken: 'agui-bearer-SECRET-5',
  kernelToken: 'kernel-bearer-SECRET-6',
  userText: 'private user words SECRET-7',
};

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file', config: { authToken: SECRETS.authToken }, kernelToken: SECRETS.kernelToken, emulator: { token: SECRETS.kernelToken } });
});
afterAll(async () => stack.close());

async function allStateText(dir: string): Promise<string> {
  const texts: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) texts.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  return texts.join('\n');
}

describe('secrets', () => {
  it('are sent to A2A but never written to the state directory — thread documents, event journal, due list — or the logs', async () => {
    // Arrange
    const threadId = uniqueId('thread');
    const body = runBody({
      threadId,
      text: `tools ${SECRETS.userText}`,
      iacCode: {
        llmApiKey: SECRETS.llmApiKey,
        llmHeaders: { Authorization: SECRETS.llmHeader },
        alibabaCloud: { accessKeyId: 'AKID-public', accessKeySecret: SECRETS.accessKeySecret, securityToken: SECRETS.securityToken },
      },
    });
    // Act: a turn, a rejected replay and a rejected bad token (both log lines).
    const { status } = await stack.run(body, { authorization: `Bearer ${SECRETS.authToken}` });
    await stack.post('/', body, { authorization: `Bearer ${SECRETS.authToken}` });
    await stack.post('/', body, { authorization: `Bearer wrong-${SECRETS.authToken}` });
    // Assert
    expect(status).toBe(200);
    const sent = JSON.stringify(stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params);
    expect(sent).toContain(SECRETS.llmApiKey);
    expect(sent).toContain(SECRETS.securityToken);
    const stored = await allStateText(stack.stateDir!);
    expect(stored).toContain(threadId);
    // The run's journal is in what was read: its events, and its expiry on the due list.
    expect(stored).toContain('"type":"RUN_STARTED"');
    expect(stored).toContain('"kind":"expire"');
    const logs = stack.logs.join('\n');
    expect(logs).toContain(threadId);
    for (const [name, secret] of Object.entries(SECRETS)) {
      expect(stored, `${name} in state`).not.toContain(secret);
      expect(logs, `${name} in logs`).not.toContain(secret);
    }
  });

  it('stay out of the log lines of a failed run, even when the kernel quotes one back in its error', async () => {
    // A misbehaving kernel (or proxy) that answers 502 and echoes the request's Authorization header:
    // the SDK puts the answer's body into its error message, which the run's warn line carries.
    const echo: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`bad gateway; you sent Authorization: ${req.headers.authorization}; token=${SECRETS.kernelToken}`);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const failing = await startStack({
      config: { authToken: SECRETS.authToken },
      kernelToken: SECRETS.kernelToken,
      kernelUrl: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/`,
    });
    try {
      const threadId = uniqueId('thread');
      const body = runBody({ threadId, iacCode: { llmApiKey: SECRETS.llmApiKey } });
      const { sse } = await failing.run(body, { authorization: `Bearer ${SECRETS.authToken}` });
      expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'A2A_UNAVAILABLE' });
      const logs = failing.logs.join('\n');
      // The failure is logged with what is worth reading: the HTTP status the kernel answered and the SDK's message.
      const ended = failing.logs.map((line) => JSON.parse(line)).find((record) => record.message === 'run ended' && record.threadId === threadId);
      expect(ended).toMatchObject({ level: 'warn', error: { cause: { name: 'KernelUnavailableError', status: 502, message: expect.stringContaining('bad gateway') } } });
      for (const [name, secret] of Object.entries(SECRETS)) expect(logs, `${name} in logs`).not.toContain(secret);
    } finally {
      await failing.close();
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it('people’s OIDC tokens — accepted, expired-looking, refused — reach neither the state directory nor the logs', async () => {
    const provider = await startOidcProvider();
    const verifierLogs: string[] = [];
    const tokens = new OidcTokenVerifier(
      { issuer: provider.issuer, audiences: [AUDIENCE], clients: undefined, userClaim: 'sub', console: undefined },
      { clock: Date.now, logger: createLogger((line) => verifierLogs.push(line)) },
    );
    const person = await startStack({ store: 'file', config: { authToken: SECRETS.authToken, detachGraceMs: 5_000 }, tokens });
    try {
      const alice = await provider.tokensFor('alice');
      const refused = (await provider.tokensFor('alice', { resource: OTHER_AUDIENCE })).accessToken;
      const tampered = `${alice.accessToken.slice(0, -4)}AAAA`;
      const threadId = uniqueId('thread');
      const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
      // Act: a turn that stops on a permission, its resume, a subscribe, a cancel, and refused tokens on each route.
      const turn = await person.run(runBody({ threadId, text: 'permission' }), { ...bearer(alice.accessToken), ...ASK_GRACE });
      const interruptId = interruptsOf(turn.sse)[0]?.id as string;
      const resumed = await person.run(runBody({ threadId, resume: [resolved(interruptId, { decision: 'allow_once' })] }), { ...bearer(alice.accessToken), ...ASK_GRACE });
      expect(resumed.sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
      for (const token of [refused, tampered, alice.idToken, alice.refreshToken ?? 'no-refresh-token']) {
        expect((await person.post('/', runBody({ threadId }), bearer(token))).status).toBe(401);
        expect((await person.post('/extensions/iac-code/v1/executions/x/cancel', { threadId, rosInvocationId: 'invocation-1' }, bearer(token))).status).toBe(401);
      }
      const stored = await allStateText(person.stateDir!);
      expect(stored).toContain(threadId);
      expect(stored).toContain('"type":"RUN_STARTED"');
      // The person's user id is the thread's binding — the token that proved it is not.
      expect(stored).toContain('"userId":"alice"');
      const logs = [...person.logs, ...verifierLogs].join('\n');
      expect(logs).toContain('"reason":"token_wrong_audience"');
      for (const token of [alice.accessToken, alice.idToken, alice.refreshToken ?? '', refused, tampered]) {
        if (!token) continue;
        const signature = token.split('.')[2] ?? token;
        for (const [where, text] of [
          ['state', stored],
          ['logs', logs],
        ] as const) {
          expect(text, `a token in ${where}`).not.toContain(token);
          expect(text, `a token's signature in ${where}`).not.toContain(signature);
        }
      }
      expect(logs).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    } finally {
      await person.close();
      await provider.close();
    }
  });
});

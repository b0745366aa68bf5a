/**
 * Everything decidable from the request alone is an HTTP JSON error before the stream, in the
 * place docs/protocol.md §2.3 gives it, in the request's language, naming the failing fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG_1x1, runBody } from '../support/fixtures.js';
import { photoLikePng } from '../support/images.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
const TOKEN = 'agui-secret-token';
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  stack = await startStack({ config: { authToken: TOKEN, allowedRoots: ['/workspace', '/srv/iac'] } });
});
afterAll(async () => stack.close());

async function expectError(response: Response, status: number, code: string): Promise<{ code: string; message: string; details?: Array<{ path: string; message: string }> }> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string; details?: Array<{ path: string; message: string }> } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  return body.error;
}

function paths(error: { details?: Array<{ path: string }> }): string[] {
  return (error.details ?? []).map((detail) => detail.path);
}

describe('GET /health', () => {
  it('is open and reports versions and the store, revealing no URL or token', async () => {
    const response = await fetch(`${stack.url}/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ status: 'ok', protocol: 'ag-ui', protocolPackageVersion: '1.0.0', executionKernel: 'a2a-1.0', serverVersion: expect.any(String), store: 'memory' });
    expect(JSON.stringify(body)).not.toMatch(/http|token|127\.0\.0\.1/);
  });
});

describe('routing', () => {
  it('answers 404 NOT_FOUND for unknown paths and 405 METHOD_NOT_ALLOWED with Allow for wrong methods', async () => {
    await expectError(await fetch(`${stack.url}/nope`), 404, 'NOT_FOUND');
    const wrong = await fetch(`${stack.url}/`, { method: 'GET' });
    expect(wrong.headers.get('allow')).toBe('POST');
    await expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
    await expectError(await fetch(`${stack.url}/health`, { method: 'POST' }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers routing errors in the Accept-Language, and a malformed execution id as 404', async () => {
    const german = await expectError(await fetch(`${stack.url}/nope`, { headers: { 'accept-language': 'de-DE' } }), 404, 'NOT_FOUND');
    expect(german.message).toBe('Die angeforderte Ressource wurde nicht gefunden.');
    await expectError(await stack.post('/extensions/iac-code/v1/executions/%E0%A4%A/cancel', { threadId: 't', rosInvocationId: 'r' }, auth), 404, 'NOT_FOUND');
  });
});

describe('authentication', () => {
  it('rejects a missing or wrong bearer token with 401, in the Accept-Language with the highest q', async () => {
    const missing = await stack.post('/', runBody(), { 'accept-language': 'ja-JP, en;q=0.5' });
    expect((await expectError(missing, 401, 'UNAUTHORIZED')).message).toBe('有効な Bearer トークンが必要です。');
    const wrong = await stack.post('/', runBody(), { authorization: 'Bearer nope', 'accept-language': 'zh;q=0, en;q=0.2, ja;q=1' });
    expect((await expectError(wrong, 401, 'UNAUTHORIZED')).message).toBe('有効な Bearer トークンが必要です。');
    const basic = await stack.post('/', runBody(), { authorization: `Basic ${TOKEN}` });
    expect((await expectError(basic, 401, 'UNAUTHORIZED')).message).toBe('A valid bearer token is required.');
  });

  it('accepts the scheme in any case', async () => {
    const response = await stack.post('/', runBody(), { authorization: `bEaReR ${TOKEN}` });
    expect(response.status).toBe(200);
    await response.text();
  });
});

describe('transport checks', () => {
  it('needs application/json (parameters allowed)', async () => {
    await expectError(await stack.post('/', runBody(), { ...auth, 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const withCharset = await stack.post('/', runBody(), { ...auth, 'content-type': 'Application/JSON; charset=utf-8' });
    expect(withCharset.status).toBe(200);
    await withCharset.text();
  });

  it('rejects a body over 12 MiB with 413, by Content-Length and while reading a chunked body', async () => {
    const big = JSON.stringify(runBody({ text: 'x'.repeat(12 * 1024 * 1024) }));
    await expectError(await stack.post('/', big, auth), 413, 'REQUEST_TOO_LARGE');
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        const piece = new TextEncoder().encode('x'.repeat(1024 * 1024));
        for (let i = 0; i < 13; i += 1) controller.enqueue(piece);
        controller.close();
      },
    });
    const streamed = await fetch(`${stack.url}/`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: chunks, duplex: 'half' } as RequestInit);
    await expectError(streamed, 413, 'REQUEST_TOO_LARGE');
  });

  it('answers INVALID_JSON for a body that is not JSON and INVALID_INPUT for a non-object', async () => {
    await expectError(await stack.post('/', '{"threadId":', auth), 400, 'INVALID_JSON');
    const array = await expectError(await stack.post('/', '[1,2]', auth), 400, 'INVALID_INPUT');
    expect(array.message).toBe('RunAgentInput must be a JSON object.');
  });
});

describe('RunAgentInput validation', () => {
  it('names every missing envelope field, in the preferredLanguage even when the envelope is invalid', async () => {
    const body = runBody({ iacCode: { preferredLanguage: 'zh-CN' } });
    delete body['threadId'];
    delete body['context'];
    const error = await expectError(await stack.post('/', body, auth), 400, 'INVALID_INPUT');
    expect(error.message).toBe('无效的 AG-UI RunAgentInput 信封。');
    expect(paths(error)).toEqual(expect.arrayContaining(['threadId', 'context']));
  });

  it('accepts protocolVersion, unknown top-level keys, every message role and other forwardedProps keys', async () => {
    const body = runBody({ extra: { protocolVersion: '1.0', somethingNew: { a: 1 } } });
    body['messages'] = [
      { id: 's', role: 'system', content: 'sys' },
      { id: 'd', role: 'developer', content: 'dev' },
      { id: 'a', role: 'assistant', content: 'hi', toolCalls: [] },
      { id: 't', role: 'tool', content: 'r', toolCallId: 'x' },
      { id: 'r', role: 'reasoning', content: 'thought' },
      { id: 'ac', role: 'activity', activityType: 'x', content: {} },
      { id: 'u', role: 'user', content: 'latest' },
    ];
    (body['forwardedProps'] as Record<string, unknown>)['otherClient'] = { ignored: true };
    const response = await stack.post('/', body, auth);
    expect(response.status).toBe(200);
    await response.text();
  });

  it('rejects unknown iacCode fields and bad types (the guidance fields included), naming them', async () => {
    const body = runBody({
      iacCode: { handoffTarget: 'x', activeGuidance: 'yes', guidanceId: '', schemaVersion: 2, thinking: { enabled: 'yes', budget: -1 }, runMode: 'fast' },
    });
    const error = await expectError(await stack.post('/', body, auth), 400, 'INVALID_INPUT');
    expect(error.message).toBe('Invalid iac-code forwarded properties.');
    expect(paths(error)).toEqual(
      expect.arrayContaining([
        'forwardedProps.iacCode.handoffTarget',
        'forwardedProps.iacCode.activeGuidance',
        'forwardedProps.iacCode.guidanceId',
        'forwardedProps.iacCode.schemaVersion',
        'forwardedProps.iacCode.thinking.enabled',
        'forwardedProps.iacCode.thinking.budget',
        'forwardedProps.iacCode.runMode',
      ]),
    );
  });

  it('requires iacCode, rosInvocationId ≤ 256 and a cwd; llmHeaders must map strings to strings', async () => {
    const noIac = runBody();
    noIac['forwardedProps'] = {};
    expect(paths(await expectError(await stack.post('/', noIac, auth), 400, 'INVALID_INPUT'))).toContain('forwardedProps.iacCode');
    const long = await expectError(await stack.post('/', runBody({ iacCode: { rosInvocationId: 'r'.repeat(257), llmHeaders: { a: 1 } } }), auth), 400, 'INVALID_INPUT');
    expect(paths(long)).toEqual(expect.arrayContaining(['forwardedProps.iacCode.rosInvocationId', 'forwardedProps.iacCode.llmHeaders.a']));
  });

  it('rejects non-empty tools', async () => {
    const error = await expectError(await stack.post('/', runBody({ extra: { tools: [{ name: 'x', description: 'x', parameters: {} }] } }), auth), 400, 'INVALID_INPUT');
    expect(paths(error)).toEqual(['tools']);
  });

  it('checks cwd lexically: absolute, no "..", inside the allowed roots', async () => {
    const relative = await expectError(await stack.post('/', runBody({ iacCode: { cwd: 'workspace/a' } }), auth), 400, 'INVALID_INPUT');
    expect(paths(relative)).toEqual(['forwardedProps.iacCode.cwd']);
    await expectError(await stack.post('/', runBody({ iacCode: { cwd: '/workspace/../etc' } }), auth), 400, 'INVALID_INPUT');
    const outside = await expectError(await stack.post('/', runBody({ iacCode: { cwd: '/workspace-evil/a' } }), auth), 400, 'INVALID_INPUT');
    expect(outside.message).toBe('The workspace is outside the allowed roots.');
    const inside = await stack.post('/', runBody({ iacCode: { cwd: '/srv/iac//team/./a/' } }), auth);
    expect(inside.status).toBe(200);
    await inside.text();
  });

  it('needs a user message on a new run', async () => {
    const body = runBody();
    body['messages'] = [{ id: 'a', role: 'assistant', content: 'hi' }];
    const error = await expectError(await stack.post('/', body, auth), 400, 'INVALID_INPUT');
    expect(error.message).toBe('A new run requires a user message.');
  });
});

describe('user content', () => {
  const image = (mimeType: string, value: string, sourceType = 'data') => ({ type: 'image', source: { type: sourceType, mimeType, value } });

  it('rejects remote URLs, audio, documents, generic binaries and binary parts without inline data', async () => {
    const remote = await expectError(await stack.post('/', runBody({ content: [image('image/png', 'https://x/y.png', 'url')] }), auth), 400, 'INVALID_INPUT');
    expect(remote.message).toBe('Remote media URLs are not supported.');
    expect(paths(remote)).toEqual(['messages[0].content[0].source']);
    for (const part of [
      { type: 'audio', source: { type: 'data', mimeType: 'audio/wav', value: 'AAAA' } },
      { type: 'document', source: { type: 'data', mimeType: 'application/pdf', value: 'AAAA' } },
      { type: 'binary', mimeType: 'application/zip', data: 'AAAA' },
      { type: 'binary', mimeType: 'image/png', id: 'file-1' },
    ]) {
      const error = await expectError(await stack.post('/', runBody({ content: [part] }), auth), 400, 'INVALID_INPUT');
      expect(error.message).toBe('Only text and inline data images are supported.');
    }
    const binaryUrl = await expectError(await stack.post('/', runBody({ content: [{ type: 'binary', mimeType: 'image/png', url: 'https://x' }] }), auth), 400, 'INVALID_INPUT');
    expect(binaryUrl.message).toBe('Remote media URLs are not supported.');
  });

  it('rejects unsupported declared image types, non-strict base64 and data that does not decode as an image', async () => {
    await expectError(await stack.post('/', runBody({ content: [image('image/bmp', PNG_1x1)] }), auth), 400, 'INVALID_INPUT');
    await expectError(await stack.post('/', runBody({ content: [image('image/png', `${PNG_1x1.slice(0, 10)} ${PNG_1x1.slice(10)}`)] }), auth), 400, 'INVALID_INPUT');
    await expectError(await stack.post('/', runBody({ content: [image('image/png', `data:image/png;base64,${PNG_1x1}`)] }), auth), 400, 'INVALID_INPUT');
    const undecodable = await expectError(await stack.post('/', runBody({ content: [{ type: 'text', text: 'x' }, image('image/jpeg', 'AAAAAAAA')] }), auth), 400, 'INVALID_INPUT');
    expect(undecodable.message).toBe('The image is not valid inline base64 data of a supported type.');
    expect(paths(undecodable)).toEqual(['messages[0].content[1]']);
  });

  it('limits images to 8 MiB each', async () => {
    const bytes = (size: number) => {
      const buffer = Buffer.alloc(size);
      Buffer.from(PNG_1x1, 'base64').copy(buffer);
      return buffer.toString('base64');
    };
    const tooBig = await expectError(await stack.post('/', runBody({ content: [image('image/png', bytes(8 * 1024 * 1024 + 3))] }), auth), 400, 'INVALID_INPUT');
    expect(tooBig.message).toBe('An image exceeds the size limit.');
    expect(paths(tooBig)).toEqual(['messages[0].content[0]']);
  });

  it('takes an 8 MiB photo-like PNG and sends the kernel its downsampled version', async () => {
    const png = photoLikePng(1670, 1670);
    expect(png.length).toBeGreaterThan(7.9 * 1024 * 1024);
    const body = runBody({ content: [{ type: 'text', text: 'look' }, image('image/png', png.toString('base64'))] });
    const { sse } = await stack.run(body, auth);
    expect(sse.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    const sent = stack.emulator.callsOf('SendStreamingMessage').at(-1)?.params as { message: { parts: Array<{ data?: { bytes: string }; mediaType?: string }> } };
    const part = sent.message.parts[1];
    expect(Buffer.from(part?.data?.bytes ?? '', 'base64').length).toBeLessThanOrEqual(3_932_160);
    expect(part?.mediaType).toBe('image/jpeg');
  });
});

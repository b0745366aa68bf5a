/**
 * Hostile input through real HTTP on the file store (docs/protocol.md §1.4, §2.3, §6.2, §6.11):
 * deep JSON, ids that are too long or not well-formed UTF-16, run ids that are names of
 * Object.prototype, `__proto__` keys in the body, and charsets other than UTF-8. Each is a clear
 * 4xx naming what is wrong, never a 500 or a thread that answers 503 forever.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iacCode, runBody, uniqueId } from '../support/fixtures.js';
import { interruptsOf, resolved, sessionValue } from '../support/interrupts.js';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ store: 'file' });
});
afterAll(async () => stack.close());

interface ErrorBody {
  code: string;
  message: string;
  details?: Array<{ path: string; message: string }>;
}

async function errorOf(response: Response): Promise<ErrorBody & { status: number }> {
  const body = (await response.json()) as { error: ErrorBody };
  return { status: response.status, ...body.error };
}

const paths = (error: ErrorBody) => (error.details ?? []).map((detail) => detail.path);

/** `{"a":{"a":…1…}}` nested `levels` objects deep, as JSON text. */
function nestedObjectJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** A run body as JSON text with `field`'s value replaced by raw JSON text. */
function bodyWithRaw(body: Record<string, unknown>, field: string, rawJson: string): string {
  const marker = '"__raw_marker__"';
  return JSON.stringify({ ...body, [field]: '__raw_marker__' }).replace(marker, rawJson);
}

async function lastEventType(body: unknown): Promise<string | undefined> {
  const result = await stack.run(body);
  expect(result.status).toBe(200);
  return result.sse.events.at(-1)?.type;
}

describe('deep JSON (defect 1)', () => {
  it('refuses a few thousand levels in state, in a message or in other forwardedProps with 400 INVALID_INPUT naming the field', async () => {
    const deep = nestedObjectJson(5_000);
    const inState = await errorOf(await stack.post('/', bodyWithRaw(runBody(), 'state', deep)));
    expect(inState).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(inState)).toEqual(['state.a']);

    const message = JSON.stringify({ id: 'm1', role: 'user', content: 'hi', extra: '__raw_marker__' }).replace('"__raw_marker__"', deep);
    const inMessage = await errorOf(await stack.post('/', bodyWithRaw(runBody(), 'messages', `[${message}]`)));
    expect(inMessage).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(inMessage)).toEqual(['messages[0]']);

    const forwarded = `{"iacCode":${JSON.stringify(iacCode())},"other":${deep}}`;
    const inForwarded = await errorOf(await stack.post('/', bodyWithRaw(runBody(), 'forwardedProps', forwarded)));
    expect(inForwarded).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(inForwarded)).toEqual(['forwardedProps.other']);
  });

  it('refuses deep arrays too, and a deep cancel body', async () => {
    const arrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(await errorOf(await stack.post('/', bodyWithRaw(runBody(), 'context', arrays)))).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    const cancel = `{"threadId":"t","rosInvocationId":"r","x":${nestedObjectJson(5_000)}}`;
    const refused = await errorOf(await stack.post('/extensions/iac-code/v1/executions/e1/cancel', cancel));
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(refused)).toEqual(['x.a']);
  });

  it('accepts exactly 256 levels (the body counts as one) and refuses 257', async () => {
    // The body is level 1 and `state` level 2, so state's own nesting adds 254 or 255 more.
    expect(await lastEventType(bodyWithRaw(runBody(), 'state', nestedObjectJson(255)))).toBe('RUN_FINISHED');
    const over = await errorOf(await stack.post('/', bodyWithRaw(runBody(), 'state', nestedObjectJson(256))));
    expect(over).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  });
});

describe('thread ids longer than a file name (defect 2)', () => {
  it('serves a 210-character lower-case threadId, stored under a hashed key of at most 200 characters', async () => {
    const threadId = `t${'a'.repeat(209)}`;
    expect(await lastEventType(runBody({ threadId }))).toBe('RUN_FINISHED');
    expect(await lastEventType(runBody({ threadId }))).toBe('RUN_FINISHED');
    const files = await readdir(join(stack.stateDir!, 'threads'));
    expect(files.filter((name) => name.startsWith('aguihash~')).length).toBeGreaterThan(0);
    expect(Math.max(...files.map((name) => name.length))).toBeLessThanOrEqual(205);
  });

  it('refuses threadId and runId over 1,024 characters, and accepts 1,024', async () => {
    expect(await lastEventType(runBody({ threadId: 'a'.repeat(1_024), runId: 'r'.repeat(1_024) }))).toBe('RUN_FINISHED');
    const longThread = await errorOf(await stack.post('/', runBody({ threadId: 'a'.repeat(1_025) })));
    expect(longThread).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(longThread)).toEqual(['threadId']);
    const longRun = await errorOf(await stack.post('/', runBody({ runId: 'r'.repeat(1_025) })));
    expect(paths(longRun)).toEqual(['runId']);
  });

  it('refuses a cwd over 4,096 characters or with a NUL', async () => {
    const long = await errorOf(await stack.post('/', runBody({ iacCode: { cwd: `/${'w'.repeat(4_096)}` } })));
    expect(long).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(long)).toEqual(['forwardedProps.iacCode.cwd']);
    const nul = await errorOf(await stack.post('/', runBody({ iacCode: { cwd: '/workspace/a\u0000b' } })));
    expect(paths(nul)).toEqual(['forwardedProps.iacCode.cwd']);
    expect(await lastEventType(runBody({ iacCode: { cwd: `/${'w'.repeat(4_095)}` } }))).toBe('RUN_FINISHED');
  });
});

describe('lone UTF-16 surrogates in identity fields (defect 3)', () => {
  it('keeps "x\\ufffdy" a thread of its own and refuses the ids with lone surrogates that UTF-8 would turn into it', async () => {
    const prefix = uniqueId('s');
    expect(await lastEventType(runBody({ threadId: `${prefix}x\ufffdy` }))).toBe('RUN_FINISHED');
    for (const threadId of [`${prefix}x\ud800y`, `${prefix}x\udbffy`, `${prefix}x\udc00`]) {
      const refused = await errorOf(await stack.post('/', runBody({ threadId })));
      expect(refused).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      expect(paths(refused)).toEqual(['threadId']);
    }
    // A well-formed pair is fine.
    expect(await lastEventType(runBody({ threadId: `${prefix}x\ud83d\ude00y` }))).toBe('RUN_FINISHED');
  });

  it('names every identity field that holds one: runId, parentRunId, the user message id, rosInvocationId, userId, cwd', async () => {
    const body = runBody({ runId: 'r\ud800', iacCode: { rosInvocationId: 'i\udfff', userId: '\ud800', cwd: '/w/\udc00' }, extra: { parentRunId: 'p\ud800' } });
    (body['messages'] as Array<Record<string, unknown>>)[0]!['id'] = 'm\ud801';
    const refused = await errorOf(await stack.post('/', body));
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(refused)).toEqual(expect.arrayContaining(['runId', 'parentRunId']));
    const iac = await errorOf(await stack.post('/', runBody({ iacCode: { rosInvocationId: 'i\udfff', userId: '\ud800', cwd: '/w/\udc00' } })));
    expect(paths(iac)).toEqual(expect.arrayContaining(['forwardedProps.iacCode.rosInvocationId', 'forwardedProps.iacCode.userId', 'forwardedProps.iacCode.cwd']));
    const message = runBody();
    (message['messages'] as Array<Record<string, unknown>>)[0]!['id'] = 'm\ud801';
    expect(paths(await errorOf(await stack.post('/', message)))).toEqual(['messages[0].id']);
  });

  it('refuses them in resume interrupt ids and in the cancel body', async () => {
    const resume = await errorOf(await stack.post('/', runBody({ resume: [resolved('i\ud800', { decision: 'allow_once' })] })));
    expect(resume).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(resume)).toEqual(['resume[0].interruptId']);
    const cancel = await errorOf(await stack.post('/extensions/iac-code/v1/executions/e1/cancel', { threadId: 't\ud800', rosInvocationId: 'r\udc00' }));
    expect(cancel).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(paths(cancel)).toEqual(['threadId', 'rosInvocationId']);
  });
});

describe('request keys that are names of Object.prototype (defect 4)', () => {
  const PROTOTYPE_NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'];

  it('admits runIds named like Object.prototype members on an existing thread, and remembers each of them', async () => {
    const threadId = uniqueId('thread');
    expect(await lastEventType(runBody({ threadId }))).toBe('RUN_FINISHED');
    const bodies = PROTOTYPE_NAMES.map((runId) => runBody({ threadId, runId }));
    for (const body of bodies) expect(await lastEventType(body)).toBe('RUN_FINISHED');
    for (const body of bodies) expect(await errorOf(await stack.post('/', body))).toMatchObject({ status: 409, code: 'DUPLICATE_RUN_ID' });
  });

  it('counts a "__proto__" key of the body in the request digest', async () => {
    const threadId = uniqueId('thread');
    const body = runBody({ threadId });
    expect(await lastEventType(body)).toBe('RUN_FINISHED');
    // JSON.parse makes "__proto__" an own key; a body that differs only by it is another request.
    const withProto = `${JSON.stringify(body).slice(0, -1)},"__proto__":{"x":1}}`;
    expect(await errorOf(await stack.post('/', withProto))).toMatchObject({ status: 409, code: 'RUN_ID_CONFLICT' });
    const second = JSON.stringify(runBody({ threadId, extra: { state: { a: 1 } } }));
    expect(await lastEventType(second)).toBe('RUN_FINISHED');
    const nestedProto = second.replace('"state":{"a":1}', '"state":{"a":1,"__proto__":{"b":2}}');
    expect(nestedProto).not.toBe(second);
    expect(await errorOf(await stack.post('/', nestedProto))).toMatchObject({ status: 409, code: 'RUN_ID_CONFLICT' });
  });

  it('answers a cancel of an execution named like an Object.prototype member with 404', async () => {
    const threadId = uniqueId('thread');
    const first = await stack.run(runBody({ threadId, text: 'permission' }));
    expect(interruptsOf(first.sse)).toHaveLength(1);
    expect(sessionValue(first.sse)).toBeDefined();
    for (const executionId of PROTOTYPE_NAMES) {
      const response = await stack.post(`/extensions/iac-code/v1/executions/${executionId}/cancel`, { threadId, rosInvocationId: 'invocation-1' });
      expect(await errorOf(response)).toMatchObject({ status: 404, code: 'EXECUTION_NOT_FOUND' });
    }
  });
});

describe('charset', () => {
  it('refuses a charset other than UTF-8 with 415 and accepts the labels of UTF-8', async () => {
    for (const contentType of ['application/json; charset=iso-8859-1', 'application/json;charset=utf-16', 'application/json; charset="latin1"', 'application/json; charset=']) {
      const refused = await errorOf(await stack.post('/', runBody(), { 'content-type': contentType }));
      expect(refused).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(refused.message).toMatch(/UTF-8/);
    }
    for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"', 'application/json; charset=utf8', 'application/json; foo=bar']) {
      const accepted = await stack.post('/', runBody(), { 'content-type': contentType });
      expect(accepted.status).toBe(200);
      await accepted.text();
    }
  });
});

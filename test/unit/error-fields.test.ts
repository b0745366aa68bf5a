/**
 * errorFields (lib/core/error-fields.ts; docs/architecture.md §5): any thrown value becomes log
 * fields — name, code, message, stack, the ids adapters attach, the cause chain — bounded, cycle
 * safe, and blind to everything else an error carries.
 */
import { describe, expect, it } from 'vitest';
import { errorFields, errorSummary, MAX_CAUSE_DEPTH } from '../../lib/core/error-fields.js';
import { AdapterError } from '../../lib/core/errors.js';
import { KernelRpcError, KernelUnavailableError, StoreUnavailableError } from '../../lib/core/ports.js';
import { RunFailure } from '../../lib/core/run/run-failure.js';
import { Secret } from '../../lib/core/secret.js';

describe('errorFields', () => {
  it('follows the cause chain with each error’s name, code, message and stack', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const fetchFailed = new TypeError('fetch failed', { cause: refused });
    const kernel = new KernelUnavailableError('fetch failed', { cause: fetchFailed });
    const failure = new RunFailure('A2A_UNAVAILABLE', 'a2aUnavailable', true, { cause: kernel });

    const fields = errorFields(failure);

    expect(fields).toMatchObject({
      name: 'RunFailure',
      code: 'A2A_UNAVAILABLE',
      message: 'A2A_UNAVAILABLE: a2aUnavailable',
      cause: { name: 'KernelUnavailableError', message: 'fetch failed', cause: { name: 'TypeError', cause: { name: 'Error', code: 'ECONNREFUSED' } } },
    });
    expect(fields.stack).toContain('error-fields.test.ts');
    expect(fields.cause?.stack).toMatch(/^KernelUnavailableError: fetch failed\n\s+at /);
  });

  it('reads the codes and ids adapters attach: AdapterError and JSON-RPC codes, HTTP status, store kind, OSS request id', () => {
    const oss = Object.assign(new Error('OSS PutObject failed: HTTP 403 AccessDenied'), {
      name: 'OssRequestError',
      operation: 'PutObject',
      kind: 'rejected',
      status: 403,
      code: 'AccessDenied',
      requestId: '5C3D9175B6FC201293AD4890',
    });
    const store = new StoreUnavailableError('Cannot write thread state', { cause: oss });
    const admission = new AdapterError('STATE_UNAVAILABLE', 'stateUnavailable', undefined, { cause: store });

    expect(errorFields(admission)).toMatchObject({
      code: 'STATE_UNAVAILABLE',
      cause: {
        name: 'StoreUnavailableError',
        kind: 'unavailable',
        cause: { name: 'OssRequestError', operation: 'PutObject', kind: 'rejected', status: 403, code: 'AccessDenied', requestId: '5C3D9175B6FC201293AD4890' },
      },
    });
    expect(errorFields(new KernelRpcError('Task not found', -32001, { id: 't' }))).toMatchObject({ name: 'KernelRpcError', code: -32001 });
    expect(errorFields(new KernelUnavailableError('pipeline state answered HTTP 502', { status: 502 }))).toMatchObject({ status: 502 });
  });

  it('copies nothing else an error carries (vendor parameters, headers, Secrets)', () => {
    const error = Object.assign(new Error('rejected'), {
      params: { accessKeySecret: 'ak-SECRET-1' },
      headers: { authorization: 'Bearer SECRET-2' },
      token: new Secret('SECRET-3'),
      data: 'SECRET-4',
    });
    const text = JSON.stringify(errorFields(error));
    expect(text).toContain('rejected');
    expect(text).not.toMatch(/SECRET/);
  });

  it('describes thrown values that are not errors', () => {
    expect(errorFields('plain text')).toEqual({ name: 'string', message: 'plain text' });
    expect(errorFields(undefined)).toEqual({ name: 'undefined', message: 'undefined' });
    expect(errorFields(new Secret('SECRET-5'))).toMatchObject({ message: '' });
    expect(JSON.stringify(errorFields(new Secret('SECRET-5')))).not.toContain('SECRET-5');
    expect(errorFields({ code: 'E_OBJ', message: 'an object was thrown' })).toEqual({ name: 'thrown object', code: 'E_OBJ', message: 'an object was thrown' });
  });

  it('is safe against cycles and bounds the depth of the chain', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    const cyclic = errorFields(b);
    expect(cyclic.cause?.message).toBe('a');
    expect(cyclic.cause?.cause?.name).toBe('[circular]');
    expect(() => JSON.stringify(cyclic)).not.toThrow();

    let deep: Error = new Error('root');
    for (let i = 0; i < 50; i += 1) deep = new Error(`level ${i}`, { cause: deep });
    let depth = 0;
    let last = errorFields(deep);
    while (last.cause) {
      last = last.cause;
      depth += 1;
    }
    expect(depth).toBe(MAX_CAUSE_DEPTH);
    expect(last.name).toBe('[truncated]');
  });

  it('keeps the first errors of an AggregateError and clips huge messages', () => {
    const aggregate = new AggregateError(
      [Object.assign(new Error('connect ECONNREFUSED ::1:1'), { code: 'ECONNREFUSED' }), new Error('connect ECONNREFUSED 127.0.0.1:1')],
      'all failed',
    );
    expect(errorFields(aggregate).errors?.map((inner) => inner.message)).toEqual(['connect ECONNREFUSED ::1:1', 'connect ECONNREFUSED 127.0.0.1:1']);
    const huge = errorFields(new Error('x'.repeat(100_000)));
    expect(huge.message.length).toBeLessThan(2_100);
    expect(huge.message).toMatch(/more characters\]$/);
  });

  it('never throws, even on an error whose getters do', () => {
    const hostile = new Error('hostile');
    Object.defineProperty(hostile, 'code', {
      get() {
        throw new Error('no');
      },
    });
    expect(errorFields(hostile)).toMatchObject({ name: 'Error', message: 'hostile' });
  });
});

describe('errorSummary', () => {
  it('puts the chain on one line, outermost first', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const summary = errorSummary(new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', cause: refused }) }));
    expect(summary).toBe('TypeError: fetch failed ← Error: socket hang up [ECONNRESET] ← Error: connect ECONNREFUSED 127.0.0.1:1');
  });
});

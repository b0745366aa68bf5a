/**
 * The JSON-lines logger (lib/adapters/logger.ts; docs/architecture.md §5): the level filter, and
 * redaction that also covers logged errors — a credential in an error's message or cause, under a
 * sensitive key or as a Secret never reaches a line.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from '../../lib/adapters/logger.js';
import { errorFields } from '../../lib/core/error-fields.js';
import { Secret } from '../../lib/core/secret.js';

function capture(level?: LogLevel) {
  const lines: string[] = [];
  const logger = createLogger((line) => lines.push(line), { instance: 'i-1' }, level);
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('logger levels', () => {
  it('writes info and above by default, and exactly the chosen level and above otherwise', () => {
    const written = (level?: LogLevel) => {
      const { logger, records } = capture(level);
      const child = logger.child({ runId: 'r' });
      child.debug('d');
      child.info('i');
      child.warn('w');
      child.error('e');
      return records().map((record) => record['level']);
    };
    expect(written()).toEqual(['info', 'warn', 'error']);
    expect(written('debug')).toEqual(['debug', 'info', 'warn', 'error']);
    expect(written('warn')).toEqual(['warn', 'error']);
    expect(written('error')).toEqual(['error']);
  });

  it('keeps base and child fields on every line', () => {
    const { logger, records } = capture();
    logger.child({ runId: 'r-1' }).warn('run ended', { code: 'A2A_UNAVAILABLE' });
    expect(records()[0]).toMatchObject({ level: 'warn', message: 'run ended', instance: 'i-1', runId: 'r-1', code: 'A2A_UNAVAILABLE' });
  });
});

describe('logger redaction of errors', () => {
  it('leaks no credential carried by a logged error chain', () => {
    const { logger, lines, records } = capture();
    const inner = Object.assign(new Error('upstream said: Authorization: Bearer kernel-bearer-SECRET-1 was refused; retry with token=sts-SECRET-2&x=1'), {
      requestId: 'REQ-1',
      accessKeySecret: 'ak-SECRET-3',
    });
    const outer = new Error('HTTP error for SendMessage! Status: 401 Unauthorized. Response: {"api_key":"sk-SECRET-4"}', { cause: inner });
    logger.warn('run ended', {
      error: errorFields(outer),
      // The same error passed raw, a Secret, and credentials under sensitive keys: all defended.
      raw: outer,
      kernelToken: new Secret('kernel-bearer-SECRET-1'),
      nested: { credentials: { accessKeySecret: 'ak-SECRET-3' }, header: new Secret('llm-SECRET-5') },
    });
    const text = lines.join('\n');
    expect(text).not.toMatch(/SECRET/);
    const [record] = records();
    // What is worth reading survives: names, messages with the credential cut out, ids, stacks.
    expect(record).toMatchObject({
      error: { name: 'Error', cause: { requestId: 'REQ-1', message: expect.stringContaining('Bearer [redacted] was refused') } },
      raw: { name: 'Error', message: expect.stringContaining('Status: 401') },
      kernelToken: '[redacted]',
    });
    // The stack is there, pointing at this file.
    expect((record?.['error'] as { stack?: string }).stack).toContain('logger.test.ts');
  });

  it('cuts a too-deep structure off instead of writing it unredacted', () => {
    const { logger, lines } = capture();
    let deep: Record<string, unknown> = { password: 'pw-SECRET-6' };
    for (let i = 0; i < 40; i += 1) deep = { inner: deep };
    logger.info('deep', { deep });
    expect(lines[0]).not.toContain('SECRET');
    expect(lines[0]).toContain('[truncated]');
  });
});

/**
 * The kernel's reason on a RUN_ERROR (docs/protocol.md §2.4): one line, bounded, every secret of the
 * request and every credential-looking token cut out, the error id only when it looks like one, and
 * the sentence around it in the request's language, the reason quoted as it is.
 */
import { describe, expect, it } from 'vitest';
import type { IacCodeProps } from '../../lib/core/protocol/schemas.js';
import { failureMessage } from '../../lib/core/run/failure-message.js';
import { kernelReason, MAX_REASON_CHARS, secretsOf } from '../../lib/core/run/kernel-reason.js';
import { RunFailure } from '../../lib/core/run/run-failure.js';

const failed = (text: string | undefined, errorId?: string) =>
  new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', false, { kernelReason: kernelReason({ text, errorId }, []) });

describe('kernelReason', () => {
  it('cuts out every secret the request carries, the longest first', () => {
    const iacCode = {
      schemaVersion: 1,
      rosInvocationId: 'r',
      cwd: '/w',
      llmApiKey: 'my-provider-key-123',
      alibabaCloud: { accessKeyId: 'LTAIexampleid', accessKeySecret: 'ak-secret-value-xyz', securityToken: 'sts-token-value-abc' },
      llmHeaders: { 'X-Custom': 'header-secret-42', short: 'abc' },
    } as unknown as IacCodeProps;
    const secrets = secretsOf(iacCode);
    expect(secrets).toEqual(expect.arrayContaining(['my-provider-key-123', 'ak-secret-value-xyz', 'sts-token-value-abc', 'header-secret-42']));
    expect(secrets).not.toContain('abc');
    const reason = kernelReason({ text: 'key my-provider-key-123 rejected; ak-secret-value-xyz, sts-token-value-abc and header-secret-42 too', errorId: undefined }, secrets);
    expect(reason?.text).toBe('key [redacted] rejected; [redacted], [redacted] and [redacted] too');
  });

  it('cuts out credentials it cannot know: bearer tokens, key=value, provider keys, STS tokens', () => {
    const reason = kernelReason(
      { text: 'Authorization: Bearer eyJhbGciOi.payload.sig api_key=abc123 sk-proj-0123456789abcdef STS.NUx1234567890abcdefghij', errorId: undefined },
      [],
    );
    expect(reason?.text).not.toMatch(/eyJhbGciOi|abc123|sk-proj|STS\.NUx/);
    expect(reason?.text).toContain('[redacted]');
  });

  it('makes one line without control characters, at most 500 characters', () => {
    const reason = kernelReason({ text: `first\nsecond\t\u0000third ${'x'.repeat(2_000)}`, errorId: undefined }, []);
    expect(reason?.text?.startsWith('first second third x')).toBe(true);
    expect(Array.from(reason?.text ?? '')).toHaveLength(MAX_REASON_CHARS);
    expect(reason?.text?.endsWith('…')).toBe(true);
  });

  it('keeps an error id only when it looks like one, and nothing when there is nothing', () => {
    expect(kernelReason({ text: 'x', errorId: '3e7c17ff7f29' }, [])?.errorId).toBe('3e7c17ff7f29');
    expect(kernelReason({ text: 'x', errorId: 'not an id <script>' }, [])?.errorId).toBeUndefined();
    expect(kernelReason({ text: '  ', errorId: undefined }, [])).toBeUndefined();
    expect(kernelReason(undefined, [])).toBeUndefined();
  });
});

describe('failureMessage', () => {
  it('frames the reason and error id in the request’s language, the reason quoted as it is', () => {
    expect(failureMessage(failed('Provider down', 'abc123'), 'en')).toBe('The A2A execution failed. The kernel reported: Provider down (error id abc123)');
    expect(failureMessage(failed('Provider down', 'abc123'), 'es')).toBe('La ejecución A2A falló. El kernel informó: Provider down (id de error: abc123)');
    expect(failureMessage(failed('Provider down', 'abc123'), 'zh')).toBe('A2A 执行失败。内核报告：Provider down（错误 ID：abc123）');
    expect(failureMessage(failed("costs $& and {reason} {'a': 1}"), 'en')).toBe("The A2A execution failed. The kernel reported: costs $& and {reason} {'a': 1}");
  });

  it('says only the sentence when the kernel gave no reason, and the id alone when that is all', () => {
    expect(failureMessage(new RunFailure('A2A_EXECUTION_FAILED', 'a2aExecutionFailed', false), 'en')).toBe('The A2A execution failed.');
    expect(failureMessage(failed(undefined, 'abc123'), 'en')).toBe('The A2A execution failed. (error id abc123)');
    expect(failureMessage(new RunFailure('CANCELLED', 'cancelled', false), 'fr')).toBe("L'exécution a été annulée.");
  });
});

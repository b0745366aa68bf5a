/**
 * OSS credentials (docs/protocol.md §9.4): in Function Compute the function's role credentials may
 * arrive on a request as `x-fc-access-key-id`, `x-fc-access-key-secret`, `x-fc-security-token`;
 * they rotate, so a complete set of the three wins. Only a complete set counts: a role's STS
 * credential is useless without its token (OSS refuses every call), and runtimes that send the id
 * and secret without the token must not displace the environment — there FC's
 * ALIBABA_CLOUD_ACCESS_KEY_ID / _SECRET / _SECURITY_TOKEN (set from the same role, read once at
 * start-up by lib/adapters/config/oss-settings.ts) are used. Every part is held as a Secret
 * (lib/core/secret.ts): it prints redacted and is revealed only to sign OSS requests.
 *
 * Headers a caller forges can only make the adapter talk to the configured bucket with the
 * caller's own credentials: they cannot redirect it elsewhere nor read another request's.
 */
import { createHash } from 'node:crypto';
import { Secret } from '../../core/secret.js';
import { isCredentialRefusal } from './errors.js';
import type { OssObjects } from './objects.js';

export interface OssCredentials {
  accessKeyId: Secret;
  accessKeySecret: Secret;
  securityToken: Secret | undefined;
}

/** The request's role credentials when it carries all three headers, non-empty; else undefined (use the environment's). */
export function credentialsFromHeaders(headers: Headers): OssCredentials | undefined {
  const id = headers.get('x-fc-access-key-id');
  const secret = headers.get('x-fc-access-key-secret');
  const token = headers.get('x-fc-security-token');
  if (!id || !secret || !token) return undefined;
  return { accessKeyId: new Secret(id), accessKeySecret: new Secret(secret), securityToken: new Secret(token) };
}

/** A one-way name for a credential set, to key caches without keeping the secret in the key. */
export function credentialFingerprint(credentials: OssCredentials): string {
  return createHash('sha256')
    .update(credentials.accessKeyId.reveal())
    .update('\0')
    .update(credentials.accessKeySecret.reveal())
    .update('\0')
    .update(credentials.securityToken?.reveal() ?? '')
    .digest('hex');
}

/**
 * Consecutive refusals of the environment's credentials before the instance reports itself
 * unhealthy (docs/protocol.md §1.7). A few in a row, not one: a single refusal can be a request
 * signed just as the credentials were being replaced.
 */
export const CREDENTIAL_REFUSALS_BEFORE_UNHEALTHY = 3;

/**
 * Watches the answers OSS gives to one credential set — the environment's, which the process reads
 * once at start-up and can never renew (docs/protocol.md §9.4): on custom.debian11/12 those are the
 * role's STS credentials, valid for 36 hours. An instance that outlives them fails every store call
 * while its health check would still pass, so FC would never replace it; after
 * CREDENTIAL_REFUSALS_BEFORE_UNHEALTHY refusals in a row (`isCredentialRefusal`) `problem()` says
 * why, and GET /health answers 503 with it. Any answer that is not a refusal starts the count again;
 * a failure of another kind (a timeout, a 5xx) leaves it as it is.
 */
export class CredentialRefusals {
  private consecutive = 0;
  private lastCode: string | undefined;

  constructor(private readonly limit = CREDENTIAL_REFUSALS_BEFORE_UNHEALTHY) {}

  /** `objects` with every answer counted. */
  watch(objects: OssObjects): OssObjects {
    return {
      create: (key, body) => this.count(objects.create(key, body)),
      read: (key) => this.count(objects.read(key)),
      list: (prefix, options) => this.count(objects.list(prefix, options)),
      remove: (key) => this.count(objects.remove(key)),
      removeMany: (keys) => this.count(objects.removeMany(keys)),
    };
  }

  /** Why the credentials no longer work (no secret in it), or undefined while they do. */
  problem(): string | undefined {
    if (this.consecutive < this.limit) return undefined;
    return `OSS refused the instance's credentials (${this.lastCode}) on ${this.consecutive} requests in a row; the instance needs new credentials`;
  }

  private async count<T>(answer: Promise<T>): Promise<T> {
    try {
      const value = await answer;
      this.consecutive = 0;
      return value;
    } catch (error) {
      if (isCredentialRefusal(error)) {
        this.consecutive += 1;
        this.lastCode = error.code;
      }
      throw error;
    }
  }
}

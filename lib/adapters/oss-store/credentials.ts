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

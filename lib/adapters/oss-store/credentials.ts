/**
 * OSS credentials (SPEC §6): in Function Compute the function's role credentials arrive on every
 * request as `x-fc-access-key-id`, `x-fc-access-key-secret`, `x-fc-security-token` and rotate, so
 * the current request's wins; otherwise ALIBABA_CLOUD_ACCESS_KEY_ID / _SECRET / _SECURITY_TOKEN,
 * read once at start-up by the configuration (lib/adapters/config/oss-settings.ts). Every part is
 * held as a Secret (lib/core/secret.ts): it prints redacted and is revealed only to sign OSS requests.
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

export function credentialsFromHeaders(headers: Headers): OssCredentials | undefined {
  const id = headers.get('x-fc-access-key-id');
  const secret = headers.get('x-fc-access-key-secret');
  if (!id || !secret) return undefined;
  const token = headers.get('x-fc-security-token');
  return { accessKeyId: new Secret(id), accessKeySecret: new Secret(secret), securityToken: token ? new Secret(token) : undefined };
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

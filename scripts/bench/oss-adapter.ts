/**
 * One adapter instance on the OSS store for the benches (bench-oss.ts, bench/journal.ts): its own
 * OSS driver on the emulator's bucket, its own HTTP server in front of `kernelUrl` — as an FC instance.
 */
import { SdkA2AKernel } from '../../lib/adapters/a2a-kernel/sdk-kernel.js';
import { SharpImageCodec } from '../../lib/adapters/image/sharp-codec.js';
import { silentLogger } from '../../lib/adapters/logger.js';
import { listen, type RunningServer } from '../../lib/adapters/node-server/node-server.js';
import { OssStoreProvider } from '../../lib/adapters/oss-store/index.js';
import type { OssObjects } from '../../lib/adapters/oss-store/objects.js';
import { versions } from '../../lib/adapters/versions.js';
import { Secret } from '../../lib/core/secret.js';
import { createApp } from '../../lib/http/app.js';

/** One instance's OSS driver on the emulator at `endpoint`, every object call through `wrapObjects` (a counter). */
export function benchProvider(endpoint: string, credential: { accessKeyId: string; accessKeySecret: string }, wrapObjects: (objects: OssObjects) => OssObjects): OssStoreProvider {
  return new OssStoreProvider(
    {
      bucket: 'agui-state',
      endpoint,
      region: 'cn-hangzhou',
      pathStyle: true,
      signature: 'v4',
      prefix: 'agui',
      timeoutMs: 5_000,
      credentials: { accessKeyId: new Secret(credential.accessKeyId), accessKeySecret: new Secret(credential.accessKeySecret), securityToken: undefined },
    },
    { wrapObjects },
  );
}

export function ossAdapter(provider: OssStoreProvider, kernelUrl: string, options: { detachGraceMs?: number } = {}): Promise<RunningServer> {
  const app = createApp({
    config: { authToken: undefined, allowedRoots: [], defaultLanguage: 'en', heartbeatMs: 15_000, leaseTtlMs: 30_000, leaseRenewMs: 10_000, ...options },
    storeFor: (request) => provider.storeFor(request),
    storeKind: 'oss',
    kernel: new SdkA2AKernel({ url: kernelUrl, token: undefined }),
    images: new SharpImageCodec(),
    logger: silentLogger,
    clock: Date.now,
    versions,
  });
  return listen(app, silentLogger, '127.0.0.1', 0);
}

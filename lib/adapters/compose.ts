/** Wires configuration, store, kernel and logger into the app (lib/adapters/start-adapter.ts, for every entry point). */

import type { Logger, ThreadStore } from '../core/ports.js';
import { type App, type AppDeps, createApp } from '../http/app.js';
import type { Config, EntryConfig } from './config.js';
import { LazyImageCodec, LazyKernel } from './lazy-ports.js';
import { lazyStoreFor } from './lazy-store.js';
import { versions } from './versions.js';

interface StoreWiring {
  storeFor: (request?: Request) => ThreadStore;
  kind: ThreadStore['kind'];
  /** Why the store can no longer be used by this instance (GET /health: 503), once its driver knows. */
  health?: () => string | undefined;
}

/**
 * What the running entry hands the app: the web console's route, which the start-up path loads only
 * when enabled, and FC's PreStop drain, once the server exists (start-adapter.ts, docs/architecture.md §6).
 */
export type AppExtras = Pick<AppDeps, 'console' | 'preStop'>;

export function composeApp(config: EntryConfig, logger: Logger, extras: AppExtras = {}): App {
  const { storeFor, kind, health } = createStores(config);
  // Each adapter's module loads with its first use (lazy-ports.ts, lazy-store.ts; docs/architecture.md §6.3).
  const kernel = new LazyKernel(async () => {
    const { SdkA2AKernel } = await import('./a2a-kernel/sdk-kernel.js');
    return new SdkA2AKernel({ url: config.a2aUrl, token: config.a2aToken });
  });
  return createApp({
    config: {
      authToken: config.authToken,
      allowedRoots: config.allowedRoots,
      defaultLanguage: config.defaultLanguage,
      heartbeatMs: config.heartbeatMs,
      leaseTtlMs: config.leaseTtlMs,
      leaseRenewMs: config.leaseRenewMs,
      corsOrigins: config.corsOrigins,
      bodyTimeoutMs: config.bodyTimeoutMs,
      maxActiveRuns: config.maxActiveRuns,
      detachGraceMs: config.detachGraceMs,
    },
    storeFor,
    // The instance's own credentials (the environment's): what the sweeper works with (docs/protocol.md §6.15).
    backgroundStore: () => storeFor(),
    storeKind: kind,
    ...(health ? { storeHealth: health } : {}),
    kernel,
    images: new LazyImageCodec(async () => new (await import('./image/sharp-codec.js')).SharpImageCodec()),
    logger,
    clock: Date.now,
    versions,
    ...extras,
  });
}

/**
 * File: one store for every request. OSS (docs/protocol.md §9.4): a store per request, bound to the
 * request's FC role credentials when it carries them (they rotate), else to the environment's.
 * Either driver is imported with the first request that needs a store (lazy-store.ts).
 */
function createStores(config: Config): StoreWiring {
  const oss = config.store === 'oss' ? config.oss : undefined;
  if (oss) {
    // Loaded with the first request that needs a store; until then nothing can have been refused.
    let provider: { health(): string | undefined } | undefined;
    const storeFor = lazyStoreFor('oss', async () => {
      const { OssStoreProvider } = await import('./oss-store/index.js');
      const loaded = new OssStoreProvider(oss);
      provider = loaded;
      return (request) => loaded.storeFor(request);
    });
    return { storeFor, kind: 'oss', health: () => provider?.health() };
  }
  const storeFor = lazyStoreFor('file', async () => {
    const { FileThreadStore } = await import('./file-store/file-store.js');
    const store = new FileThreadStore(config.stateDir);
    return () => store;
  });
  return { storeFor, kind: 'file' };
}

/** Wires configuration, store, kernel and logger into the app (lib/adapters/start-adapter.ts, for every entry point). */

import type { Logger, ThreadStore } from '../core/ports.js';
import { type App, type AppDeps, createApp } from '../http/app.js';
import { SdkA2AKernel } from './a2a-kernel/sdk-kernel.js';
import type { Config, EntryConfig } from './config.js';
import { FileThreadStore } from './file-store/file-store.js';
import { SharpImageCodec } from './image/sharp-codec.js';
import { OssStoreProvider } from './oss-store/index.js';
import { versions } from './versions.js';

interface StoreWiring {
  storeFor: (request: Request) => ThreadStore;
  kind: ThreadStore['kind'];
}

/**
 * What the running entry hands the app: the web console's route, which the start-up path loads only
 * when enabled, and FC's PreStop drain, once the server exists (start-adapter.ts, docs/architecture.md §6).
 */
export type AppExtras = Pick<AppDeps, 'console' | 'preStop'>;

export function composeApp(config: EntryConfig, logger: Logger, extras: AppExtras = {}): App {
  const { storeFor, kind } = createStores(config);
  const kernel = new SdkA2AKernel({ url: config.a2aUrl, token: config.a2aToken });
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
    },
    storeFor,
    storeKind: kind,
    kernel,
    images: new SharpImageCodec(),
    logger,
    clock: Date.now,
    versions,
    ...extras,
  });
}

/**
 * File: one store for every request. OSS (docs/protocol.md §9.4): a store per request, bound to the request's
 * FC role credentials when it carries them (they rotate), else to the environment's.
 */
function createStores(config: Config): StoreWiring {
  if (config.store === 'oss' && config.oss) {
    const provider = new OssStoreProvider(config.oss);
    return { storeFor: (request) => provider.storeFor(request), kind: provider.kind };
  }
  const store = new FileThreadStore(config.stateDir);
  return { storeFor: () => store, kind: store.kind };
}

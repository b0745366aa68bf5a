/** Wires configuration, store, kernel and logger into the app (lib/adapters/start-adapter.ts, for every entry point). */

import type { Logger, ThreadStore } from '../core/ports.js';
import { type App, createApp } from '../http/app.js';
import { SdkA2AKernel } from './a2a-kernel/sdk-kernel.js';
import type { Config, EntryConfig } from './config.js';
import { FileThreadStore } from './file-store/file-store.js';
import { OssStoreProvider } from './oss-store/index.js';
import { versions } from './versions.js';

interface StoreWiring {
  storeFor: (request: Request) => ThreadStore;
  kind: ThreadStore['kind'];
}

export function composeApp(config: EntryConfig, logger: Logger): App {
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
      bodyTimeoutMs: config.bodyTimeoutMs,
      maxActiveRuns: config.maxActiveRuns,
    },
    storeFor,
    storeKind: kind,
    kernel,
    logger,
    clock: Date.now,
    versions,
  });
}

/**
 * File: one store for every request. OSS (SPEC §6): a store per request, bound to the request's
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

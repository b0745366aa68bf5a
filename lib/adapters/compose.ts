/** Wires configuration, store, kernel and logger into the app (used by the local stack and FC). */

import type { Logger, ThreadStore } from '../core/ports.js';
import { type App, createApp } from '../http/app.js';
import { SdkA2AKernel } from './a2a-kernel/sdk-kernel.js';
import type { Config } from './config.js';
import { FileThreadStore } from './file-store/file-store.js';
import { SharpImageCodec } from './image/sharp-codec.js';
import { OssStoreProvider } from './oss-store/index.js';
import { versions } from './versions.js';

export interface Composition {
  app: App;
  /** The store as the environment's configuration gives it (for OSS: the environment's credentials). */
  store: ThreadStore;
}

interface StoreWiring {
  storeFor: (request: Request) => ThreadStore;
  store: ThreadStore;
}

export function composeApp(config: Config, logger: Logger, a2aUrl: string): Composition {
  const { storeFor, store } = createStores(config);
  const kernel = new SdkA2AKernel({ url: a2aUrl, token: config.a2aToken });
  const app = createApp({
    config: {
      authToken: config.authToken,
      allowedRoots: config.allowedRoots,
      defaultLanguage: config.defaultLanguage,
      heartbeatMs: config.heartbeatMs,
      leaseTtlMs: config.leaseTtlMs,
      leaseRenewMs: config.leaseRenewMs,
    },
    storeFor,
    storeKind: store.kind,
    kernel,
    images: new SharpImageCodec(),
    logger,
    clock: Date.now,
    versions,
  });
  return { app, store };
}

/**
 * File: one store for every request. OSS (SPEC §6): a store per request, bound to the request's
 * FC role credentials when it carries them (they rotate), else to the environment's.
 */
function createStores(config: Config): StoreWiring {
  if (config.store === 'oss' && config.oss) {
    const provider = new OssStoreProvider(config.oss);
    return { storeFor: (request) => provider.storeFor(request), store: provider.storeFor() };
  }
  const store = new FileThreadStore(config.stateDir);
  return { storeFor: () => store, store };
}

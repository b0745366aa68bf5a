/** Wires configuration, store, kernel and logger into the app (used by the local stack and FC). */
import type { Config } from './config.js';
import type { Logger, ThreadStore } from '../core/ports.js';
import { createApp, type App } from '../http/app.js';
import { SdkA2AKernel } from './a2a-kernel.js';
import { FileThreadStore } from './file-store.js';
import { versions } from './versions.js';

export interface Composition {
  app: App;
  store: ThreadStore;
}

export function composeApp(config: Config, logger: Logger, a2aUrl: string): Composition {
  const store = createStore(config);
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
    storeFor: () => store,
    storeKind: store.kind,
    kernel,
    logger,
    clock: Date.now,
    versions,
  });
  return { app, store };
}

function createStore(config: Config): ThreadStore {
  if (config.store === 'oss') throw new Error('The OSS store is not available in this build.');
  return new FileThreadStore(config.stateDir);
}

/** Wires configuration, store, kernel and logger into the app (lib/adapters/start-adapter.ts, for every entry point). */

import type { Logger, ThreadStore } from '../core/ports.js';
import { type App, type AppDeps, createApp } from '../http/app.js';
import type { ConsoleSettings } from '../http/console-route.js';
import type { Config, EntryConfig } from './config.js';
import { type IdentityProvider, LazyIdentityProvider, LazyImageCodec, LazyKernel } from './lazy-ports.js';
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
export type AppExtras = Pick<AppDeps, 'console' | 'preStop'> & { identity?: IdentityProvider };

/** The identity provider of IAC_CODE_AGUI_OIDC_*, its module (and jose) loaded with the first token it checks; undefined without one. */
export function identityProviderOf(config: Config, logger: Logger): IdentityProvider | undefined {
  const oidc = config.oidc;
  if (!oidc) return undefined;
  return new LazyIdentityProvider(async () => new (await import('./oidc/index.js')).OidcTokenVerifier(oidc, { clock: Date.now, logger }));
}

/**
 * What the web console is told (lib/http/console-route.ts): whether it needs a token, and — with an
 * identity provider and IAC_CODE_AGUI_OIDC_CONSOLE_CLIENT_ID — how it signs people in instead.
 */
export function consoleSettingsOf(config: Config, identity: IdentityProvider | undefined): ConsoleSettings {
  const signIn = config.oidc?.console;
  if (!signIn || !identity || !config.oidc) return { authRequired: Boolean(config.authToken) || Boolean(config.oidc) };
  return {
    authRequired: true,
    signIn: { issuer: config.oidc.issuer, clientId: signIn.clientId, scope: signIn.scope, audiences: config.oidc.audiences, endpoints: () => identity.metadata() },
  };
}

export function composeApp(config: EntryConfig, logger: Logger, extras: AppExtras = {}): App {
  const { storeFor, kind, health } = createStores(config);
  const { identity, ...appExtras } = extras;
  const tokens = identity ?? identityProviderOf(config, logger);
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
    ...(tokens ? { tokens } : {}),
    images: new LazyImageCodec(async () => new (await import('./image/sharp-codec.js')).SharpImageCodec()),
    logger,
    clock: Date.now,
    versions,
    ...appExtras,
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

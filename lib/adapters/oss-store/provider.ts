/**
 * The OSS thread store per request (docs/protocol.md §9.4; lib/http/app.ts `storeFor`): a store
 * bound to the current request's FC role credentials when it carries the complete set of three
 * (they rotate), else to the environment's (credentials.ts). Clients are
 * cached per credential set — keyed by a one-way fingerprint, bounded — and share one cache of
 * the last revision seen per thread. Credentials never reach a log line or an error message.
 */
import { type StoredDocument, StoreUnavailableError, type ThreadStore } from '../../core/ports.js';
import type { OssSettings } from '../config.js';
import { CredentialRefusals, credentialFingerprint, credentialsFromHeaders, type OssCredentials } from './credentials.js';
import { DEFAULT_HOLD, type Hold } from './hold.js';
import { LruMap } from './lru.js';
import { AliOssObjects, type OssObjects } from './objects.js';
import { RevisionCache } from './revision-cache.js';
import { type OssStoreOptions, OssThreadStore } from './thread-store.js';

export interface OssProviderOptions extends Omit<OssStoreOptions, 'prefix' | 'cache' | 'hold' | 'rememberDocuments'> {
  /** The prune hold every store of this provider keeps; default DEFAULT_HOLD (docs/state-store.md "The hold"). */
  hold?: Hold;
  /** Distinct credential sets kept with a ready client; default 16. */
  clientCacheSize?: number;
  /** Tests only: wraps each client (a fault the emulator cannot produce). */
  wrapObjects?: (objects: OssObjects) => OssObjects;
}

/** Answers every call with 503-worthy StoreUnavailableError: no credentials reached this request. */
class MissingCredentialsStore implements ThreadStore {
  readonly kind = 'oss' as const;

  load(): Promise<StoredDocument | undefined> {
    return Promise.reject(this.error());
  }

  save(): Promise<number> {
    return Promise.reject(this.error());
  }

  private error(): StoreUnavailableError {
    return new StoreUnavailableError('No OSS credentials: neither x-fc-access-key-* request headers nor ALIBABA_CLOUD_ACCESS_KEY_* are set.');
  }
}

export class OssStoreProvider {
  readonly kind = 'oss' as const;
  private readonly stores: LruMap<string, OssThreadStore>;
  private readonly revisions = new RevisionCache();
  /** OSS's answers to the environment's credentials, which this process can never renew (credentials.ts). */
  private readonly environmentRefusals = new CredentialRefusals();

  constructor(
    private readonly settings: OssSettings,
    private readonly options: OssProviderOptions = {},
  ) {
    this.stores = new LruMap(options.clientCacheSize ?? 16);
  }

  /** The store for this request; `undefined` (no request) or an incomplete header set means the environment's credentials. */
  storeFor(request?: Request): ThreadStore {
    const fromRequest = request && credentialsFromHeaders(request.headers);
    const credentials = fromRequest ?? this.settings.credentials;
    if (credentials === undefined) return new MissingCredentialsStore();
    const fingerprint = credentialFingerprint(credentials);
    let store = this.stores.get(fingerprint);
    if (store === undefined) {
      // Rotating request credentials renew themselves; only the environment's can wear out for good.
      store = this.createStore(credentials, fromRequest ? undefined : this.environmentRefusals);
      this.stores.set(fingerprint, store);
    }
    return store;
  }

  /**
   * Why this instance can no longer use the store (GET /health answers 503 with it, docs/protocol.md
   * §1.7): OSS refused the environment's credentials several times in a row. Undefined while healthy.
   */
  health(): string | undefined {
    return this.environmentRefusals.problem();
  }

  /** Resolves once no store of this provider prunes in the background (tests, the bench). */
  async idle(): Promise<void> {
    await Promise.all([...this.stores.values()].map((store) => store.idle()));
  }

  private createStore(credentials: OssCredentials, refusals: CredentialRefusals | undefined): OssThreadStore {
    const { settings, options } = this;
    const client = new AliOssObjects(
      {
        endpoint: settings.endpoint,
        bucket: settings.bucket,
        region: settings.region,
        signature: settings.signature,
        timeoutMs: settings.timeoutMs,
        pathStyle: settings.pathStyle,
      },
      {
        accessKeyId: credentials.accessKeyId.reveal(),
        accessKeySecret: credentials.accessKeySecret.reveal(),
        securityToken: credentials.securityToken?.reveal(),
      },
    );
    const wrapped = options.wrapObjects ? options.wrapObjects(client) : client;
    const objects = refusals ? refusals.watch(wrapped) : wrapped;
    // Production: the hold and remembered documents (state-store.md "Request counts"); every instance the same.
    const hold = options.hold ?? { ...DEFAULT_HOLD, proveByTime: !settings.verifyEverySave };
    const storeOptions: OssStoreOptions = { prefix: settings.prefix, cache: this.revisions, hold, rememberDocuments: true };
    if (options.keepRevisions !== undefined) storeOptions.keepRevisions = options.keepRevisions;
    if (options.attempts !== undefined) storeOptions.attempts = options.attempts;
    if (options.backoffMs !== undefined) storeOptions.backoffMs = options.backoffMs;
    if (options.pageSize !== undefined) storeOptions.pageSize = options.pageSize;
    return new OssThreadStore(objects, storeOptions);
  }
}
